/**
 * The support chat journey (tests/support/supportJourney.ts: a visitor asks on the home page, signs up and the
 * conversation follows them; an admin claims it, replies live while the investor sees support typing, sends a
 * deposit address; the investor declares a deposit to it; the admin confirms it, seeing the address) in two
 * browsers against the standalone target, one URL for both. Screenshots of the launcher, the panel and the
 * inbox at 1280 and 390 px (artifacts/screenshots/support-*.png), each checked with axe.
 * tests/e2e/money.cluster.e2e.spec.ts runs the same steps across the cluster's two gateways.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/support.e2e.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSupportJourney } from '../support/supportJourney.js';
import { snapshotWebDist, startTarget, stopTarget } from '../support/standalone.js';

const ADMIN = { email: 'support-e2e-admin@example.com', password: 'Support-E2e-Admin-Passw0rd!' };

describeSupportJourney({
  title: 'support chat in Chromium against the standalone target',
  shotPrefix: 'support-',
  startTimeoutMs: 120_000,
  stopTimeoutMs: 60_000,
  async start() {
    const dataDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-support-'));
    const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
    const cleanUp = () => {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(webDist, { recursive: true, force: true });
    };
    try {
      const target = await startTarget({
        dataDir,
        adminEmail: ADMIN.email,
        adminPassword: ADMIN.password,
        env: { WEB_DIST: webDist },
      });
      return {
        investorUrl: target.url,
        adminUrl: target.url,
        admin: ADMIN,
        diagnose: () => target.output().slice(-4000),
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
