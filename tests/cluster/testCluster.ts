/**
 * The cluster of `make cluster` for a test file (the fault drills, the browser journey on the cluster): a Redis
 * database of the file's own (emptied first), a temp dir, free gateway ports, and rate-limit budgets for a crowd
 * (every test user comes from 127.0.0.1; per-email budgets stay as in production).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, kafkaUnavailableReason } from '../../scripts/kafka/broker.js';
import { startCluster, type Cluster } from '../../scripts/cluster/cluster.js';

/** Why a cluster cannot run here (no Java/Maven for the broker, no Redis), or null. */
export async function clusterSkipReason(redisUrl: string): Promise<string | null> {
  const noKafka = kafkaUnavailableReason();
  if (noKafka) return noKafka;
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await probe.connect();
    return null;
  } catch (err) {
    return `no Redis at ${redisUrl} (${(err as Error).message})`;
  } finally {
    probe.disconnect();
  }
}

const HOUR = 3_600_000;
const generous = (keys: string[]) =>
  JSON.stringify(Object.fromEntries(keys.map((k) => [k, { max: 10_000, windowMs: HOUR }])));

export async function startTestCluster(options: {
  redisUrl: string;
  grpcBase: number;
  env: Record<string, string>;
}): Promise<{ cluster: Cluster; stop(): Promise<void> }> {
  const redis = new Redis(options.redisUrl);
  await redis.flushdb();
  redis.disconnect();
  const dir = mkdtempSync(join(tmpdir(), 'meridian-cluster-'));
  try {
    const cluster = await startCluster({
      dir,
      ports: [await freePort(), await freePort()],
      grpcBase: options.grpcBase,
      redisUrl: options.redisUrl,
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
      async stop() {
        await cluster.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
