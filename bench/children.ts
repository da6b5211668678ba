/**
 * Child processes of the bench (the standalone target, the baseline servers), started as
 * `node --import tsx <file>` (one process each, no wrapper in between, so a signal reaches the server
 * itself) and always stopped: on normal completion, on errors, on Ctrl+C and on process exit.
 */
import { benchText } from './config.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadMeshIdentity, registerMeshIdentities } from '@meridian/platform/grpc/mesh';
import { startLedgerProcess, type LedgerProcess } from '@meridian/ledger/testing/ledgerProcess';
import { keptMeshCertificates } from '@meridian/standalone/meshCertificates';

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

/** Kills `child` with the bench's other children: on Ctrl+C and when the bench process exits. */
export function killOnExit(child: ChildProcess): void {
  installExitHandlers();
  running.add(child);
  child.once('exit', () => running.delete(child));
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
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', stdio.stdout, stdio.stderr],
  });
  killOnExit(child);
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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * `create()` with the certificates of `meshDir` (keptMeshCertificates' layout: <meshDir>/<service>) of
 * `names` registered for this process while it runs: a gRPC client it makes (createGrpcClient) presents
 * the certificate of the service its `caller` option names, trusts that folder's CA, and signs the
 * user assertions of that service's `user` methods with its key; the client keeps them after. So the
 * bench calls each server as the service that calls it in production, even servers of different CAs
 * (the bench's own ledger and the standalone target's).
 */
export function withMeshIdentities<T>(meshDir: string, names: readonly string[], create: () => T): T {
  const unregister = registerMeshIdentities(names.map((name) => loadMeshIdentity(join(meshDir, name))));
  try {
    return create();
  } finally {
    unregister();
  }
}

/** The ledger's callers the benches call it as: the gateway (for a user) and the investment service. */
const LEDGER_CALLERS = ['gateway', 'investment'] as const;

export interface BenchLedger extends LedgerProcess {
  /** The platform CA and the certificates of the ledger and its callers (withMeshIdentities). */
  meshDir: string;
}

/**
 * The ledger as the maturity and gRPC benches measure it: its program as its own process with production
 * settings, as docker-compose, Kubernetes and `make cluster` run it (SQLite file store under `dir`, its outbox
 * relayed on a worker thread, in-process bus file, mutual TLS with its callers: the platform CA and the
 * certificates of the ledger and its callers generated into <dir>/mesh as `make cluster` does, its
 * GRPC_TLS_DIR <dir>/mesh/ledger), its output in <dir>/ledger.log, killed with the bench.
 * BENCH_CPU_PROF=<dir> profiles it too (written when it stops).
 */
export async function startBenchLedger(dir: string, log: (line: string) => void): Promise<BenchLedger> {
  const meshDir = join(dir, 'mesh');
  keptMeshCertificates(meshDir, ['ledger', ...LEDGER_CALLERS]);
  const ledger = await startLedgerProcess({
    dataDir: dir,
    production: true,
    env: { ...process.env, GRPC_TLS_DIR: join(meshDir, 'ledger') },
    logFile: join(dir, 'ledger.log'),
    nodeArgs: benchText('BENCH_CPU_PROF')
      ? ['--cpu-prof', `--cpu-prof-dir=${benchText('BENCH_CPU_PROF')}`]
      : [],
    readyTimeoutMs: 60_000,
    onSpawn: killOnExit,
  });
  log(`  ledger process ${ledger.pid} ready on ${ledger.address} (mutual TLS)`);
  return { ...ledger, meshDir };
}
