/**
 * The standalone target as a child process for the bench: fresh DATA_DIR, ports chosen here (HTTP and
 * the ledger's LEDGER_GRPC_ADDR, both on 127.0.0.1), the admin from ADMIN_EMAIL / ADMIN_PASSWORD (the
 * bench's env, or generated), in-memory key-value (REDIS_URL removed, so rate-limit counters do not
 * carry over between runs). Its stdout/stderr go to bench/results/standalone.log. The baseline servers'
 * child process too (startBaselines).
 */
import { benchText } from './config.js';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { MeshIdentity } from '@meridian/platform/grpc/mesh';
import { freePort } from '@meridian/platform/util/freePort';
import { keptMeshCertificates } from '@meridian/standalone/meshCertificates';
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

/** The ports bench/baselineServer.ts prints (its header says what serves each). */
const baselinePorts = z.object({
  bare: z.number().int(),
  express: z.number().int(),
  grpc: z.number().int(),
  grpcTls: z.number().int(),
});
type BaselinePorts = z.infer<typeof baselinePorts>;

/** Names of the TLS echo's two certificates, of one CA made for the run. */
const ECHO_SERVER = 'bench-echo';
const ECHO_CALLER = 'bench-echo-caller';

/**
 * The baseline servers (bench/baselineServer.ts) as a child process; resolves with their ports and the
 * identity to call the TLS echo with (`echoCaller`: a certificate of the echo's CA, for
 * echoService.ts echoTlsClient). The CA and the two certificates are made (keptMeshCertificates) in a
 * temporary folder whose `bench-echo` folder is the child's GRPC_TLS_DIR; the folder is removed once
 * the child has read it (it is up) or has failed.
 */
export async function startBaselines(): Promise<
  BaselinePorts & { echoCaller: MeshIdentity; stop(): Promise<void> }
> {
  const meshDir = mkdtempSync(join(tmpdir(), 'meridian-bench-echo-'));
  let child: ReturnType<typeof startChild> | undefined;
  try {
    const [, echoCaller] = keptMeshCertificates(meshDir, [ECHO_SERVER, ECHO_CALLER]);
    if (!echoCaller) throw new Error('the TLS echo caller certificate was not made');
    const started = startChild(
      'bench/baselineServer.ts',
      { ...process.env, GRPC_TLS_DIR: join(meshDir, ECHO_SERVER) },
      { stdout: 'pipe', stderr: 'inherit' },
    );
    child = started;
    const ports = await new Promise<BaselinePorts>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('baseline servers not ready in 30 s')), 30_000);
      started.process.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          try {
            resolve(baselinePorts.parse(JSON.parse(buf.slice(0, nl))));
          } catch (err) {
            reject(err);
          }
        }
      });
      started.process.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`baseline servers exited with ${code}`));
      });
    });
    started.process.stdout?.resume();
    return { ...ports, echoCaller, stop: () => started.stop(3_000) };
  } catch (err) {
    await child?.stop(3_000);
    throw err;
  } finally {
    rmSync(meshDir, { recursive: true, force: true });
  }
}
