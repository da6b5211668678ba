/**
 * Screenshots of every SPA screen at desktop (1280 px) and phone (360 px) width.
 *
 *   npx tsx web/scripts/screenshots.ts [--base http://localhost:4173] [--out web/artifacts/screenshots] [--mock]
 *
 * --mock answers /api with canned data (an admin user), for layout checks against `vite preview`
 * when no gateway runs. The e2e run imports `captureScreens` and passes its own logged-in context.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from './chromium.js';

export interface Screen {
  name: string;
  path: string;
  /** Wait for this text before the shot (the home loader runs 2 s). */
  waitForText?: string;
  /** Optional interaction before the shot. */
  prepare?: (page: Page) => Promise<void>;
  /** false: only the viewport (a modal over a fixed backdrop); default the whole page. */
  fullPage?: boolean;
}

export const PUBLIC_SCREENS: Screen[] = [
  { name: 'home', path: '/', waitForText: '$5,000,000' }, // the counters have finished
  {
    name: 'nav-menu',
    path: '/plans',
    prepare: async (page) => {
      const toggle = page.getByRole('button', { name: 'Open menu' });
      if (await toggle.isVisible()) {
        await toggle.click();
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Hierarchy' })
          .waitFor();
      }
    },
  },
  { name: 'home-loader', path: '/' },
  { name: 'plans', path: '/plans', waitForText: 'Platinum' },
  { name: 'about', path: '/about' },
  { name: 'contact', path: '/contact' },
  { name: 'how-it-works', path: '/how-it-works' },
  { name: 'hierarchy', path: '/Hierarchy', waitForText: 'Master' },
  { name: 'privacy-policy', path: '/privacy-policy' },
  { name: 'not-found', path: '/no-such-page', waitForText: 'Page not found' },
  { name: 'forgot', path: '/forgot' },
  { name: 'reset-password', path: '/resetPassword/sample-token' },
  { name: 'login-with-code', path: '/loginWithCode/ada%40example.com' },
];

export const LOGGED_OUT_SCREENS: Screen[] = [
  { name: 'login', path: '/login', waitForText: 'Log in to Meridian' },
  {
    name: 'login-errors',
    path: '/login',
    prepare: async (page) => {
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').waitFor();
    },
  },
  { name: 'register', path: '/register?ref=FRIEND42', waitForText: 'Create your account' },
];

export const ACCOUNT_SCREENS: Screen[] = [
  { name: 'dashboard', path: '/dashboard', waitForText: 'Deposit Balance' },
  { name: 'profile', path: '/user-profile', waitForText: 'Update profile' },
  {
    name: 'profile-security',
    path: '/user-profile',
    waitForText: 'Update profile', // the profile (and, for admins, the Users tab) has rendered
    prepare: async (page) => {
      await page.getByRole('tab', { name: 'Security' }).click();
    },
  },
  {
    name: 'profile-users',
    path: '/user-profile',
    waitForText: 'Update profile', // the profile (and, for admins, the Users tab) has rendered
    prepare: async (page) => {
      const tab = page.getByRole('tab', { name: 'Users' });
      if (await tab.count()) {
        await tab.click();
        await page.getByText('Total users').waitFor();
      }
    },
  },
  {
    name: 'profile-role-modal',
    path: '/user-profile',
    waitForText: 'Update profile',
    fullPage: false,
    prepare: async (page) => {
      const tab = page.getByRole('tab', { name: 'Users' });
      if (!(await tab.count())) return;
      await tab.click();
      // the first user whose role can be changed (an admin's own row is disabled)
      await page.locator('button[aria-label^="Change role of"]:not([disabled])').first().click();
      const dialog = page.getByRole('dialog', { name: 'Change role' });
      await dialog.getByRole('button', { name: 'Update role' }).click();
      // the dialog's own alert: a toast (also an alert) may show beside it
      await dialog.getByRole('alert').waitFor();
    },
  },
  { name: 'verify', path: '/verify/sample-token' },
];

