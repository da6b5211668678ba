/**
 * The ledger's program as its own process, run as its container runs it (spawnProgram), on a SQLite store
 * and the in-process bus under `dataDir` (or the broker `env` names). Resolves once its /readyz answers 200.
 */
import type { ChildProcess } from 'node:child_process';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { freePort, spawnProgram } from './standalone.js';

export interface LedgerProcess {
  child: ChildProcess;
  /** Its gRPC address (127.0.0.1:port). */
  address: string;
  /** What it printed so far. */
  output(): string;
}

export async function startLedgerProcess(options: {
  dataDir: string;
  grpcPort?: number;
  metricsPort?: number;
  /** more environment (SHUTDOWN_DELAY_MS, …) */
  env?: Record<string, string>;
  /** every process started, for the suite's afterAll to kill what is left */
  children?: ChildProcess[];
}): Promise<LedgerProcess> {
  const grpcPort = options.grpcPort ?? (await freePort());
  const metricsPort = options.metricsPort ?? (await freePort());
  const { child, output } = spawnProgram('services/ledger/src/main.ts', {
    DATA_DIR: options.dataDir,
    LEDGER_GRPC_ADDR: `127.0.0.1:${grpcPort}`,
    METRICS_PORT: String(metricsPort),
    ...options.env,
  });
  options.children?.push(child);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the ledger exited with ${child.exitCode}:\n${output()}`);
      const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => null);
      return res?.status === 200;
    },
    { timeoutMs: 90_000, intervalMs: 200, message: 'the ledger is ready' },
  );
  return { child, address: `127.0.0.1:${grpcPort}`, output };
}
