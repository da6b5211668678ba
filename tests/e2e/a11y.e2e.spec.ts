/**
 * Accessibility of every screen: axe-core (WCAG 2.0/2.1 A and AA plus best practices,
 * tests/support/a11y.ts) on each screen of the SPA at 1280 px and at 390 px wide, with its dialogs and menus
 * opened, in headless Chromium against the standalone target. No serious or critical violation anywhere;
 * minor and moderate ones are written to artifacts/a11y/<screen>-<width>.json for review, and each screen's
 * screenshot to artifacts/screenshots/a11y-<screen>-<width>.png. One step per test, in order:
 *
 *  0. the check itself: a page with known violations fails it, each listed;
 *  1. public screens, logged out: the home loader, home (FAQ open), plans, about, contact, workflow,
 *     hierarchy, privacy policy, 404, login (and its errors), register (and its errors), forgot, reset
 *     password, a bad verification link, the mobile menu;
 *  2. the investor registers (the unverified dashboard), verifies (/upload-kyc), and is referred a friend;
 *     money is moved through the API so no list is empty; then the investor's screens: dashboard, deposit
 *     (and its error), invest (a plan chosen), investment status, an investment's detail, withdraw,
 *     transaction history, referrals (and the toast of its copy button), KYC upload, profile (Profile and
 *     Security tabs), the mobile menu;
 *  3. the admin (new browser: the login-code screen with a real code) and the admin's screens: dashboard,
 *     the Users tab (its role modal and delete confirmation opened), a user's balance screens, each queue
 *     with an item in it (deposits, investments, withdrawals, KYC) and the detail screens they link to,
 *     the audit trail; then the admin impersonates the investor (the banner on the profile and the
 *     dashboard) and exits;
 *  no console or page error anywhere unless a step expected it.
 *
 *   (cd web && npx vite build) && node_modules/.bin/vitest run --project e2e tests/e2e/a11y.e2e.spec.ts
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkA11y } from '../support/a11y.js';
import { checkScreens, expectNoFailures, openMobileMenu } from '../support/a11yScreens.js';
import { WIDTHS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import {
  KYC_PNG,
  csrfHeaders,
  currentUser,
  loginWithCode,
  newInvestor,
  money,
  registerAndVerify,
  requestWithdrawal,
  send,
} from '../support/journey.js';
import { MONEY_PLANS_JSON, PLAN_MS } from '../support/moneyJourney.js';

const ADMIN_EMAIL = 'a11y-e2e-admin@example.com';
const ADMIN_PASSWORD = 'A11y-E2e-Admin-Passw0rd!';
const WALLET = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
/** Steps that check ~20 screens twice each on a busy machine. */
const STEP_TIMEOUT_MS = 600_000;

const investor = newInvestor('Alma Access', '+4915550199');
const friend = newInvestor('Fritz Friend', '+4915550198');

const e2e = useBrowserTarget({
  name: 'a11y',
  admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  env: { PLANS_JSON: MONEY_PLANS_JSON },
  viewport: WIDTHS[0]!,
});
const { watcher, newContext, assertNoConsoleErrors } = e2e;
let pub: BrowserContext; // logged out
let inv: BrowserContext; // the investor
let adm: BrowserContext; // the admin
let investorId = '';
let investmentId = '';
let pendingTransactionId = '';
let pendingInvestmentId = '';
let withdrawalId = '';

const claim = (kind: 'deposit' | 'investment' | 'withdrawal' | 'kyc', id: string) => e2e.claim(adm, kind, id);

/** The admin releases a claim (a detail page opened for the check claims its item). */
async function release(kind: 'deposit' | 'investment' | 'withdrawal' | 'kyc', id: string): Promise<void> {
  await adm.request.delete(`${e2e.url}/api/admin/claims/${kind}/${encodeURIComponent(id)}`, {
    headers: await csrfHeaders(adm, e2e.url),
  });
}

