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
import { rmSync } from 'node:fs';
import type { ProcessName } from '../../scripts/cluster/cluster.js';
import { clusterSkipReason, startTestCluster } from '../cluster/testCluster.js';
import { MONEY_ADMIN, MONEY_PLANS_JSON, describeMoneyJourney } from '../support/moneyJourney.js';
import { snapshotWebDist } from '../support/standalone.js';

const REDIS_URL = 'redis://127.0.0.1:6379/13'; // a database of its own (the drills use 12, bench 11)
// below the ephemeral port range (32768-60999 on Linux): an outgoing connection never holds these
const GRPC_BASE = 30150; // the drills use 30050, bench 30250

const skipReason = await clusterSkipReason(REDIS_URL);
if (skipReason) console.log(`[skip] money journey on the cluster: ${skipReason}`);

describeMoneyJourney({
  title: 'money journey in Chromium across the cluster: the investor on gateway A, the admin on gateway B',
  shotPrefix: 'cluster-money-',
  skipReason,
  startTimeoutMs: 240_000,
  stopTimeoutMs: 120_000,
  async start() {
    const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
    try {
      const { cluster, stop } = await startTestCluster({
        redisUrl: REDIS_URL,
        grpcBase: GRPC_BASE,
        env: {
          PLANS_JSON: MONEY_PLANS_JSON,
          ADMIN_EMAIL: MONEY_ADMIN.email,
          ADMIN_PASSWORD: MONEY_ADMIN.password,
          WEB_DIST: webDist,
        },
      });
      const [investorUrl, adminUrl] = cluster.urls; // gateway A, gateway B
      const processes: ProcessName[] = [
        'gateway-a',
        'gateway-b',
        'identity',
        'notification',
        'ledger',
        'kyc',
        'investment',
        'withdrawal',
      ];
      return {
        investorUrl,
        adminUrl,
        admin: cluster.admin,
        diagnose: () =>
          processes
            .map((name) => `--- ${name} (started ${cluster.starts(name)}x)\n${cluster.logTail(name, 15)}`)
            .join('\n'),
        async stop() {
          await stop();
          rmSync(webDist, { recursive: true, force: true });
        },
      };
    } catch (err) {
      rmSync(webDist, { recursive: true, force: true });
      throw err;
    }
  },
});
