/**
 * The money journey (issue 4 §7) in headless Chromium against the standalone target (`make start`'s
 * process serving web/dist, PLANS_JSON with a Starter plan lasting 3 s), two browser contexts, one step
 * per test, in order:
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
 *  5. KYC approved (upload and approval through the API with each context's own cookies);
 *  6. investor withdraws $100 on /withdraw-wallet (admin's /admin-pending-wallet open beforehand shows
 *     it live) → admin approves on /withdrawal/{id} ('Withdrawal approved!'), the item leaves;
 *  7. the investor's /transaction-History lists the deposit, the investment and the withdrawal;
 *  8. screenshots of the money screens at 1280 and 360 px; none scrolls sideways;
 *  no console or page error anywhere unless a step expected it.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/money.e2e.spec.ts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleWatcher, launchChromium } from '../support/browser.js';
import { ROOT, startTarget, stopTarget, type RunningTarget } from '../support/standalone.js';
import {
  PNG_1X1,
  Screenshots,
  csrfHeaders,
  currentUser,
  loginWithCode,
  registerAndVerify,
  type Investor,
} from '../support/journey.js';

const WEB_DIST = join(ROOT, 'web/dist');
const SHOTS = join(ROOT, 'artifacts/screenshots');
const ADMIN_EMAIL = 'money-e2e-admin@example.com';
const ADMIN_PASSWORD = 'Money-E2e-Admin-Passw0rd!';
const PLAN_MS = 3_000;
const PLANS_JSON = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: PLAN_MS },
  { name: 'Bronze', minAmount: 500, maxAmount: 1500, ratePercent: 15, durationMs: 60 * 60_000 },
]);
const WALLET = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const investor: Investor = {
  name: 'Mona Money',
  email: `mona.${Date.now()}@example.com`,
  phone: '+4915550177',
  country: 'Germany',
  password: 'Mona-Passw0rd!',
};

const dataDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-money-'));
const watcher = new ConsoleWatcher();
let target: RunningTarget | undefined;
let browser: Browser | undefined;
let url = '';
let shots: Screenshots;
let inv: BrowserContext; // the investor
let adm: BrowserContext; // the admin
let invPage: Page;
let admPage: Page;
let investorId = '';
let transactionId = '';
let investmentId = '';
let withdrawalId = '';

async function newContext(label: string): Promise<BrowserContext> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 800 }, baseURL: url });
  return watcher.watch(context, label);
}

function assertNoConsoleErrors(): void {
  expect(watcher.unexpected(), 'console errors or page errors nobody expected').toEqual([]);
}

/** The value of one dashboard balance tile, exactly `value` (e.g. '$300.00'). */
function tile(page: Page, label: string, value: string): Locator {
  return page
    .getByRole('region', { name: 'Balances' })
    .locator('.balance-card', { hasText: label })
    .locator('.balance-card__value', { hasText: new RegExp(`^${value.replace(/[$.]/g, '\\$&')}$`) });
}

/** An admin page opened on a queue screen, ready (its list fetched) before the investor acts. */
async function openQueue(path: string, ready: string): Promise<Page> {
  const page = await adm.newPage();
  await page.goto(path);
  await page.getByText(ready).waitFor();
  return page;
}

