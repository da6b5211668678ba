/**
 * The production topology (scripts/cluster/cluster.ts: every service its own process on the Kafka bus,
 * Redis, two gateways) against the standalone target of the same run:
 *
 *   1. admin decision → investor push: the same loop as socket.ts (measureDecisions), with the investor's
 *      socket on gateway A and the admin's HTTP calls on gateway B, so every push crosses instances
 *      (ledger → Kafka → a gateway's live consumer → Redis → gateway A's socket).
 *   2. ledger restart: `kill -9` the ledger (by its pid file; the supervisor restarts it), then an admin
 *      balance adjustment (PUT api/users/updateDepositBalance/:id, add $1, one Idempotency-Key per round
 *      so the retries are one posting) is retried through gateway B every RETRY_PAUSE_MS until one answers
 *      200. Reported per round: kill → first successful posting, and the restarted process's pid appearing
 *      → first successful posting (the first includes the supervisor's restart delay, which doubles when the
 *      process had been up less than 30 s: 0.5 s, 1 s, 2 s), and of the latter the part until the new
 *      process's gRPC port accepts connections (its boot). Baseline: the same call's latency in steady state.
 *
 * The cluster gets its own folder under the OS temp dir, ports 18280/18281 (gRPC from 52051), Redis
 * database 11 (emptied first: it belongs to the bench, and rate-limit counters of an earlier run would
 * count against this one) and the broker of the Kafka bus run.
 */
import { benchText } from './config.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { startCluster, type Cluster } from '../scripts/cluster/cluster.js';
import { portOpen } from '../scripts/cluster/ports.js';
import { sleep } from './children.js';
import { brief, registerInvestor, signIn, type BrowserSession } from './http.js';
import { latencyFigure, median, nowMs, round, type LatencyFigure } from './load.js';
import { measureDecisions, openSocket } from './socket.js';

export const CLUSTER_PORTS: [number, number] = [18280, 18281];
// below the ephemeral port range (32768-60999 on Linux): an outgoing connection never holds these
export const CLUSTER_GRPC_BASE = 30250;
export const CLUSTER_REDIS_URL = 'redis://127.0.0.1:6379/11';

export interface RestartRound {
  /** kill -9 sent → first 200 of the retried posting */
  killToPostingMs: number;
  /** the restarted ledger's pid file appeared → first 200 */
  pidToPostingMs: number;
  /** kill -9 sent → the restarted ledger's pid file (the supervisor's delay and spawn) */
  killToPidMs: number;
  /** the restarted ledger's pid file → its gRPC port accepts connections (its boot) */
  pidToListenMs: number;
  /** calls made until one succeeded */
  attempts: number;
  /** the answer of the last failed attempt */
  lastFailure?: string;
}

export type RestartResult =
  | { skipped: string }
  | {
      /** PUT updateDepositBalance through gateway B, one at a time, ledger up */
      steady: LatencyFigure;
      rounds: RestartRound[];
      median: { killToPostingMs: number; pidToPostingMs: number };
      /** medians ÷ the steady p50 */
      ratios: { killToPostingVsSteadyP50: number; pidToPostingVsSteadyP50: number };
    };

export type ClusterBenchResult =
  | { skipped: string }
  | {
      /** startCluster() until both gateways answer /healthz */
      startSeconds: number;
      push:
        | { skipped: string }
        | {
            decisionToPush: LatencyFigure;
            decisionHttp: LatencyFigure;
            /** The standalone's decision → push of the same run (socket.ts), the ratios' denominator. */
            standalone?: LatencyFigure;
            /** cluster ÷ standalone (the socket module of the same run); NaN when that one was skipped */
            p50VsStandalone: number;
            p99VsStandalone: number;
          };
      restart: RestartResult;
    };

const RETRY_PAUSE_MS = 20;
const RESTART_DEADLINE_MS = 90_000;