/** Money and KYC screens; the --mock API answers them with the data below. */
export const MONEY_SCREENS: Screen[] = [
  { name: 'deposit', path: '/deposit-payment', waitForText: 'How deposits work' },
  {
    name: 'deposit-error',
    path: '/deposit-payment',
    prepare: async (page) => {
      await page.getByRole('button', { name: 'Submit deposit' }).click();
      await page.getByText('Please enter the amount.').waitFor();
    },
  },
  {
    name: 'start-invest',
    path: '/start-invest',
    waitForText: 'Platinum',
    prepare: async (page) => {
      await page.getByRole('radio', { name: /Silver/ }).check();
    },
  },
  { name: 'invest-status', path: '/invest-status', waitForText: 'Gold plan' },
  { name: 'investment-detail', path: '/investment/inv-2', waitForText: 'Approve investment' },
  { name: 'withdraw', path: '/withdraw-wallet', waitForText: '$18,342.75' },
  { name: 'withdrawal-detail', path: '/withdrawal/wd-1', waitForText: 'Wallet address' },
  {
    name: 'withdrawal-invalid',
    path: '/withdrawal/wd-missing',
    waitForText: 'Failed to fetch withdrawal details.',
  },
  { name: 'pending-withdrawals', path: '/admin-pending-wallet', waitForText: 'Review withdrawal' },
  { name: 'pending-deposits', path: '/admin-pending-deposit', waitForText: 'Review deposit' },
  { name: 'pending-investments', path: '/admin-pending-investment', waitForText: 'Diamond' },
  { name: 'transaction-detail', path: '/transaction/tx-1', waitForText: 'Confirm payment' },
  { name: 'edit-balance', path: '/edit-balance/u-2', waitForText: 'Operation' },
  { name: 'edit-user-balance', path: '/edit-user-balance/u-2', waitForText: 'Operation' },
  { name: 'edit-investment-balance', path: '/edit-investment-balance/u-2', waitForText: 'Operation' },
  { name: 'referrals', path: '/referrals', waitForText: 'People you referred' },
  { name: 'transaction-history', path: '/transaction-History', waitForText: 'Transaction History' },
  { name: 'upload-kyc', path: '/upload-kyc', waitForText: 'Important notice' },
  { name: 'pending-kyc', path: '/pending-kyc', waitForText: 'Ada Lovelace' },
];

export const VIEWPORTS = [
  { label: 'desktop', width: 1280, height: 800 },
  { label: 'phone', width: 360, height: 740 },
];

export interface CaptureOptions {
  /** Prefix of every file name ("investor-" -> investor-dashboard-phone.png). */
  prefix?: string;
  /** Runs on each settled page before its shot (the e2e run checks layout here). */
  check?: (page: Page, shot: { name: string; viewport: string; file: string }) => Promise<void>;
}

/**
 * Waits for web fonts and every finite CSS animation or transition: not spinners (they loop forever)
 * nor a toast's auto-close progress bar (the toast would be gone by then).
 */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => {
      if (a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity) return true;
      const target = (a.effect as KeyframeEffect | null)?.target;
      return target instanceof Element && target.classList.contains('Toastify__progress-bar');
    }),
  );
}

export async function captureScreens(
  context: BrowserContext,
  baseUrl: string,
  outDir: string,
  screens: Screen[],
  options: CaptureOptions = {},
): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const viewport of VIEWPORTS) {
    for (const screen of screens) {
      const page = await context.newPage();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto(new URL(screen.path, baseUrl).toString(), { waitUntil: 'networkidle' });
      if (screen.waitForText) await page.getByText(screen.waitForText).first().waitFor({ timeout: 10_000 });
      if (screen.prepare) await screen.prepare(page);
      await settle(page); // entrance animations finish before the shot
      const file = join(outDir, `${options.prefix ?? ''}${screen.name}-${viewport.label}.png`);
      await options.check?.(page, {
        name: `${options.prefix ?? ''}${screen.name}`,
        viewport: viewport.label,
        file,
      });
      const fullPage = screen.fullPage ?? true;
      if (fullPage) await page.evaluate(() => window.scrollTo(0, 0)); // fixed/sticky parts where they belong
      await page.screenshot({ path: file, fullPage });
      written.push(file);
      await page.close();
    }
  }
  return written;
}

