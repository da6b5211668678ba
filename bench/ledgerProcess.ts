/**
 * The ledger service as deployed: its program (services/ledger/src/main.ts) as its own process, as
 * docker-compose, Kubernetes and `make cluster` run it (production settings, SQLite file store under
 * `dir`, its outbox relayed on a worker thread, in-process bus file), on a gRPC port chosen here, ready when
 * its /readyz says so. Its output goes to <dir>/ledger.log. The maturity and gRPC benches measure on it.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, sleep, startChild } from './children.js';
import { threadCpuMs } from './logins.js';

export interface LedgerProcess {
  /** host:port of its gRPC server */
  address: string;
  pid: number;
  /** CPU seconds (user + system, every thread) of the process so far (Linux /proc); undefined elsewhere */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

export async function startLedgerProcess(dir: string, log: (line: string) => void): Promise<LedgerProcess> {
  const [grpcPort, metricsPort] = [await freePort(), await freePort()];
  const logFile = join(dir, 'ledger.log');
  const out = openSync(logFile, 'a');
  const child = startChild(
    'services/ledger/src/main.ts',
    {
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dir,
      LEDGER_GRPC_ADDR: `127.0.0.1:${grpcPort}`,
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      INTERNAL_SERVICE_TOKEN: randomUUID() + randomUUID(),
    },
    { stdout: out, stderr: out },
    // BENCH_CPU_PROF=<dir>: the ledger process profiled too (written when it stops)
    process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await child.stop();
      closeSync(out);
      throw new Error(`the ledger process did not become ready; see ${logFile}`);
    }
    await sleep(100);
  }
  const pid = child.process.pid!;
  log(`  ledger process ${pid} ready on 127.0.0.1:${grpcPort}`);
  return {
    address: `127.0.0.1:${grpcPort}`,
    pid,
    cpuSeconds() {
      const { main, threads } = threadCpuMs(pid);
      return Number.isNaN(main) || Number.isNaN(threads) ? undefined : (main + threads) / 1000;
    },
    async stop() {
      await child.stop();
      closeSync(out);
    },
  };
}
