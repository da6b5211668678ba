/**
 * Child processes of the bench (the standalone target, the baseline servers), started as
 * `node --import tsx <file>` (one process each, no wrapper in between, so a signal reaches the server
 * itself) and always stopped: on normal completion, on errors, on Ctrl+C and on process exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const root = new URL('..', import.meta.url).pathname;

const running = new Set<ChildProcess>();

function killAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

let installed = false;
function installExitHandlers(): void {
  if (installed) return;
  installed = true;
  // Last resort: whatever path leads out of the bench process, no child outlives it.
  process.on('exit', () => killAll('SIGKILL'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAll('SIGTERM');
      setTimeout(() => process.exit(130), 3_000).unref();
      void Promise.all([...running].map((c) => exited(c))).then(() => process.exit(130));
    });
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface Child {
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node --import tsx <script>` in the repository root with `env`; stdout/stderr to `stdio`;
 * `nodeArgs` before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
 */
export function startChild(
  script: string,
  env: Record<string, string | undefined>,
  stdio: { stdout: 'pipe' | 'ignore' | 'inherit' | number; stderr: 'pipe' | 'ignore' | 'inherit' | number },
  nodeArgs: string[] = [],
): Child {
  installExitHandlers();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', stdio.stdout, stdio.stderr],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return {
    process: child,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
