/**
 * The money journey (tests/support/moneyJourney.ts: deposit, confirmation, a 3 s investment maturing,
 * KYC, withdrawal, history, screenshots) in headless Chromium against the standalone target (`make start`'s
 * process serving a copy of web/dist, PLANS_JSON with a Starter plan lasting 3 s): one URL for both
 * browser contexts, the investor's and the admin's. Screenshots: artifacts/screenshots/money-*.png.
 * tests/e2e/money.cluster.e2e.spec.ts runs the same steps across the cluster's two gateways.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/money.e2e.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MONEY_ADMIN, MONEY_PLANS_JSON, describeMoneyJourney } from '../support/moneyJourney.js';
import { snapshotWebDist, startTarget, stopTarget } from '../support/standalone.js';

describeMoneyJourney({
  title: 'money journey in Chromium against the standalone target',
  shotPrefix: 'money-',
  async start() {
    const dataDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-money-'));
    const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
    const cleanUp = () => {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(webDist, { recursive: true, force: true });
    };
    try {
      const target = await startTarget({
        dataDir,
        adminEmail: MONEY_ADMIN.email,
        adminPassword: MONEY_ADMIN.password,
        env: { WEB_DIST: webDist, PLANS_JSON: MONEY_PLANS_JSON },
      });
      return {
        investorUrl: target.url,
        adminUrl: target.url,
        admin: MONEY_ADMIN,
        diagnose: () => target.output().split('\n').slice(-40).join('\n'),
        async stop() {
          await stopTarget(target);
          cleanUp();
        },
      };
    } catch (err) {
      cleanUp();
      throw err;
    }
  },
});
