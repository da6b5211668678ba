/**
 * The money journey (tests/support/moneyJourney.ts, the steps of money.e2e.spec.ts but the layout check of the
 * SPA's screens, which the standalone's journey makes), then the support
 * chat journey (tests/support/supportJourney.ts, the same steps as support.e2e.spec.ts) in headless
 * Chromium on one cluster of the production topology (scripts/cluster/cluster.ts, as `make cluster` runs it:
 * a Kafka broker from the official jars, every service its own OS process, two gateways sharing Redis). The
 * investor's browser context lives on gateway A, the admin's on gateway B: the admin's open queue pages
 * update live from the investor's actions on the other gateway, and the investor's open dashboard from
 * the admin's decisions; the support messages cross the same way, both directions, and support's typing
 * indicator too. Both journeys run on one cluster, started once for the file (a cluster start is most of
 * the file's time). Screenshots: artifacts/screenshots/cluster-money-*.png. Skipped, with the reason
 * printed, where the broker (Java/Maven) or redis-server is missing.
 *
 *   (cd web && npx vite build) && npx vitest run --project cluster tests/e2e/money.cluster.e2e.spec.ts
 */
import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { SERVICES } from '@meridian/platform/services';
import type { ProcessName } from '../../scripts/cluster/cluster.js';
import { clusterSkipReason, startTestCluster } from '../cluster/testCluster.js';
import type { JourneyTarget } from '../support/browserTarget.js';
import { MONEY_ADMIN, MONEY_PLANS_JSON, describeMoneyJourney } from '../support/moneyJourney.js';
import { snapshotWebDist } from '../support/standalone.js';
import { describeSupportJourney } from '../support/supportJourney.js';

// below the ephemeral port range (32768-60999 on Linux): an outgoing connection never holds these
const GRPC_BASE = 30150; // the drills use 30050, bench 30250, the nemesis 30350

const skipReason = clusterSkipReason();
if (skipReason) console.log(`[skip] money and support journeys on the cluster: ${skipReason}`);

/** The cluster both journeys run on: the investor's URL is gateway A, the admin's gateway B. */
async function startJourneyCluster(): Promise<JourneyTarget> {
  const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
  try {
    const { cluster, stop } = await startTestCluster({
      grpcBase: GRPC_BASE,
      env: {
        PLANS_JSON: MONEY_PLANS_JSON,
        ADMIN_EMAIL: MONEY_ADMIN.email,
        ADMIN_PASSWORD: MONEY_ADMIN.password,
        WEB_DIST: webDist,
      },
    });
    const [investorUrl, adminUrl] = cluster.urls; // gateway A, gateway B
    const processes: ProcessName[] = ['gateway-a', 'gateway-b', ...SERVICES];
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
}

// Started by the first journey that asks, stopped once after both (also when a filter runs only one).
let running: Promise<JourneyTarget> | undefined;
const shared = async (): Promise<JourneyTarget> => ({
  ...(await (running ??= startJourneyCluster())),
  stop: async () => undefined,
});
afterAll(async () => {
  await (await running?.catch(() => undefined))?.stop();
}, 120_000);

describeMoneyJourney({
  title: 'money journey in Chromium across the cluster: the investor on gateway A, the admin on gateway B',
  shotPrefix: 'cluster-money-',
  // the screens' layout at two widths is the SPA's, the same files as the standalone's journey checks
  layout: false,
  skipReason,
  startTimeoutMs: 240_000,
  start: shared,
});

describeSupportJourney({
  title: 'support chat in Chromium across the cluster: the investor on gateway A, the admin on gateway B',
  skipReason,
  startTimeoutMs: 240_000,
  start: shared,
});
