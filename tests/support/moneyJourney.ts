/**
 * The money journey in headless Chromium, written once and run against any target that
 * serves web/dist with PLANS_JSON's Starter plan lasting 3 s: the standalone target
 * (tests/e2e/money.e2e.spec.ts, one URL for both browsers) and the production topology
 * (tests/e2e/money.cluster.e2e.spec.ts: the investor's browser on gateway A, the admin's on gateway B,
 * so every live update below crosses gateway instances). Two browser contexts, one step per test, in order:
 *
 *  1. investor registers and verifies; the admin (new browser: the emailed code) opens
 *     /admin-pending-deposit: 'No pending deposits found.';
 *  2. investor deposits $300 on /deposit-payment → /dashboard after 3 s; the admin's open queue shows
 *     it without a reload;
 *  3. admin opens /transaction/{id} and confirms → the investor's open dashboard shows Deposit Balance
 *     $300.00 without a reload;
 *  4. investor invests $200 in Starter on /start-invest (admin's /admin-pending-investment open
 *     beforehand shows it live) → the admin approves, the item leaves → the plan matures: the dashboard's
 *     Total Profit shows $224.00 (principal + 12 %) without a reload;
 *  5. KYC approved (upload and approval through the API with each context's own cookies, each on its
 *     own URL);
 *  6. investor withdraws $100 on /withdraw-wallet (admin's /admin-pending-wallet open beforehand shows
 *     it live) → admin approves on /withdrawal/{id} ('Withdrawal approved!'), the item leaves;
 *  7. the investor's /transaction-History lists the deposit, the investment and the withdrawal;
 *  8. screenshots of the money screens at 1280 and 360 px (artifacts/screenshots/<shotPrefix>investor-…
 *     and <shotPrefix>admin-…); none scrolls sideways (the SPA's layout, the same files on every target:
 *     checked where `layout` is left on, the standalone's journey);
 *  no console or page error anywhere unless a step expected it.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkA11y } from './a11y.js';
import { SHOTS, useJourneyBrowsers, type JourneyOptions, type JourneyTarget } from './browserTarget.js';
import {
  KYC_PNG,
  Screenshots,
  csrfHeaders,
  currentUser,
  loginWithCode,
  newInvestor,
  registerAndVerify,
  requestWithdrawal,
  type Screen,
} from './journey.js';

export const MONEY_ADMIN = { email: 'money-e2e-admin@example.com', password: 'Money-E2e-Admin-Passw0rd!' };
export const PLAN_MS = 3_000;
/** The plans every money-journey target runs with (PLANS_JSON): Starter lasts 3 s. */
export const MONEY_PLANS_JSON = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: PLAN_MS },
  { name: 'Bronze', minAmount: 500, maxAmount: 1500, ratePercent: 15, durationMs: 60 * 60_000 },
]);
const WALLET = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

export interface MoneyJourneyOptions extends JourneyOptions {
  /** Screenshot file names start with `${shotPrefix}investor-` / `${shotPrefix}admin-`. */
  shotPrefix: string;
  /** Step 8, the money screens' layout at two widths (default on). */
  layout?: boolean;
}

