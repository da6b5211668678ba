/**
 * Signals to the standalone target of ./standalone.ts. Its `child` is the server process itself
 * (`node --import tsx services/standalone/src/main.ts`, as `make start` and the images run it), so a
 * kill -9 or a SIGTERM reaches the server, not a wrapper that relays or escalates signals.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generousGatewayLimits } from '@meridian/gateway/testing/composition';
import { freePort } from '@meridian/platform/util/freePort';
import { restartableTarget, type RestartableTarget } from './apiJourney.js';
import { LIFTED_PENDING_CAPS, ROOT, type RunningTarget } from './standalone.js';

/** Why the target cannot start here (tsx missing), or null. */
export const killSkipReason = existsSync(join(ROOT, 'node_modules/tsx'))
  ? null
  : 'node_modules/tsx is missing (run npm install): the standalone target cannot start';

/** The pid of the node process running main.ts. */
export async function serverPidOf(target: RunningTarget): Promise<number> {
  const pid = target.child.pid;
  if (pid === undefined) throw new Error('the standalone target has no process');
  return pid;
}

/** Resolves once the target's process exited. */
export function exitOf(target: RunningTarget): Promise<void> {
  const { child } = target;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => child.once('exit', () => res()));
}

/**
 * A drill's target (declared at the top level of a spec): every start on the same DATA_DIR and the same port
 * (picked at the first start), listening on 127.0.0.1 with the gateway's rate limits and the pending caps
 * lifted for load; `env` comes on top.
 */
export function loadDrillTarget(
  name: string,
  admin: { email: string; password: string },
  env: Record<string, string> = {},
): RestartableTarget {
  let port: number | undefined;
  const drill = restartableTarget(name, {
    adminEmail: admin.email,
    adminPassword: admin.password,
    env: {
      HOST: '127.0.0.1',
      GATEWAY_RATE_LIMITS_JSON: JSON.stringify(generousGatewayLimits),
      ...LIFTED_PENDING_CAPS,
      ...env,
    },
  });
  return {
    dataDir: drill.dataDir,
    async start(overrides = {}) {
      port ??= await freePort();
      return drill.start({ port, ...overrides });
    },
  };
}
