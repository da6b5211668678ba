/**
 * The standalone target for journeys: spawned exactly as `make start` runs it
 * (node --import tsx services/standalone/src/main.ts), waited on by condition (its printed URL,
 * then /readyz), stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { freePort } from '@meridian/platform/util/freePort';

export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The per-user caps on pending deposits, investments and withdrawals lifted far above what a load drill's
 * users file (the caps themselves are tested in each service's pendingCount.int.spec.ts).
 */
export const LIFTED_PENDING_CAPS: Record<string, string> = {
  LEDGER_MAX_PENDING_DEPOSITS: '1000000',
  INVESTMENT_MAX_PENDING: '1000000',
  WITHDRAWAL_MAX_PENDING: '1000000',
};

export interface RunningTarget {
  child: ChildProcess;
  /** http://localhost:<port>, the origin APP_URL names (email links, CSP, socket.io origin check). */
  url: string;
  output: () => string;
}

export interface TargetOptions {
  dataDir: string;
  adminEmail: string;
  adminPassword: string;
  /** A fixed port; default a free one picked here, so APP_URL (email links, socket.io origin) matches. */
  port?: number;
  /** Extra environment (WEB_DIST, LOG_LEVEL, ...). */
  env?: Record<string, string>;
  /** PORT=0 lets the OS pick (links in emails then name APP_URL's default origin). */
  osPickedPort?: boolean;
}

/**
 * A private copy of the built SPA (default web/dist) in a temp folder, taken when index.html and every
 * asset it names are present: another `vite build` on the same machine (a colleague's e2e run) empties
 * and rewrites web/dist, which would otherwise pull the files from under a running journey.
 */
export async function snapshotWebDist(dist = join(ROOT, 'web/dist')): Promise<string> {
  if (!existsSync(join(dist, 'index.html')))
    throw new Error(`${dist} is missing: run \`cd web && npx vite build\` first`);
  const copy = mkdtempSync(join(tmpdir(), 'meridian-web-dist-'));
  await waitFor(
    () => {
      cpSync(dist, copy, { recursive: true, force: true });
      const html = readFileSync(join(copy, 'index.html'), 'utf8');
      const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
      return assets.length > 0 && assets.every((a) => existsSync(join(copy, a)));
    },
    { timeoutMs: 60_000, intervalMs: 500, message: `a complete build in ${dist}` },
  );
  return copy;
}

/**
 * `node --import tsx <script>` in the repository root, as `make start` and the images run a program: node
 * itself, so a signal reaches the server and not a tsx wrapper (which SIGKILLs a child that has not
 * acknowledged a relayed signal within 60 ms, which a busy process may not). Development settings, warn
 * logs, `env` on top; its output collected.
 */
export function spawnProgram(
  script: string,
  env: Record<string, string | undefined>,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  return { child, output: () => out };
}

/**
 * Spawns the standalone target like `make start` and resolves once /readyz answers 200. A port picked here
 * can be taken by another process before the target binds it (a loaded machine runs many suites at once):
 * then the target says EADDRINUSE and is started again, on the same data, with another free port.
 */
export async function startTarget(options: TargetOptions): Promise<RunningTarget> {
  const pickedHere = !options.osPickedPort && options.port === undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTargetOnce(options);
    } catch (err) {
      if (!(pickedHere && attempt < 3 && /EADDRINUSE/.test((err as Error).message))) throw err;
    }
  }
}

async function startTargetOnce(options: TargetOptions): Promise<RunningTarget> {
  const port = options.osPickedPort ? 0 : (options.port ?? (await freePort()));
  const { child, output } = spawnProgram('services/standalone/src/main.ts', {
    PORT: String(port),
    DATA_DIR: options.dataDir,
    ADMIN_EMAIL: options.adminEmail,
    ADMIN_PASSWORD: options.adminPassword,
    ...options.env,
  });
  const target: RunningTarget = { child, url: '', output };
  try {
    target.url = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`standalone exited with ${child.exitCode}`);
        return output().match(/Meridian is running at (http:\/\/localhost:\d+)/)?.[1];
      },
      { timeoutMs: 60_000, intervalMs: 50, message: 'the standalone target prints its URL' },
    );
    await waitFor(async () => (await fetch(`${target.url}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: '/readyz answers 200',
    });
  } catch (err) {
    await stopTarget(target);
    throw new Error(`${(err as Error).message}\n${output()}`);
  }
  return target;
}

/** SIGTERM and wait for the exit; resolves with the exit code. */
export async function stopTarget(target: RunningTarget): Promise<number | null> {
  const { child } = target;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  child.kill('SIGTERM');
  return exited;
}
