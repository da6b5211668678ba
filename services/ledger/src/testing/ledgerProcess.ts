/**
 * The ledger's program (services/ledger/src/main.ts) as its own process, run as its container runs it:
 * `node --import tsx <program>` from the repository root (node itself, so a signal reaches the server), a SQLite
 * store and the in-process bus under `dataDir` (or the broker `env` names), on gRPC and metrics ports chosen here
 * unless given. Resolves once its /readyz answers 200. The suites (tests/health, tests/faults) and the benchmarks
 * (bench/run.ts, bench/maturity.ts) start the ledger with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '@meridian/platform/util/freePort';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface LedgerProcessOptions {
  dataDir: string;
  grpcPort?: number;
  metricsPort?: number;
  /**
   * NODE_ENV=production (with a generated INTERNAL_SERVICE_TOKEN), as the images run it; development otherwise.
   */
  production?: boolean;
  /** More environment (SHUTDOWN_DELAY_MS, the broker, …), on top of PATH, HOME, NODE_ENV and LOG_LEVEL=warn. */
  env?: Record<string, string | undefined>;
  /** Its stdout and stderr appended to this file; collected in memory (`output()`) when absent. */
  logFile?: string;
  /** Node options before the program (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /** Called with the process as soon as it is spawned, for the caller to kill it if it is left (a suite's afterAll, the bench's exit handler). */
  onSpawn?: (child: ChildProcess) => void;
  /** How long it may take to answer /readyz (default 90 s: a busy two-core machine). */
  readyTimeoutMs?: number;
}

export interface LedgerProcess {
  child: ChildProcess;
  pid: number;
  /** Its gRPC address (127.0.0.1:port). */
  address: string;
  /** What it printed so far (empty when it writes to `logFile`). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export async function startLedgerProcess(options: LedgerProcessOptions): Promise<LedgerProcess> {
  const grpcPort = options.grpcPort ?? (await freePort());
  const metricsPort = options.metricsPort ?? (await freePort());
  const logFd = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'services/ledger/src/main.ts'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: options.production ? 'production' : 'development',
        LOG_LEVEL: 'warn',
        ...(options.production ? { INTERNAL_SERVICE_TOKEN: randomUUID() + randomUUID() } : {}),
        ...options.env,
        DATA_DIR: options.dataDir,
        LEDGER_GRPC_ADDR: `127.0.0.1:${grpcPort}`,
        METRICS_PORT: String(metricsPort),
      },
      stdio: ['ignore', logFd ?? 'pipe', logFd ?? 'pipe'],
    },
  );
  options.onSpawn?.(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const output = () => out;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    if (logFd !== undefined) closeSync(logFd);
  };
  const printed = () => (options.logFile === undefined ? `:\n${output()}` : `; see ${options.logFile}`);
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`the ledger exited with ${child.exitCode ?? child.signalCode}${printed()}`);
    }
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    })
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the ledger did not answer /readyz within the deadline${printed()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, pid: child.pid!, address: `127.0.0.1:${grpcPort}`, output, stop };
}
