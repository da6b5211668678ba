/**
 * The money journey (tests/support/moneyJourney.ts: deposit, confirmation, a 3 s investment maturing,
 * KYC, withdrawal, history, screenshots) in headless Chromium against the standalone target (`make start`'s
 * process serving a copy of web/dist, PLANS_JSON with a Starter plan lasting 3 s): one URL for both
 * browser contexts, the investor's and the admin's. Screenshots: artifacts/screenshots/money-*.png.
 * tests/e2e/money.cluster.e2e.spec.ts runs the same steps across the cluster's two gateways.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/money.e2e.spec.ts
 */
import { startStandaloneJourney } from '../support/browserTarget.js';
import { MONEY_ADMIN, MONEY_PLANS_JSON, describeMoneyJourney } from '../support/moneyJourney.js';

describeMoneyJourney({
  title: 'money journey in Chromium against the standalone target',
  shotPrefix: 'money-',
  start: () => startStandaloneJourney('money', MONEY_ADMIN, { PLANS_JSON: MONEY_PLANS_JSON }),
});