// ---- canned API for --mock ----
const admin = {
  _id: 'u-admin',
  name: 'Grace Hopper-Montgomery',
  email: 'grace@meridian.test',
  phone: '+1 555 0100',
  country: 'United States',
  bio: 'Operations lead.',
  photo: '',
  role: 'admin',
  isVerified: false,
  kycStatus: 'pending',
  balance: 12500.5,
  investmentBalance: 250000,
  totalMaturityAmount: 18342.75,
  referralCode: 'GRACE1',
  isImpersonated: false,
};
const users = [
  admin,
  {
    ...admin,
    _id: 'u-2',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    role: 'subscriber',
    isVerified: true,
    balance: 300,
  },
  {
    ...admin,
    _id: 'u-3',
    name: 'Alexandria Ocasio-Smithers',
    email: 'alexandria.ocasio-smithers@example.com',
    role: 'author',
    isVerified: true,
  },
  {
    ...admin,
    _id: 'u-4',
    name: 'Tim Berners',
    email: 'tim@example.com',
    role: 'suspended',
    isVerified: false,
  },
];

const ada = { _id: 'u-2', name: 'Ada Lovelace', email: 'ada@example.com' };
const alex = {
  _id: 'u-3',
  name: 'Alexandria Ocasio-Smithers',
  email: 'alexandria.ocasio-smithers@example.com',
};
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 14, 5)).toISOString();
const plans = [
  ['Starter', 100, 500],
  ['Bronze', 500, 1500],
  ['Silver', 2000, 5000],
  ['Gold', 5000, 10000],
  ['Diamond', 10000, 50000],
  ['Platinum', 50000, 100000],
].map(([name, minAmount, maxAmount], i) => ({ _id: `p${i}`, name, minAmount, maxAmount }));
const investments = [
  {
    _id: 'inv-1',
    plan: 'Gold',
    status: 'Active',
    amount: 7200,
    maturityAmount: 8640,
    startDate: day(1),
    endDate: day(8),
    createdAt: day(1),
  },
  {
    _id: 'inv-2',
    plan: 'Silver',
    status: 'pending',
    amount: 2500,
    maturityAmount: 2875,
    startDate: null,
    endDate: null,
    createdAt: day(3),
    user: ada,
  },
  {
    _id: 'inv-3',
    plan: 'Starter',
    status: 'Ended',
    amount: 300,
    maturityAmount: 336,
    startDate: day(1),
    endDate: day(2),
    createdAt: day(1),
  },
];
const withdrawals = [
  {
    _id: 'wd-1',
    user: ada,
    amount: 1250.5,
    walletAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
    status: 'Pending',
    requestDate: day(4),
  },
  { _id: 'wd-2', user: alex, amount: 60, walletAddress: '', status: 'Pending', requestDate: day(5) },
];
const deposits = [
  {
    _id: 'tx-1',
    transactionId: 'tx-1',
    user: ada,
    amount: 25000,
    status: 'Pending',
    notes: '',
    createdAt: day(4),
  },
  {
    _id: 'tx-2',
    transactionId: 'tx-2',
    user: alex,
    amount: 150.75,
    status: 'Pending',
    notes: '',
    createdAt: day(5),
  },
];
const history = [
  { _id: 'h1', type: 'Transaction', amount: 25000, status: 'Confirmed', createdAt: day(1) },
  { _id: 'h2', type: 'Investment', amount: 7200, status: 'Active', plan: 'Gold', startDate: day(2) },
  {
    _id: 'h3',
    type: 'Withdrawal',
    amount: 1250.5,
    status: 'Pending',
    walletAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh',
    requestDate: day(3),
  },
  { _id: 'h4', type: 'Transaction', amount: 40, status: 'Rejected', createdAt: day(4) },
];
const kycUsers = [
  {
    ...ada,
    kycStatus: 'Pending',
    kyc: { frontDoc: '/api/users/kyc/documents/u-2/front', backDoc: '/api/users/kyc/documents/u-2/back' },
  },
  {
    ...alex,
    kycStatus: 'Pending',
    kyc: { frontDoc: '/api/users/kyc/documents/u-3/front', backDoc: '/api/users/kyc/documents/u-3/back' },
  },
];

