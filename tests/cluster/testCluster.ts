/**
 * The cluster of `make cluster` for a test file (the fault drills, the browser journey on the cluster): a temp
 * dir holding everything it keeps (its own Redis server with password and append-only file, the broker's data,
 * the stores), free gateway ports, and rate-limit budgets for a crowd (every test user comes from 127.0.0.1;
 * per-email budgets stay as in production). The machine's shared Redis is never touched. Also the spec's
 * journey as the drills run it across the cluster's two gateways.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@meridian/platform/util/freePort';
import { kafkaUnavailableReason } from '../../scripts/kafka/broker.js';
import { startCluster, type Cluster } from '../../scripts/cluster/cluster.js';
import { redisUnavailableReason } from '../../scripts/cluster/redis.js';
import { runSpecJourney, type SpecJourneyResult } from '../support/specJourney.js';

/** Why a cluster cannot run here (no Java/Maven for the broker, no redis-server), or null. */
export function clusterSkipReason(): string | null {
  return kafkaUnavailableReason() ?? redisUnavailableReason();
}

const HOUR = 3_600_000;
const generous = (keys: string[]) =>
  JSON.stringify(Object.fromEntries(keys.map((k) => [k, { max: 10_000, windowMs: HOUR }])));

export async function startTestCluster(options: {
  grpcBase: number;
  env: Record<string, string>;
  /** Processes of every service (startCluster's `replicas`; default 1). */
  replicas?: number;
}): Promise<{ cluster: Cluster; stop(options?: { keepLogsIn?: string }): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-cluster-'));
  try {
    const cluster = await startCluster({
      dir,
      ports: [await freePort(), await freePort()],
      grpcBase: options.grpcBase,
      replicas: options.replicas,
      env: {
        GATEWAY_RATE_LIMITS_JSON: generous(['login', 'register', 'sendLoginCode', 'loginWithCode']),
        IDENTITY_RATE_LIMITS_JSON: generous([
          'loginPerClient',
          'sendCodePerClient',
          'codeLoginPerClient',
          'registerPerClient',
        ]),
        ...options.env,
      },
    });
    return {
      cluster,
      /** Stops every process and removes the dir; `keepLogsIn` first copies the processes' logs there. */
      async stop(stopOptions = {}) {
        await cluster.stop();
        const logs = join(dir, 'logs');
        if (stopOptions.keepLogsIn && existsSync(logs)) {
          cpSync(logs, stopOptions.keepLogsIn, { recursive: true });
          console.log(`[cluster] the processes' logs are kept in ${stopOptions.keepLogsIn}`);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The spec's journey (../support/specJourney.ts) across the cluster's two gateways: the investor, the admin's
 * lists and the mailbox on the first, the admin's decisions on the second; the Starter plan of FAST_PLANS
 * (12 %), each eventually consistent outcome given `waitMs`.
 */
export function runSpecJourneyAcrossGateways(cluster: Cluster, waitMs: number): Promise<SpecJourneyResult> {
  const [first, second] = cluster.urls;
  return runSpecJourney({
    investorUrl: first,
    adminListUrl: first,
    adminDecideUrl: second,
    mailboxUrl: first,
    admin: cluster.admin,
    plan: { name: 'Starter', ratePercent: 12 },
    waitMs,
  });
}