/** Declares the journey's describe block (its hooks start and stop the target). */
export function describeMoneyJourney(options: MoneyJourneyOptions): void {
  const { shotPrefix } = options;
  const investor = newInvestor('Mona Money', '+4915550177');
  let invUrl = '';
  let admUrl = '';
  let admin: JourneyTarget['admin'];
  let invShots: Screenshots;
  let admShots: Screenshots;
  let inv: BrowserContext; // the investor
  let adm: BrowserContext; // the admin
  let invPage: Page;
  let admPage: Page;
  let investorId = '';
  let transactionId = '';
  let investmentId = '';
  let withdrawalId = '';

  /** The value of one dashboard balance tile, exactly `value` (e.g. '$300.00'). */
  function tile(page: Page, label: string, value: string): Locator {
    return page
      .getByRole('region', { name: 'Balances' })
      .locator('.balance-card', { hasText: label })
      .locator('.balance-card__value', { hasText: new RegExp(`^${value.replace(/[$.]/g, '\\$&')}$`) });
  }

  /** Screenshots of the investor's screens (`${shotPrefix}investor-…`). */
  const invShot = (...screens: Screen[]) => invShots.take(inv, screens, `${shotPrefix}investor-`);
  /** Screenshots of the admin's screens (`${shotPrefix}admin-…`). */
  const admShot = (...screens: Screen[]) => admShots.take(adm, screens, `${shotPrefix}admin-`);

  /** An admin page opened on a queue screen, ready (its list fetched) before the investor acts. */
  async function openQueue(path: string, ready: string): Promise<Page> {
    const page = await adm.newPage();
    await page.goto(path);
    await page.getByText(ready).waitFor();
    return page;
  }

  describe.skipIf(!!options.skipReason)(options.title, () => {
    const { watcher, newContext, assertNoConsoleErrors } = useJourneyBrowsers(options, (target) => {
      ({ investorUrl: invUrl, adminUrl: admUrl, admin } = target);
      invShots = new Screenshots(invUrl, SHOTS);
      admShots = new Screenshots(admUrl, SHOTS);
    });

    it('1. the investor registers and verifies; the admin opens the pending deposits', async () => {
      inv = await newContext('investor', invUrl);
      invPage = await inv.newPage();
      await registerAndVerify(invPage, invUrl, investor);
      investorId = (await currentUser(inv, invUrl))._id as string;

      adm = await newContext('admin', admUrl);
      admPage = await adm.newPage();
      await loginWithCode(admPage, admUrl, watcher, admin.email, admin.password);
      await admPage.getByRole('link', { name: 'Pending Deposits' }).click();
      await admPage.waitForURL('**/admin-pending-deposit');
      await admPage.getByText('No pending deposits found.').waitFor();
      // each browser on its own URL (on the cluster: its own gateway, so every live update below crosses instances)
      expect(new URL(invPage.url()).origin).toBe(new URL(invUrl).origin);
      expect(new URL(admPage.url()).origin).toBe(new URL(admUrl).origin);
      assertNoConsoleErrors();
    });

    it('2. the investor deposits $300 → /dashboard after 3 s; the open admin queue shows it without a reload', async () => {
      await invPage.goto('/dashboard');
      await invPage.getByRole('link', { name: 'Deposit', exact: true }).click();
      await invPage.waitForURL('**/deposit-payment');
      await invPage.getByRole('button', { name: 'Submit deposit' }).click();
      await invPage.getByText('Please enter the amount.').waitFor();
      await invPage.getByLabel('Amount (USD)').fill('300');
      await invPage.getByRole('button', { name: 'Submit deposit' }).click();
      await invPage.getByRole('status').waitFor();
      const submittedAt = Date.now();

      const card = admPage.getByRole('listitem', { name: `Deposit of $300.00 by ${investor.name}` });
      await card.waitFor({ timeout: 10_000 }); // queue/itemAdded
      await card.getByText(investor.email).waitFor();
      await card.getByText('Pending').waitFor();
      await checkA11y(admPage, `${shotPrefix}admin-pending-deposits`);

      await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
      expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(2_500);
      await tile(invPage, 'Deposit Balance', '$0.00').waitFor();

      await admShot({
        name: 'pending-deposits',
        path: '/admin-pending-deposit',
        waitForText: 'Review deposit',
      });
      assertNoConsoleErrors();
    });

    it("3. the admin confirms on /transaction/{id}; the investor's dashboard shows the balance without a reload", async () => {
      const card = admPage.getByRole('listitem', { name: `Deposit of $300.00 by ${investor.name}` });
      await card.getByRole('link', { name: 'Review deposit' }).click();
      await admPage.waitForURL('**/transaction/*');
      transactionId = decodeURIComponent(new URL(admPage.url()).pathname.split('/').pop()!);
      await admPage.getByRole('heading', { name: 'Payment detail' }).waitFor();
      await admPage.getByText('$300.00').first().waitFor();
      await admShot({
        name: 'transaction-detail',
        path: `/transaction/${transactionId}`,
        waitForText: 'Confirm payment',
      });

      await admPage.getByLabel('Notes').fill('Received on the BTC wallet');
      await admPage.getByRole('button', { name: 'Confirm payment' }).click();
      await admPage.locator('.detail-head').getByText('Confirmed').waitFor();
      expect(await admPage.getByRole('button', { name: 'Confirm payment' }).count()).toBe(0);

      await tile(invPage, 'Deposit Balance', '$300.00').waitFor({ timeout: 10_000 }); // balances/changed
      await admPage.goto('/admin-pending-deposit');
      await admPage.getByText('No pending deposits found.').waitFor();
      assertNoConsoleErrors();
    });

    it('4. the investor invests in a 3 s plan, the admin approves, it matures into Total Profit without a reload', async () => {
      const queue = await openQueue('/admin-pending-investment', 'No pending investments found.');

      await invPage.getByRole('link', { name: 'Invest', exact: true }).click();
      await invPage.waitForURL('**/start-invest');
      await invPage.getByRole('radio', { name: /Starter/ }).waitFor();
      await invPage.getByLabel('Amount (USD)').fill('200');
      await invPage.getByRole('button', { name: 'Invest', exact: true }).click();
      await invPage.getByText('Please select an investment plan.').waitFor();
      await invPage.getByRole('radio', { name: /Starter/ }).check();
      await invPage.getByText('Deposit Balance available: $300.00').waitFor();
      await invPage.getByRole('button', { name: 'Invest in Starter' }).click();
      await invPage.getByRole('status').waitFor();
      const investedAt = Date.now();

      const card = queue.getByRole('listitem', { name: `Starter investment of $200.00 by ${investor.name}` });
      await card.waitFor({ timeout: 10_000 }); // queue/itemAdded
      const details = await card.getByRole('link', { name: 'Details' }).getAttribute('href');
      investmentId = decodeURIComponent(details!.split('/').pop()!);
      expect(investmentId).toBeTruthy();

      await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
      expect(Date.now() - investedAt).toBeGreaterThanOrEqual(1_500);
      await tile(invPage, 'Deposit Balance', '$100.00').waitFor({ timeout: 10_000 }); // the $200 are held

      await admShot({
        name: 'pending-investments',
        path: '/admin-pending-investment',
        waitForText: 'Starter',
      });
      await admShot({
        name: 'investment-detail',
        path: `/investment/${investmentId}`,
        waitForText: 'Approve investment',
      });

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.waitFor({ state: 'detached' });
      await queue.getByText('No pending investments found.').waitFor();
      await queue.close();

      await tile(invPage, 'Total Investment', '$200.00').waitFor({ timeout: 10_000 });
      // the plan lasts 3 s: the scheduler (or the dashboard's deposit-maturity call) settles it
      await tile(invPage, 'Total Profit', '$224.00').waitFor({ timeout: PLAN_MS + 15_000 });
      await tile(invPage, 'Total Investment', '$0.00').waitFor({ timeout: 10_000 });
      await tile(invPage, 'Deposit Balance', '$100.00').waitFor();
      assertNoConsoleErrors();
    });

    it("5. the investor's KYC is approved (upload and decision through the API)", async () => {
      const upload = await inv.request.post(`${invUrl}/api/users/uploadKycDocuments`, {
        headers: await csrfHeaders(inv, invUrl),
        multipart: {
          front: { name: 'front.png', mimeType: 'image/png', buffer: KYC_PNG },
          back: { name: 'back.png', mimeType: 'image/png', buffer: KYC_PNG },
        },
      });
      expect(upload.status(), await upload.text()).toBe(200);
      // a decision needs the admin's review claim on the submission (gateway/src/live/claims.ts)
      const claim = await adm.request.post(`${admUrl}/api/admin/claims`, {
        headers: await csrfHeaders(adm, admUrl),
        data: { kind: 'kyc', id: investorId },
      });
      expect(claim.status(), await claim.text()).toBe(200);
      const approve = await adm.request.patch(`${admUrl}/api/users/kyc/approve/${investorId}`, {
        headers: await csrfHeaders(adm, admUrl),
      });
      expect(approve.status(), await approve.text()).toBe(200);
      await expect
        .poll(async () => (await currentUser(inv, invUrl)).kycStatus, { timeout: 10_000 })
        .toBe('Approved');
    });

    it('6. the investor withdraws $100; the admin approves it on /withdrawal/{id}', async () => {
      const queue = await openQueue('/admin-pending-wallet', 'No pending withdrawals found.');

      await invPage.getByRole('link', { name: 'Withdraw', exact: true }).click();
      await invPage.waitForURL('**/withdraw-wallet');
      await invPage.getByLabel('Current balance').getByText('$224.00').waitFor();
      await invShot({ name: 'withdraw', path: '/withdraw-wallet', waitForText: '$224.00' });
      await requestWithdrawal(invPage, '100', WALLET);
      await invPage.getByLabel('Current balance').getByText('$124.00').waitFor({ timeout: 10_000 }); // held, live

      const card = queue.getByRole('listitem', { name: `Withdrawal of $100.00 by ${investor.name}` });
      await card.waitFor({ timeout: 10_000 }); // queue/itemAdded
      await card.getByText(WALLET).waitFor();
      await admShot({
        name: 'pending-withdrawals',
        path: '/admin-pending-wallet',
        waitForText: 'Review withdrawal',
      });

      await admPage.goto('/admin-pending-wallet');
      await admPage
        .getByRole('listitem', { name: `Withdrawal of $100.00 by ${investor.name}` })
        .getByRole('link', { name: 'Review withdrawal' })
        .click();
      await admPage.waitForURL('**/withdrawal/*');
      withdrawalId = decodeURIComponent(new URL(admPage.url()).pathname.split('/').pop()!);
      await admPage.getByText(WALLET).waitFor();
      await admShot({
        name: 'withdrawal-detail',
        path: `/withdrawal/${withdrawalId}`,
        waitForText: 'Wallet address',
      });
      await admPage.getByRole('button', { name: 'Approve' }).click();
      await admPage.getByText('Withdrawal approved!').waitFor();
      await admPage.locator('.detail-head').getByText('Approved').waitFor();
      expect(await admPage.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await card.waitFor({ state: 'detached' }); // queue/itemDecided in the other admin tab
      await queue.getByText('No pending withdrawals found.').waitFor();
      await queue.close();

      await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
      await tile(invPage, 'Total Profit', '$124.00').waitFor({ timeout: 10_000 });
      assertNoConsoleErrors();
    });

    it("7. the investor's /transaction-History shows the deposit, the investment and the withdrawal", async () => {
      await invPage.getByRole('link', { name: 'Transaction History' }).click();
      await invPage.waitForURL('**/transaction-History');
      const list = invPage.getByRole('list', { name: 'Transaction history' });
      await list.waitFor();
      const deposit = list.locator('li[data-type="Transaction"]');
      const investment = list.locator('li[data-type="Investment"]');
      const withdrawal = list.locator('li[data-type="Withdrawal"]');
      await expect.poll(() => list.getByRole('listitem').count()).toBe(3);
      await deposit.getByText('$300.00').waitFor();
      await deposit.getByText('Confirmed').waitFor();
      await investment.getByText('$200.00').waitFor();
      await investment.getByText('Starter plan').waitFor();
      await withdrawal.getByText('$100.00').waitFor();
      await withdrawal.getByText(`To ${WALLET}`).waitFor();
      await withdrawal.getByText('Approved').waitFor();
      await checkA11y(invPage, `${shotPrefix}investor-transaction-history`);
      assertNoConsoleErrors();
    });

    // the cluster's journey leaves the layout to the standalone's: the same SPA files on both
    if (options.layout ?? true)
      it('8. the money screens fit 1280 px and 360 px without sideways scrolling', async () => {
        await invShot(
          { name: 'dashboard', path: '/dashboard', waitForText: 'Deposit Balance' },
          { name: 'deposit', path: '/deposit-payment', waitForText: 'How deposits work' },
          {
            name: 'start-invest',
            path: '/start-invest',
            waitForText: 'Bronze',
            prepare: async (page) => {
              await page.getByRole('radio', { name: /Starter/ }).check();
            },
          },
          { name: 'invest-status', path: '/invest-status', waitForText: 'Starter plan' },
          { name: 'transaction-history', path: '/transaction-History', waitForText: WALLET },
          { name: 'referrals', path: '/referrals', waitForText: 'Refer a friend' },
        );
        await admShot(
          { name: 'edit-user-balance', path: `/edit-user-balance/${investorId}`, waitForText: 'Operation' },
          {
            name: 'edit-investment-balance',
            path: `/edit-investment-balance/${investorId}`,
            waitForText: 'Operation',
          },
          {
            name: 'pending-deposits-empty',
            path: '/admin-pending-deposit',
            waitForText: 'No pending deposits found.',
          },
        );
        expect(
          [...invShots.overflowing, ...admShots.overflowing],
          'screens wider than their viewport',
        ).toEqual([]);
        assertNoConsoleErrors();
      });

    it('no console errors or page errors across the whole journey', () => {
      assertNoConsoleErrors();
    });
  });
}