export async function mockApi(context: BrowserContext, loggedIn: boolean): Promise<void> {
  await context.route('**/api/**', async (route) => {
    const url = new URL(route.request().url());
    const path = url.pathname.replace(/^\/api\//, '');
    const json = (status: number, body: unknown) =>
      route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    if (path === 'users/loginStatus') return json(200, loggedIn);
    if (path === 'users/getUser')
      return loggedIn ? json(200, admin) : json(401, { message: 'Not authorized, please login' });
    if (path === 'users/getUsers') return json(200, users);
    if (path === 'users/userStats') {
      const verified = users.filter((u) => u.isVerified).length;
      const suspended = users.filter((u) => u.role === 'suspended').length;
      return json(200, { total: users.length, verified, unverified: users.length - verified, suspended });
    }
    if (path === 'countries')
      return json(200, [
        { name: 'Canada', code: 'CA' },
        { name: 'Kenya', code: 'KE' },
        { name: 'United States', code: 'US' },
      ]);
    if (path === 'invest/deposit-maturity') return json(200, {});
    if (path.startsWith('users/verifyUser/'))
      return json(200, { message: 'Account Verification Successful' });
    if (path === 'invest/plans') return json(200, plans);
    if (path === 'invest/investment-history') return json(200, investments);
    if (path.startsWith('invest/investment/'))
      return json(200, investments.find((i) => i._id === path.split('/').pop()) ?? {});
    if (path === 'invest/adminPendingInvestment')
      return json(200, {
        pendingInvestments: [
          investments[1],
          { ...investments[1], _id: 'inv-4', plan: 'Diamond', amount: 15000, user: alex },
        ],
      });
    if (path === 'invest/getTransactionHistory') return json(200, history);
    if (path === 'withDraw/balance') return json(200, { totalMaturityAmount: admin.totalMaturityAmount });
    if (path === 'withDraw/pending') return json(200, { withdrawals });
    if (path.startsWith('withDraw/get-withdrawal/')) {
      const w = withdrawals.find((x) => x._id === path.split('/').pop());
      return w ? json(200, { ...w, user: w.user.name }) : json(200, { status: 'Pending' });
    }
    if (path === 'payments/pending-deposit') return json(200, { deposit: deposits });
    if (path.startsWith('payments/viewPaymentStatus/'))
      return json(200, deposits.find((d) => d.transactionId === path.split('/').pop()) ?? null);
    if (path === 'users/referrals')
      return json(200, [
        { _id: 'r1', name: 'Tim Berners', email: 'tim@example.com', photo: '' },
        { ...alex, photo: '' },
      ]);
    if (path === 'users/kyc/pending') return json(200, { pendingUsers: kycUsers });
    return json(404, { message: 'Not found' });
  });
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: string) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
  };
  const baseUrl = arg('--base', 'http://localhost:4173');
  const outDir = resolve(arg('--out', fileURLToPath(new URL('../artifacts/screenshots', import.meta.url))));
  const mock = args.includes('--mock');
  const browser: Browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  try {
    const out = await browser.newContext();
    if (mock) await mockApi(out, false);
    const files = await captureScreens(out, baseUrl, outDir, [...PUBLIC_SCREENS, ...LOGGED_OUT_SCREENS]);
    await out.close();
    if (mock) {
      const inCtx = await browser.newContext();
      await mockApi(inCtx, true);
      files.push(...(await captureScreens(inCtx, baseUrl, outDir, [...ACCOUNT_SCREENS, ...MONEY_SCREENS])));
      await inCtx.close();
    }
    console.log(`${files.length} screenshots in ${outDir}`);
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
