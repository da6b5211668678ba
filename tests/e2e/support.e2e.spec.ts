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
import { startStandaloneJourney } from '../support/browserTarget.js';
import { describeSupportJourney } from '../support/supportJourney.js';

const ADMIN = { email: 'support-e2e-admin@example.com', password: 'Support-E2e-Admin-Passw0rd!' };

describeSupportJourney({
  title: 'support chat in Chromium against the standalone target',
  shotPrefix: 'support-',
  startTimeoutMs: 120_000,
  stopTimeoutMs: 60_000,
  start: () => startStandaloneJourney('support', ADMIN),
});