beforeAll(async () => {
  if (!existsSync(join(WEB_DIST, 'index.html')))
    throw new Error('web/dist is missing: run `cd web && npx vite build` first');
  mkdirSync(SHOTS, { recursive: true });
  target = await startTarget({
    dataDir,
    adminEmail: ADMIN_EMAIL,
    adminPassword: ADMIN_PASSWORD,
    env: { WEB_DIST, PLANS_JSON },
  });
  url = target.url;
  shots = new Screenshots(url, SHOTS);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (target) await stopTarget(target);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('money journey in Chromium against the standalone target', () => {
  // One journey in steps: after a failed step the later ones are skipped, not failed again.
  let brokenAt = '';
  afterEach(({ task }) => {
    if (task.result?.state === 'fail' && !brokenAt) brokenAt = task.name;
  });
  beforeEach(({ skip }) => {
    if (brokenAt) skip(`an earlier step failed: ${brokenAt}`);
  });

  it('1. the investor registers and verifies; the admin opens the pending deposits', async () => {
    inv = await newContext('investor');
    invPage = await inv.newPage();
    await registerAndVerify(invPage, url, investor);
    investorId = (await currentUser(inv, url))._id as string;

    adm = await newContext('admin');
    admPage = await adm.newPage();
    await loginWithCode(admPage, url, watcher, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admPage.getByRole('link', { name: 'Pending Deposits' }).click();
    await admPage.waitForURL('**/admin-pending-deposit');
    await admPage.getByText('No pending deposits found.').waitFor();
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

    await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
    expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(2_500);
    await tile(invPage, 'Deposit Balance', '$0.00').waitFor();

    await shots.take(adm, [{ name: 'pending-deposits', path: '/admin-pending-deposit', waitForText: 'Review deposit' }], 'money-admin-');
    assertNoConsoleErrors();
  });

  it('3. the admin confirms on /transaction/{id}; the investor\'s dashboard shows the balance without a reload', async () => {
    const card = admPage.getByRole('listitem', { name: `Deposit of $300.00 by ${investor.name}` });
    await card.getByRole('link', { name: 'Review deposit' }).click();
    await admPage.waitForURL('**/transaction/*');
    transactionId = decodeURIComponent(new URL(admPage.url()).pathname.split('/').pop()!);
    await admPage.getByRole('heading', { name: 'Payment detail' }).waitFor();
    await admPage.getByText('$300.00').first().waitFor();
    await shots.take(adm, [{ name: 'transaction-detail', path: `/transaction/${transactionId}`, waitForText: 'Confirm payment' }], 'money-admin-');

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

    await shots.take(adm, [{ name: 'pending-investments', path: '/admin-pending-investment', waitForText: 'Starter' }], 'money-admin-');
    await shots.take(adm, [{ name: 'investment-detail', path: `/investment/${investmentId}`, waitForText: 'Approve investment' }], 'money-admin-');

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

  it('5. the investor\'s KYC is approved (upload and decision through the API)', async () => {
    const upload = await inv.request.post(`${url}/api/users/uploadKycDocuments`, {
      headers: await csrfHeaders(inv, url),
      multipart: {
        front: { name: 'front.png', mimeType: 'image/png', buffer: PNG_1X1 },
        back: { name: 'back.png', mimeType: 'image/png', buffer: PNG_1X1 },
      },
    });
    expect(upload.status(), await upload.text()).toBe(200);
    const approve = await adm.request.patch(`${url}/api/users/kyc/approve/${investorId}`, {
      headers: await csrfHeaders(adm, url),
    });
    expect(approve.status(), await approve.text()).toBe(200);
    await expect.poll(async () => (await currentUser(inv, url)).kycStatus, { timeout: 10_000 }).toBe('Approved');
  });

  it('6. the investor withdraws $100; the admin approves it on /withdrawal/{id}', async () => {
    const queue = await openQueue('/admin-pending-wallet', 'No pending withdrawals found.');

    await invPage.getByRole('link', { name: 'Withdraw', exact: true }).click();
    await invPage.waitForURL('**/withdraw-wallet');
    await invPage.getByLabel('Current balance').getByText('$224.00').waitFor();
    await shots.take(inv, [{ name: 'withdraw', path: '/withdraw-wallet', waitForText: '$224.00' }], 'money-investor-');
    await invPage.getByLabel('Amount (USD)').fill('100');
    await invPage.getByLabel('Wallet address').fill(WALLET);
    await invPage.getByRole('button', { name: 'Request withdrawal' }).click();
    await invPage.getByRole('status').getByText('Withdrawal request submitted successfully').waitFor();
    await invPage.getByLabel('Current balance').getByText('$124.00').waitFor({ timeout: 10_000 }); // held, live

    const card = queue.getByRole('listitem', { name: `Withdrawal of $100.00 by ${investor.name}` });
    await card.waitFor({ timeout: 10_000 }); // queue/itemAdded
    await card.getByText(WALLET).waitFor();
    await shots.take(adm, [{ name: 'pending-withdrawals', path: '/admin-pending-wallet', waitForText: 'Review withdrawal' }], 'money-admin-');

    await admPage.goto('/admin-pending-wallet');
    await admPage.getByRole('listitem', { name: `Withdrawal of $100.00 by ${investor.name}` }).getByRole('link', { name: 'Review withdrawal' }).click();
    await admPage.waitForURL('**/withdrawal/*');
    withdrawalId = decodeURIComponent(new URL(admPage.url()).pathname.split('/').pop()!);
    await admPage.getByText(WALLET).waitFor();
    await shots.take(adm, [{ name: 'withdrawal-detail', path: `/withdrawal/${withdrawalId}`, waitForText: 'Wallet address' }], 'money-admin-');
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

  it('7. the investor\'s /transaction-History shows the deposit, the investment and the withdrawal', async () => {
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
    assertNoConsoleErrors();
  });

  it('8. the money screens fit 1280 px and 360 px without sideways scrolling', async () => {
    await shots.take(
      inv,
      [
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
      ],
      'money-investor-',
    );
    await shots.take(
      adm,
      [
        { name: 'edit-user-balance', path: `/edit-user-balance/${investorId}`, waitForText: 'Operation' },
        { name: 'edit-investment-balance', path: `/edit-investment-balance/${investorId}`, waitForText: 'Operation' },
        { name: 'pending-deposits-empty', path: '/admin-pending-deposit', waitForText: 'No pending deposits found.' },
      ],
      'money-admin-',
    );
    expect(shots.overflowing, 'screens wider than their viewport').toEqual([]);
    assertNoConsoleErrors();
  });

  it('no console errors or page errors across the whole journey', () => {
    assertNoConsoleErrors();
  });
});
