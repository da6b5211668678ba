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

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Screen {
  name: string;
  path: string;
  /** Wait for this text before the shot (the home loader runs 2 s). */
  waitForText?: string;
  /** Optional interaction before the shot. */
  prepare?: (page: Page) => Promise<void>;
}

export const PUBLIC_SCREENS: Screen[] = [
  { name: 'home', path: '/', waitForText: 'Frequently asked questions' },
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
    prepare: async (page) => {
      await page.getByRole('tab', { name: 'Security' }).click();
    },
  },
  {
    name: 'profile-users',
    path: '/user-profile',
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
    prepare: async (page) => {
      const tab = page.getByRole('tab', { name: 'Users' });
      if (!(await tab.count())) return;
      await tab.click();
      await page.getByRole('button', { name: /^Change role of/ }).first().click();
      await page.getByRole('button', { name: 'Update role' }).click();
      await page.getByRole('alert').waitFor();
    },
  },
  { name: 'section-placeholder', path: '/deposit-payment', waitForText: 'This section opens soon.' },
  { name: 'verify', path: '/verify/sample-token' },
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

/** Waits for web fonts and every finite CSS animation or transition (spinners loop forever). */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
  );
}

export async function captureScreens(context: BrowserContext, baseUrl: string, outDir: string, screens: Screen[], options: CaptureOptions = {}): Promise<string[]> {
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
      await options.check?.(page, { name: `${options.prefix ?? ''}${screen.name}`, viewport: viewport.label, file });
      await page.screenshot({ path: file, fullPage: true });
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
  { ...admin, _id: 'u-2', name: 'Ada Lovelace', email: 'ada@example.com', role: 'subscriber', isVerified: true, balance: 300 },
  { ...admin, _id: 'u-3', name: 'Alexandria Ocasio-Smithers', email: 'alexandria.ocasio-smithers@example.com', role: 'author', isVerified: true },
  { ...admin, _id: 'u-4', name: 'Tim Berners', email: 'tim@example.com', role: 'suspended', isVerified: false },
];

export async function mockApi(context: BrowserContext, loggedIn: boolean): Promise<void> {
  await context.route('**/api/**', async (route) => {
    const url = new URL(route.request().url());
    const path = url.pathname.replace(/^\/api\//, '');
    const json = (status: number, body: unknown) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    if (path === 'users/loginStatus') return json(200, loggedIn);
    if (path === 'users/getUser') return loggedIn ? json(200, admin) : json(401, { message: 'Not authorized, please login' });
    if (path === 'users/getUsers') return json(200, users);
    if (path === 'countries') return json(200, [{ name: 'Canada', code: 'CA' }, { name: 'Kenya', code: 'KE' }, { name: 'United States', code: 'US' }]);
    if (path === 'invest/deposit-maturity') return json(200, {});
    if (path.startsWith('users/verifyUser/')) return json(200, { message: 'Account Verification Successful' });
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
  const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const out = await browser.newContext();
    if (mock) await mockApi(out, false);
    const files = await captureScreens(out, baseUrl, outDir, [...PUBLIC_SCREENS, ...LOGGED_OUT_SCREENS]);
    await out.close();
    if (mock) {
      const inCtx = await browser.newContext();
      await mockApi(inCtx, true);
      files.push(...(await captureScreens(inCtx, baseUrl, outDir, ACCOUNT_SCREENS)));
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