describe('every screen passes axe-core (no serious or critical violation) at 1280 and 390 px', () => {
  stepsInOrder();

  it('0. the check fails on a page with known serious violations and lists them', async () => {
    pub = await newContext('visitor');
    const page = await pub.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><title>t</title><main><h1>Bad</h1>' +
        '<p style="color:#bbb;background:#fff">faint text</p><img src="data:,"><button></button></main></html>',
    );
    const error = await checkA11y(page, 'self-test-known-violations').then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/\[serious\] color-contrast/);
    expect(error?.message).toMatch(/\[critical\] image-alt: .*\n\s+img/);
    expect(error?.message).toMatch(/\[critical\] button-name/);
    await page.close();
  });

  it(
    '1. the public screens, logged out',
    async () => {
      watcher.expect({
        why: 'a made-up verification link answers 4xx (once per width)',
        text: /status of 4\d\d/,
        url: /\/api\/users\/verifyUser\//,
        times: 2,
      });
      const failures = await checkScreens(pub, [
        {
          name: 'home-loader',
          path: '/',
          // the clock stands still: the 2-second loader stays while axe reads it
          before: (page) => page.clock.install(),
          prepare: async (page) => {
            await page.locator('.home-loader, [role="status"]').first().waitFor();
          },
        },
        {
          name: 'home',
          path: '/',
          ready: '$5,000,000', // the loader is gone and the counters have finished
          prepare: async (page) => {
            await page.getByText('How long do withdrawals take?').click(); // one FAQ answer open
            await page.getByText('typically arrive within 1-2 business days').waitFor();
          },
        },
        { name: 'plans', path: '/plans', ready: 'Platinum' },
        { name: 'about', path: '/about' },
        { name: 'contact', path: '/contact' },
        { name: 'how-it-works', path: '/how-it-works' },
        { name: 'hierarchy', path: '/Hierarchy', ready: 'Master' },
        { name: 'privacy-policy', path: '/privacy-policy' },
        { name: 'not-found', path: '/no-such-page', ready: 'Page not found' },
        { name: 'login', path: '/login', ready: 'Log in to Meridian' },
        {
          name: 'login-errors',
          path: '/login',
          ready: 'Log in to Meridian',
          prepare: async (page) => {
            await page.getByRole('button', { name: 'Log in' }).click();
            await page.getByRole('alert').first().waitFor();
          },
        },
        { name: 'register', path: '/register?ref=FRIEND42', ready: 'Create your account' },
        {
          name: 'register-errors',
          path: '/register',
          ready: 'Create your account',
          prepare: async (page) => {
            await page.getByLabel('Password', { exact: true }).fill('short');
            await page.getByRole('button', { name: 'Create account' }).click();
            await page.getByRole('alert').first().waitFor();
          },
        },
        { name: 'forgot', path: '/forgot' },
        { name: 'reset-password', path: '/resetPassword/sample-token' },
        { name: 'login-with-code', path: '/loginWithCode/ada%40example.com' },
        {
          name: 'verify-invalid',
          path: '/verify/not-a-real-token',
          prepare: async (page) => {
            await page.locator('#main').getByRole('alert').getByText('Invalid or expired').waitFor();
          },
        },
        { name: 'nav-menu', path: '/plans', ready: 'Platinum', prepare: openMobileMenu, widths: [390] },
      ]);
      expectNoFailures(failures);
      assertNoConsoleErrors();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '2. the investor’s screens, every list with data in it',
    async () => {
      inv = await newContext('investor');
      await inv.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.url });
      const page = await inv.newPage();
      const unverified: string[] = [];
      await registerAndVerify(page, e2e.url, investor, async (p) => {
        for (const viewport of WIDTHS) {
          await p.setViewportSize(viewport);
          await checkA11y(p, `dashboard-unverified-${viewport.width}`).catch((err: Error) =>
            unverified.push(err.message),
          );
        }
        await p.setViewportSize(WIDTHS[0]!);
      });
      const me = await currentUser(inv, e2e.url);
      investorId = me._id as string;

      // a friend registers with the investor's code (the referrals list)
      const friendContext = await newContext('friend');
      await send(friendContext, e2e.url, 'post', '/api/users/register', {
        ...friend,
        referralCode: me.referralCode,
      });
      await friendContext.close();

      // the admin (API only here; the admin's screens come in step 3): money so that no list is empty
      adm = await newContext('admin');
      const admPage = await adm.newPage();
      await loginWithCode(admPage, e2e.url, watcher, ADMIN_EMAIL, ADMIN_PASSWORD);
      await admPage.close();
      await money.deposit(inv, e2e.url, '1000');
      const firstId = await money.onlyPendingId(adm, e2e.url, 'deposits');
      await claim('deposit', firstId);
      await money.confirm(adm, e2e.url, firstId);
      await release('deposit', firstId);
      await expect
        .poll(async () => (await currentUser(inv, e2e.url)).balance, { timeout: 10_000 })
        .toBe(1000);

      // Starter (3 s) approved and matured: profit to withdraw; Bronze stays pending for the admin's queue
      await money.invest(inv, e2e.url, '200', 'Starter');
      investmentId = await money.onlyPendingId(adm, e2e.url, 'investments');
      await claim('investment', investmentId);
      await money.approve(adm, e2e.url, investmentId);
      await release('investment', investmentId);
      await expect
        .poll(async () => (await currentUser(inv, e2e.url)).totalMaturityAmount, {
          timeout: PLAN_MS + 20_000,
        })
        .toBe(224);

      await money.invest(inv, e2e.url, '500', 'Bronze');
      pendingInvestmentId = await money.onlyPendingId(adm, e2e.url, 'investments');

      // a second deposit stays pending
      await money.deposit(inv, e2e.url, '250');
      pendingTransactionId = await money.onlyPendingId(adm, e2e.url, 'deposits');

      const failures = await checkScreens(inv, [
        { name: 'upload-kyc', path: '/upload-kyc', ready: 'Important notice' },
        { name: 'dashboard', path: '/dashboard', ready: 'Deposit Balance' },
        { name: 'deposit', path: '/deposit-payment', ready: 'How deposits work' },
        {
          name: 'deposit-error',
          path: '/deposit-payment',
          ready: 'How deposits work',
          prepare: async (p) => {
            await p.getByRole('button', { name: 'Submit deposit' }).click();
            await p.getByText('Please enter the amount.').waitFor();
          },
        },
        {
          name: 'start-invest',
          path: '/start-invest',
          ready: 'Bronze',
          prepare: async (p) => {
            await p.getByRole('radio', { name: /Starter/ }).check();
            await p.getByText('Deposit Balance available').first().waitFor();
          },
        },
        { name: 'invest-status', path: '/invest-status', ready: 'Starter plan' },
        { name: 'investment-detail', path: `/investment/${investmentId}`, ready: '$224.00' },
        { name: 'withdraw', path: '/withdraw-wallet', ready: '$224.00' },
        { name: 'transaction-history', path: '/transaction-History', ready: '$1,000.00' },
        { name: 'referrals', path: '/referrals', ready: friend.email },
        {
          name: 'referrals-toast',
          path: '/referrals',
          ready: friend.email,
          prepare: async (p) => {
            await p.getByRole('button', { name: 'Copy code' }).first().click();
            await p.getByText('Referral code copied to clipboard!').waitFor(); // the toast
          },
        },
        { name: 'profile', path: '/user-profile', ready: 'Update profile' },
        {
          name: 'profile-security',
          path: '/user-profile',
          ready: 'Update profile',
          prepare: async (p) => {
            await p.getByRole('tab', { name: 'Security' }).click();
            await p.getByRole('tabpanel').getByRole('button').first().waitFor();
          },
        },
        {
          name: 'nav-menu-investor',
          path: '/dashboard',
          ready: 'Deposit Balance',
          prepare: openMobileMenu,
          widths: [390],
        },
      ]);
      expectNoFailures([...unverified, ...failures]);
      assertNoConsoleErrors();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '3. the admin’s screens: dashboard, users, balances, every queue with an item, audit, impersonation',
    async () => {
      // the investor's KYC waits in the admin's queue
      const upload = await inv.request.post(`${e2e.url}/api/users/uploadKycDocuments`, {
        headers: await csrfHeaders(inv, e2e.url),
        multipart: {
          front: { name: 'front.png', mimeType: 'image/png', buffer: KYC_PNG },
          back: { name: 'back.png', mimeType: 'image/png', buffer: KYC_PNG },
        },
      });
      expect(upload.status(), await upload.text()).toBe(200);

      // the login-code screen with the code mail really sent (a fresh browser of the admin)
      const codeContext = await newContext('admin-code');
      watcher.expect({
        why: 'the admin logs in from a new browser: 400',
        text: /status of 400/,
        url: /\/api\/users\/login$/,
      });
      const codePage = await codeContext.newPage();
      await codePage.goto('/login');
      await codePage.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL);
      await codePage.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
      await codePage.getByRole('button', { name: 'Log in' }).click();
      await codePage.waitForURL('**/loginWithCode/**');
      const codeFailures: string[] = [];
      await checkA11y(codePage, 'login-with-code-sent-1280').catch((err: Error) =>
        codeFailures.push(err.message),
      );
      await codeContext.close();

      const dashboardReady = async (p: Page) => {
        await expect.poll(() => p.getByTestId('queue-kyc').textContent(), { timeout: 15_000 }).toBe('1');
      };
      const failures = await checkScreens(adm, [
        { name: 'admin-dashboard', path: '/dashboard', ready: 'Administration', prepare: dashboardReady },
        {
          name: 'admin-users',
          path: '/user-profile',
          ready: 'Update profile',
          prepare: async (p) => {
            await p.getByRole('tab', { name: 'Users' }).click();
            await p.getByRole('listitem', { name: investor.name }).waitFor({ timeout: 15_000 });
          },
        },
        {
          name: 'admin-users-role-modal',
          path: '/user-profile',
          ready: 'Update profile',
          prepare: async (p) => {
            await p.getByRole('tab', { name: 'Users' }).click();
            await p.getByRole('button', { name: `Change role of ${investor.name}` }).click();
            await p.getByRole('dialog').waitFor();
          },
        },
        {
          name: 'admin-users-delete-confirm',
          path: '/user-profile',
          ready: 'Update profile',
          prepare: async (p) => {
            await p.getByRole('tab', { name: 'Users' }).click();
            await p.getByRole('button', { name: `Delete ${investor.name}` }).click();
            await p.getByRole('dialog').getByText('Are you sure to delete this user?').waitFor();
          },
        },
        { name: 'admin-edit-balance', path: `/edit-balance/${investorId}`, ready: 'Operation' },
        { name: 'admin-edit-user-balance', path: `/edit-user-balance/${investorId}`, ready: 'Operation' },
        {
          name: 'admin-edit-investment-balance',
          path: `/edit-investment-balance/${investorId}`,
          ready: 'Operation',
        },
        {
          name: 'admin-edit-balance-error',
          path: `/edit-user-balance/${investorId}`,
          ready: 'Operation',
          prepare: async (p) => {
            await p.getByRole('button', { name: 'Submit' }).click();
            await p.getByRole('alert').first().waitFor();
          },
        },
        { name: 'admin-pending-deposits', path: '/admin-pending-deposit', ready: 'Review deposit' },
        {
          name: 'admin-transaction-detail',
          path: `/transaction/${pendingTransactionId}`,
          ready: 'Confirm payment',
        },
        { name: 'admin-pending-investments', path: '/admin-pending-investment', ready: 'Bronze' },
        {
          name: 'admin-investment-detail',
          path: `/investment/${pendingInvestmentId}`,
          ready: 'Approve investment',
        },
        { name: 'admin-pending-kyc', path: '/pending-kyc', ready: 'Download front' },
        { name: 'admin-audit', path: '/admin/audit', ready: 'Export CSV' },
      ]);
      for (const [kind, id] of [
        ['deposit', pendingTransactionId],
        ['investment', pendingInvestmentId],
        ['kyc', investorId],
      ] as const)
        await release(kind, id);

      // KYC approved, then a withdrawal waits for the admin
      await claim('kyc', investorId);
      const kycApproved = await adm.request.patch(`${e2e.url}/api/users/kyc/approve/${investorId}`, {
        headers: await csrfHeaders(adm, e2e.url),
      });
      expect(kycApproved.status(), await kycApproved.text()).toBe(200);
      await release('kyc', investorId);
      const invPage = await inv.newPage();
      await invPage.goto('/withdraw-wallet');
      await invPage.getByLabel('Current balance').getByText('$224.00').waitFor({ timeout: 15_000 });
      await requestWithdrawal(invPage, '100', WALLET);
      await invPage.close();
      withdrawalId = await money.onlyPendingId(adm, e2e.url, 'withdrawals');

      failures.push(
        ...(await checkScreens(adm, [
          { name: 'admin-pending-withdrawals', path: '/admin-pending-wallet', ready: 'Review withdrawal' },
          { name: 'admin-withdrawal-detail', path: `/withdrawal/${withdrawalId}`, ready: WALLET },
          {
            name: 'nav-menu-admin',
            path: '/dashboard',
            ready: 'Administration',
            prepare: openMobileMenu,
            widths: [390],
          },
        ])),
      );
      await release('withdrawal', withdrawalId);

      // impersonation: the banner on the profile, the investor's dashboard as the admin sees it
      const page = await adm.newPage();
      await page.goto('/user-profile');
      await page.getByRole('tab', { name: 'Users' }).click();
      await page.getByRole('button', { name: `Impersonate ${investor.name}` }).click();
      await page.waitForURL('**/dashboard');
      await page.getByRole('heading', { name: `Welcome, ${investor.name}` }).waitFor({ timeout: 15_000 });
      await page.close();
      failures.push(
        ...(await checkScreens(adm, [
          { name: 'impersonating-profile', path: '/user-profile', ready: 'Exit Impersonation' },
          { name: 'impersonating-dashboard', path: '/dashboard', ready: 'Deposit Balance' },
        ])),
      );
      const exitPage = await adm.newPage();
      await exitPage.goto('/user-profile');
      await exitPage.getByRole('button', { name: 'Exit Impersonation' }).click();
      await exitPage.getByRole('tab', { name: 'Users' }).waitFor({ timeout: 15_000 });
      await exitPage.close();

      expectNoFailures([...codeFailures, ...failures]);
      assertNoConsoleErrors();
    },
    STEP_TIMEOUT_MS,
  );

  it('no console errors or page errors across the whole journey', () => {
    assertNoConsoleErrors();
  });
});
