/**
 * The money journey (tests/support/moneyJourney.ts, the same steps as money.e2e.spec.ts) in headless
 * Chromium on the production topology (scripts/cluster/cluster.ts, as `make cluster` runs it: a Kafka
 * broker from the official jars, every service its own OS process, two gateways sharing Redis). The
 * investor's browser context lives on gateway A, the admin's on gateway B: the admin's open queue pages
 * update live from the investor's actions on the other gateway, and the investor's open dashboard from
 * the admin's decisions. Screenshots: artifacts/screenshots/cluster-money-*.png. Skipped, with the reason
 * printed, where the broker (Java/Maven) or Redis is missing.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/money.cluster.e2e.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, kafkaUnavailableReason } from '../../scripts/kafka/broker.js';
import { startCluster, type ProcessName } from '../../scripts/cluster/cluster.js';
import { MONEY_ADMIN, MONEY_PLANS_JSON, describeMoneyJourney } from '../support/moneyJourney.js';
import { snapshotWebDist } from '../support/standalone.js';

const REDIS_URL = 'redis://127.0.0.1:6379/13'; // a database of its own (the drills use 12, bench 11)
const GRPC_BASE = 54050; // the drills use 53050, bench 52050

async function redisProblem(): Promise<string | null> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    return null;
  } catch (err) {
    return `no Redis at ${REDIS_URL} (${(err as Error).message})`;
  } finally {
    probe.disconnect();
  }
}
const skipReason = kafkaUnavailableReason() ?? (await redisProblem());
if (skipReason) console.log(`[skip] money journey on the cluster: ${skipReason}`);

const HOUR = 3_600_000;
const generous = (keys: string[]) => JSON.stringify(Object.fromEntries(keys.map((k) => [k, { max: 10_000, windowMs: HOUR }])));

describeMoneyJourney({
  title: 'money journey in Chromium across the cluster: the investor on gateway A, the admin on gateway B',
  shotPrefix: 'cluster-money-',
  skipReason,
  startTimeoutMs: 240_000,
  stopTimeoutMs: 120_000,
  async start() {
    const redis = new Redis(REDIS_URL);
    await redis.flushdb();
    redis.disconnect();
    const dir = mkdtempSync(join(tmpdir(), 'meridian-e2e-money-cluster-'));
    const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
    const cleanUp = () => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(webDist, { recursive: true, force: true });
    };
    try {
      const cluster = await startCluster({
        dir,
        ports: [await freePort(), await freePort()],
        grpcBase: GRPC_BASE,
        redisUrl: REDIS_URL,
        env: {
          PLANS_JSON: MONEY_PLANS_JSON,
          ADMIN_EMAIL: MONEY_ADMIN.email,
          ADMIN_PASSWORD: MONEY_ADMIN.password,
          WEB_DIST: webDist,
          // as the drills set them: every browser here comes from 127.0.0.1
          GATEWAY_RATE_LIMITS_JSON: generous(['login', 'register', 'sendLoginCode', 'loginWithCode']),
          IDENTITY_RATE_LIMITS_JSON: generous(['loginPerClient', 'sendCodePerClient', 'codeLoginPerClient', 'registerPerClient']),
        },
      });
      const [investorUrl, adminUrl] = cluster.urls; // gateway A, gateway B
      const processes: ProcessName[] = ['gateway-a', 'gateway-b', 'identity', 'notification', 'ledger', 'kyc', 'investment', 'withdrawal'];
      return {
        investorUrl,
        adminUrl,
        admin: cluster.admin,
        diagnose: () =>
          processes.map((name) => `--- ${name} (started ${cluster.starts(name)}x)\n${cluster.logTail(name, 15)}`).join('\n'),
        async stop() {
          await cluster.stop();
          cleanUp();
        },
      };
    } catch (err) {
      cleanUp();
      throw err;
    }
  },
});
