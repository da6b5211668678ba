/**
 * Signals to the standalone target of ./standalone.ts. Its `child` is the server process itself
 * (`node --import tsx services/standalone/src/main.ts`, as `make start` and the images run it), so a
 * kill -9 or a SIGTERM reaches the server, not a wrapper that relays or escalates signals.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type RunningTarget } from './standalone.js';

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
