/**
 * Steps shared by the money and KYC journeys (tests/e2e/kyc.e2e.spec.ts, money.e2e.spec.ts): an
 * investor registered and verified through the UI, the admin's new-browser code login, calls made with
 * a browser context's own cookies (CSRF header included), screenshots with a sideways-scroll check.
 */
import type { APIResponse, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { linkWith, listMail, loginCodeOf, waitForMail } from '@meridian/gateway/testing/httpSession';
import { captureScreens, type CaptureOptions, type Screen } from '../../web/scripts/screenshots.js';
import type { ConsoleWatcher } from './browser.js';
import { testPng } from '@meridian/platform/testing/testImage';

export type { Screen };

export interface Investor {
  name: string;
  email: string;
  phone: string;
  country: string;
  password: string;
}

/**
 * A new investor in Germany named `name`: the email `<first name>.<now>@example.com` (lower case), the
 * password `<first name>-Passw0rd!`.
 */
export function newInvestor(name: string, phone: string): Investor {
  const first = name.split(' ')[0]!;
  return {
    name,
    email: `${first.toLowerCase()}.${Date.now()}@example.com`,
    phone,
    country: 'Germany',
    password: `${first}-Passw0rd!`,
  };
}

/** A real PNG (the kyc service checks magic bytes and reads its dimensions: at least 200 pixels a side). */
export const KYC_PNG = testPng();

/** Fills the register form's name, email, phone and country (once the countries have loaded). */
export async function fillRegisterDetails(page: Page, investor: Investor): Promise<void> {
  await page.getByLabel('Full name').fill(investor.name);
  await page.getByLabel('Email', { exact: true }).fill(investor.email);
  await page.getByLabel('Phone').fill(investor.phone);
  const country = page.getByLabel('Country');
  await expect.poll(() => country.isEnabled()).toBe(true); // the list from api/countries
  await country.selectOption(investor.country);
}

/**
 * On /withdraw-wallet: requests a withdrawal of `dollars` to `wallet` and waits for the spec's confirmation.
 */
export async function requestWithdrawal(page: Page, dollars: string, wallet: string): Promise<void> {
  await page.getByLabel('Amount (USD)').fill(dollars);
  await page.getByLabel('Wallet address').fill(wallet);
  await page.getByRole('button', { name: 'Request withdrawal' }).click();
  await page.getByRole('status').getByText('Withdrawal request submitted successfully').waitFor();
}

/**
 * Registers through /register (the investor is logged in afterwards) and opens the emailed verification link;
 * `beforeVerify` runs on the unverified dashboard first (the a11y journey checks it there).
 */
export async function registerAndVerify(
  page: Page,
  url: string,
  investor: Investor,
  beforeVerify?: (page: Page) => Promise<void>,
): Promise<void> {
  await page.goto('/register');
  await page.getByRole('heading', { name: 'Create your account' }).waitFor();
  await fillRegisterDetails(page, investor);
  await page.getByLabel('Password', { exact: true }).fill(investor.password);
  await page.getByLabel('Confirm password', { exact: true }).pressSequentially(investor.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/dashboard');
  await page.getByRole('heading', { name: 'Account Verification Needed' }).waitFor();
  await beforeVerify?.(page);

  const mail = await waitForMail(
    url,
    investor.email,
    (m) => m.links.some((l) => l.includes('/verify/')),
    15_000,
  );
  await page.goto(linkWith(mail, '/verify/').url);
  await page.locator('#main').getByText('Account verified successfully').waitFor();
  await page.waitForURL('**/upload-kyc', { timeout: 10_000 });
}

/** Login from a browser the server does not know: 400 'New browser…', the code step, the code from the dev mailbox, the dashboard. */
export async function loginWithCode(
  page: Page,
  url: string,
  watcher: ConsoleWatcher,
  email: string,
  password: string,
): Promise<void> {
  watcher.expect({
    why: `login of ${email} from a new browser answers 400`,
    text: /status of 400/,
    url: /\/api\/users\/login$/,
  });
  const known = new Set((await listMail(url, email)).map((m) => m.id));
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Log in to Meridian' }).waitFor();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`**/loginWithCode/${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Enter your access code' }).waitFor();
  const mail = await waitForMail(url, email, (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text), 15_000);
  const code = loginCodeOf(mail);
  expect(code).toHaveLength(6);
  await page.getByLabel('Access code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Proceed to login' }).click();
  await page.waitForURL('**/dashboard');
}

/** Headers a state-changing call needs from this context: the CSRF cookie copied into X-XSRF-TOKEN (as the SPA's API client does). */
export async function csrfHeaders(context: BrowserContext, url: string): Promise<Record<string, string>> {
  let token = (await context.cookies(url)).find((c) => c.name === 'XSRF-TOKEN')?.value;
  if (!token) {
    await context.request.get(`${url}/api/users/loginStatus`);
    token = (await context.cookies(url)).find((c) => c.name === 'XSRF-TOKEN')?.value;
  }
  if (!token) throw new Error('no XSRF-TOKEN cookie');
  return { 'x-xsrf-token': decodeURIComponent(token) };
}

