/**
 * The standalone target as a child process for the bench: fresh DATA_DIR, ports chosen here (HTTP and
 * the ledger's LEDGER_GRPC_ADDR, both on 127.0.0.1), the admin from ADMIN_EMAIL / ADMIN_PASSWORD (the
 * bench's env, or generated), in-memory key-value (REDIS_URL removed, so rate-limit counters do not
 * carry over between runs). Its stdout/stderr go to bench/results/standalone.log.
 */
import { benchText } from './config.js';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@meridian/platform/util/freePort';
import { root, sleep, startChild } from './children.js';

export interface StandaloneTarget {
  url: string;
  ledgerAddress: string;
  /**
   * The platform CA and the certificates of its services, which it generates at its start under its
   * DATA_DIR (keptMeshCertificates' layout): what a client of its gRPC servers presents (mutual TLS).
   */
  meshDir: string;
  admin: { email: string; password: string };
  logFile: string;
  /** The target's process id (its memory: /proc/<pid>/status). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * `options.env`: more variables for this target only (e.g. the logins bench lifting rate limits);
 * `logName`: its log file under bench/results/. BENCH_CPU_PROF=<dir> profiles the target
 * (`node --cpu-prof`, written to that folder when it stops).
 */
export async function startStandaloneTarget(
  options: { env?: Record<string, string>; logName?: string } = {},
): Promise<StandaloneTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meridian-bench-'));
  const port = await freePort();
  const ledgerPort = await freePort();
  const admin = {
    email: process.env.ADMIN_EMAIL ?? 'bench-admin@example.com',
    password: process.env.ADMIN_PASSWORD ?? `Bench-${randomBytes(9).toString('base64url')}1!`,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const logFile = join(root, `bench/results/${options.logName ?? 'standalone'}.log`);
  const log = openSync(logFile, 'w');
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LEDGER_GRPC_ADDR: `127.0.0.1:${ledgerPort}`,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: benchText('BENCH_LOG_LEVEL') ?? 'warn',
    NODE_ENV: 'development',
    ...options.env,
  };
  delete env.REDIS_URL;
  const profile = benchText('BENCH_CPU_PROF');
  const child = startChild(
    'services/standalone/src/main.ts',
    env,
    { stdout: log, stderr: log },
    profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  );
  closeSync(log);
  const stop = async () => {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  try {
    for (;;) {
      if (child.process.exitCode !== null)
        throw new Error(`standalone target exited with ${child.process.exitCode}; see ${logFile}`);
      const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`standalone target not ready in 90 s; see ${logFile}`);
      await sleep(200);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    ledgerAddress: `127.0.0.1:${ledgerPort}`,
    meshDir: join(dataDir, 'mesh'),
    admin,
    logFile,
    pid: child.process.pid ?? 0,
    stop,
  };
}

/** The baseline servers (bench/baselineServer.ts) as a child process; resolves with their ports. */
export async function startBaselines(): Promise<{
  bare: number;
  express: number;
  grpc: number;
  stop(): Promise<void>;
}> {
  const child = startChild(
    'bench/baselineServer.ts',
    { ...process.env },
    { stdout: 'pipe', stderr: 'inherit' },
  );
  try {
    const ports = await new Promise<{ bare: number; express: number; grpc: number }>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('baseline servers not ready in 30 s')), 30_000);
      child.process.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          try {
            resolve(JSON.parse(buf.slice(0, nl)) as { bare: number; express: number; grpc: number });
          } catch (err) {
            reject(err as Error);
          }
        }
      });
      child.process.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`baseline servers exited with ${code}`));
      });
    });
    child.process.stdout?.resume();
    return { ...ports, stop: () => child.stop(3_000) };
  } catch (err) {
    await child.stop(3_000);
    throw err;
  }
}