async function emptyBenchRedis(): Promise<void> {
  const redis = new Redis(CLUSTER_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

async function adjust(admin: BrowserSession, userId: string, key: string) {
  return admin.put(
    `/api/users/updateDepositBalance/${encodeURIComponent(userId)}`,
    { operation: 'add', amount: 1 },
    { 'idempotency-key': key },
  );
}

async function measureRestart(
  cluster: Cluster,
  admin: BrowserSession,
  userId: string,
  o: { seconds: number; maxCount: number; restarts: number; log(line: string): void },
): Promise<RestartResult> {
  // steady state: the same call, ledger up
  const steadyMs: number[] = [];
  const end = nowMs() + o.seconds * 1000;
  for (let i = 0; i < o.maxCount && nowMs() < end; i++) {
    const t0 = nowMs();
    const res = await adjust(admin, userId, `bench-steady-${randomUUID()}`);
    if (res.status !== 200)
      return { skipped: `PUT updateDepositBalance failed in steady state: ${brief(res)}` };
    steadyMs.push(nowMs() - t0);
  }
  const steady = latencyFigure('admin PUT updateDepositBalance (ledger up)', steadyMs);

  const rounds: RestartRound[] = [];
  for (let r = 0; r < o.restarts; r++) {
    await cluster.waitReady('ledger', 60_000);
    const oldPid = cluster.pid('ledger');
    const key = `bench-restart-${randomUUID()}`;
    const tKill = nowMs();
    await cluster.kill('ledger', 'SIGKILL');
    // watch the pid file for the restarted process, then its gRPC port, while the posting is retried
    let tPid: number | undefined;
    let tListen: number | undefined;
    let watching = true;
    const watcher = (async () => {
      while (watching && tPid === undefined) {
        const pid = cluster.pid('ledger');
        if (pid !== undefined && pid !== oldPid) tPid = nowMs();
        else await sleep(5);
      }
      const [ledgerHost, ledgerPort] = cluster.grpc.ledger.split(':');
      while (watching && tListen === undefined) {
        if (await portOpen(ledgerHost!, Number(ledgerPort))) tListen = nowMs();
        else await sleep(10);
      }
    })();
    let attempts = 0;
    let lastFailure: string | undefined;
    let tOk: number | undefined;
    try {
      while (nowMs() - tKill < RESTART_DEADLINE_MS) {
        attempts += 1;
        const res = await adjust(admin, userId, key).catch((err: Error) => ({
          status: 0,
          body: err.message,
        }));
        if (res.status === 200) {
          tOk = nowMs();
          break;
        }
        lastFailure = brief(res);
        await sleep(RETRY_PAUSE_MS);
      }
    } finally {
      watching = false;
      await watcher;
    }
    if (tOk === undefined)
      return {
        skipped: `no successful posting within ${RESTART_DEADLINE_MS / 1000} s of kill -9 (round ${r + 1}); last answer: ${lastFailure}`,
      };
    tPid ??= tOk; // restarted and answered between two looks at the pid file
    tListen ??= tOk;
    const round1 = {
      killToPostingMs: round(tOk - tKill),
      pidToPostingMs: round(tOk - tPid),
      killToPidMs: round(tPid - tKill),
      pidToListenMs: round(tListen - tPid),
      attempts,
      ...(lastFailure ? { lastFailure } : {}),
    };
    rounds.push(round1);
    o.log(
      `  round ${r + 1}: kill → posting ${round1.killToPostingMs} ms (kill → new pid ${round1.killToPidMs} ms, new pid → posting ${round1.pidToPostingMs} ms ` +
        `of which new pid → gRPC port open ${round1.pidToListenMs} ms; ${attempts} attempts)`,
    );
  }
  const med = {
    killToPostingMs: round(median(rounds.map((x) => x.killToPostingMs))),
    pidToPostingMs: round(median(rounds.map((x) => x.pidToPostingMs))),
  };
  return {
    steady,
    rounds,
    median: med,
    ratios: {
      killToPostingVsSteadyP50: steady.p50 > 0 ? round(med.killToPostingMs / steady.p50, 1) : NaN,
      pidToPostingVsSteadyP50: steady.p50 > 0 ? round(med.pidToPostingMs / steady.p50, 1) : NaN,
    },
  };
}

export async function benchCluster(o: {
  kafkaBrokers: string[];
  seconds: number;
  maxDecisions: number;
  restarts: number;
  /** The standalone's decision → push figure of the same run (socket.ts), for the ratios. */
  standalone?: LatencyFigure;
  log(line: string): void;
}): Promise<ClusterBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-bench-cluster-'));
  let cluster: Cluster | undefined;
  let socket: Socket | undefined;
  let keep = false; // the cluster's logs are kept when something failed
  try {
    try {
      await emptyBenchRedis();
    } catch (err) {
      return { skipped: `no Redis at ${CLUSTER_REDIS_URL}: ${(err as Error).message}` };
    }
    const t0 = nowMs();
    try {
      cluster = await startCluster({
        dir,
        ports: CLUSTER_PORTS,
        grpcBase: CLUSTER_GRPC_BASE,
        redisUrl: CLUSTER_REDIS_URL,
        kafkaBrokers: o.kafkaBrokers,
        env: { LOG_LEVEL: benchText('BENCH_LOG_LEVEL') ?? 'warn' },
      });
    } catch (err) {
      keep = true;
      return { skipped: `the cluster did not start: ${(err as Error).message}` };
    }
    const startSeconds = round((nowMs() - t0) / 1000, 1);
    o.log(`  cluster up in ${startSeconds} s (logs: ${join(dir, 'logs')})`);
    const [urlA, urlB] = cluster.urls;

    let investor: Awaited<ReturnType<typeof registerInvestor>>;
    let admin: BrowserSession;
    try {
      investor = await registerInvestor(urlA, { verify: true });
      admin = await signIn(urlB, cluster.admin.email, cluster.admin.password);
      socket = await openSocket(urlA, investor.browser.cookieHeader());
    } catch (err) {
      keep = true;
      return {
        startSeconds,
        push: { skipped: `setup failed: ${(err as Error).message}` },
        restart: { skipped: 'setup failed' },
      };
    }

    // ---- decision → push across gateways
    let push: Extract<ClusterBenchResult, { push: unknown }>['push'];
    const measured = await measureDecisions({
      investor: investor.browser,
      admin,
      socket,
      seconds: o.seconds,
      maxCount: o.maxDecisions,
    }).catch((err: Error) => ({ skipped: `failed: ${err.message}` }));
    if ('skipped' in measured) push = measured;
    else {
      const decisionToPush = latencyFigure('cluster: admin confirm (B) → investor push (A)', measured.toPush);
      const s = o.standalone;
      push = {
        decisionToPush,
        decisionHttp: latencyFigure('cluster: admin PATCH confirmPayment (B)', measured.http),
        ...(s ? { standalone: { ...s, name: `standalone: ${s.name}` } } : {}),
        p50VsStandalone: s && s.p50 > 0 ? round(decisionToPush.p50 / s.p50, 2) : NaN,
        p99VsStandalone: s && s.p99 > 0 ? round(decisionToPush.p99 / s.p99, 2) : NaN,
      };
    }
    if ('skipped' in push) o.log(`  decision → push skipped: ${push.skipped}`);
    else o.log(`  ${push.decisionToPush.count} decisions measured across gateways`);
    socket.disconnect();
    socket = undefined;

    // ---- ledger kill -9 → first posting
    o.log(`  ledger kill -9 → first successful posting (${o.restarts} rounds)`);
    const restart = await measureRestart(cluster, admin, investor.id, {
      seconds: o.seconds,
      maxCount: o.maxDecisions,
      restarts: o.restarts,
      log: o.log,
    }).catch((err: Error): RestartResult => ({ skipped: `failed: ${err.message}` }));
    if ('skipped' in restart) o.log(`  restart skipped: ${restart.skipped}`);
    keep = 'skipped' in push || 'skipped' in restart;
    return { startSeconds, push, restart };
  } finally {
    socket?.disconnect();
    await cluster?.stop();
    if (keep) o.log(`  the cluster's logs are kept in ${join(dir, 'logs')}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