/** A state-changing call with this context's cookies and CSRF header; the step fails unless it answers 2xx. */
export async function send(
  context: BrowserContext,
  url: string,
  method: 'post' | 'put' | 'patch' | 'delete',
  path: string,
  data?: unknown,
): Promise<APIResponse> {
  const res = await context.request[method](`${url}${path}`, {
    headers: await csrfHeaders(context, url),
    ...(data === undefined ? {} : { data }),
  });
  expect(res.ok(), await res.text()).toBe(true);
  return res;
}

/** The admin queues of the spec's API: the path, the answer's list, and the field an item's id is in. */
const PENDING = {
  deposits: { path: '/api/payments/pending-deposit', list: 'deposit', id: 'transactionId' },
  investments: { path: '/api/invest/adminPendingInvestment', list: 'pendingInvestments', id: 'investmentId' },
  withdrawals: { path: '/api/withDraw/pending', list: 'withdrawals', id: '_id' },
} as const;
export type PendingKind = keyof typeof PENDING;

/** A pending request's id, as its queue lists it (`_id` where the kind's own field is missing). */
export const pendingIdOf = (kind: PendingKind, item: Record<string, string>): string =>
  item[PENDING[kind].id] ?? item._id!;

/** The money moves of the journeys through the API, each with the acting context's own cookies. */
export const money = {
  deposit: (inv: BrowserContext, url: string, amount: string) =>
    send(inv, url, 'post', '/api/payments/create', { amount }),
  invest: (inv: BrowserContext, url: string, amount: string, planName: string) =>
    send(inv, url, 'post', '/api/invest/start-invest', { amount, planName }),
  /** The admin confirms a deposit (claimed first). */
  confirm: (adm: BrowserContext, url: string, transactionId: string) =>
    send(adm, url, 'patch', '/api/payments/confirmPayment', {
      transactionId,
      status: 'Confirmed',
      notes: '',
    }),
  /** The admin approves an investment (claimed first). */
  approve: (adm: BrowserContext, url: string, investmentId: string) =>
    send(adm, url, 'put', `/api/invest/${investmentId}/approve`),
  /** The admin's queue of pending `kind` (claims not asked), as the spec's API lists it. */
  async pending(adm: BrowserContext, url: string, kind: PendingKind): Promise<Array<Record<string, string>>> {
    const { path, list } = PENDING[kind];
    const res = await adm.request.get(`${url}${path}`);
    return ((await res.json()) as Record<string, Array<Record<string, string>> | undefined>)[list] ?? [];
  },
  /** Waits until the admin's queue of `kind` holds exactly one request; answers its id. */
  async onlyPendingId(adm: BrowserContext, url: string, kind: PendingKind): Promise<string> {
    await expect.poll(async () => (await money.pending(adm, url, kind)).length, { timeout: 10_000 }).toBe(1);
    const [item] = await money.pending(adm, url, kind);
    return pendingIdOf(kind, item!);
  },
};

/** The logged-in user of a context (GET api/users/getUser with its cookies). */
export async function currentUser(context: BrowserContext, url: string): Promise<Record<string, any>> {
  const res = await context.request.get(`${url}/api/users/getUser`);
  expect(res.status()).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/**
 * Whether the page scrolls sideways (a phone must never need to): null when it does not, else its scroll
 * width against its width and the first elements past the right edge.
 */
export async function sidewaysOverflow(page: Page): Promise<string | null> {
  const result = await page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const offenders = [...document.body.querySelectorAll<HTMLElement>('*')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 && r.height > 0 && r.right > width + 1 && getComputedStyle(el).position !== 'fixed'
        );
      })
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} right=${Math.round(el.getBoundingClientRect().right)}`,
      );
    return { scrollWidth: root.scrollWidth, width, offenders };
  });
  return result.scrollWidth > result.width
    ? `scrollWidth ${result.scrollWidth} > ${result.width} (${result.offenders.join(', ')})`
    : null;
}

/** Screenshots at 1280 and 360 px with a check that no element sticks out sideways; offenders collected in `overflowing`. */
export class Screenshots {
  readonly overflowing: string[] = [];

  constructor(
    private readonly url: string,
    private readonly dir: string,
  ) {}

  private readonly check: CaptureOptions['check'] = async (page, shot) => {
    const overflow = await sidewaysOverflow(page);
    if (overflow) this.overflowing.push(`${shot.name}-${shot.viewport}: ${overflow}`);
  };

  /** waitForText waits up to 30 s here (captureScreens allows 10 s: too little on a busy 2-core machine). */
  take(context: BrowserContext, screens: Screen[], prefix: string): Promise<string[]> {
    const patient = screens.map(({ waitForText, prepare, ...screen }): Screen => ({
      ...screen,
      prepare: async (page) => {
        if (waitForText) await page.getByText(waitForText).first().waitFor({ timeout: 30_000 });
        await prepare?.(page);
      },
    }));
    return captureScreens(context, this.url, this.dir, patient, { prefix, check: this.check });
  }
}
