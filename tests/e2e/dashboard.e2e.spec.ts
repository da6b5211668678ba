/**
 * The dashboards people read in headless Chromium against the standalone target
 * (`make start`'s process serving a build of web/), two browser contexts, one step per test, in order:
 *
 *  1. investor registers and verifies; the admin (new browser: the emailed code) opens /dashboard:
 *     every queue counter reads 0;
 *  2. the investor declares a $1,000 deposit → the admin's open dashboard counts 1 pending deposit
 *     without a reload; the admin confirms it → 0 again and today's Deposits confirmed reads $1,000.00;
 *  3. the investor invests $600 in Bronze (a 1-hour plan) and the admin approves it → the admin's flow
 *     reads $600.00 invested; the investor's dashboard shows the investment's progress bar (projected
 *     $690.00), the chart drawn by uPlot and the same figures in its table;
 *  4. the KYC upload (two 3 MB files, upload throttled) shows a progress bar passing through values
 *     between 0 and 100 before 'KYC documents uploaded successfully!';
 *  5. screenshots of both dashboards (and, in 4, the upload in progress) at 1280 and 390 px wide
 *     (artifacts/screenshots/dashboard-*.png); none scrolls sideways;
 *  no console or page error anywhere unless a step expected it.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/dashboard.e2e.spec.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y } from '../support/a11y.js';
import { SHOTS, WIDTHS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import { KYC_PNG, currentUser, newInvestor, money, sidewaysOverflow } from '../support/journey.js';
import { MONEY_PLANS_JSON } from '../support/moneyJourney.js';

const ADMIN_EMAIL = 'dash-e2e-admin@example.com';
const ADMIN_PASSWORD = 'Dash-E2e-Admin-Passw0rd!';
const investor = newInvestor('Dana Dash', '+4915550123');

const filesDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-dash-files-'));
const e2e = useBrowserTarget({
  name: 'dash',
  admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  env: { PLANS_JSON: MONEY_PLANS_JSON },
  viewport: WIDTHS[0]!,
});
const { assertNoConsoleErrors } = e2e;
let inv: BrowserContext;
let adm: BrowserContext;
let invPage: Page;
let admPage: Page;

/** A PNG the kyc service accepts (real signature and header), padded to `bytes`. */
function bigPng(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  KYC_PNG.copy(out);
  return out;
}

const counter = (page: Page, queue: string) => page.getByTestId(`queue-${queue}`);
const flow = (page: Page, kind: string) => page.getByTestId(`flow-${kind}`);

/** Per kind of request the admin decides here: its queue and the decision. */
const DECISIONS = {
  deposit: {
    queue: 'deposits',
    decide: (transactionId: string) => money.confirm(adm, e2e.url, transactionId),
  },
  investment: {
    queue: 'investments',
    decide: (id: string) => money.approve(adm, e2e.url, id),
  },
} as const;

/**
 * The admin's counter for the kind's queue reads 1 (the investor's request is in); the admin claims the
 * pending item and decides it; the counter reads 0 again and today's money flow reads `flowAfter`.
 */
async function decidedLive(kind: keyof typeof DECISIONS, flowAfter: string): Promise<void> {
  const { queue, decide } = DECISIONS[kind];
  await expect.poll(() => counter(admPage, queue).textContent(), { timeout: 10_000 }).toBe('1');
  const id = await money.onlyPendingId(adm, e2e.url, queue);
  await e2e.claim(adm, kind, id);
  await decide(id);
  await expect.poll(() => counter(admPage, queue).textContent(), { timeout: 10_000 }).toBe('0');
  await expect.poll(() => flow(admPage, queue).textContent(), { timeout: 10_000 }).toBe(flowAfter);
}

beforeAll(() => {
  writeFileSync(join(filesDir, 'id-front.png'), bigPng(3 * 1024 * 1024));
  writeFileSync(join(filesDir, 'id-back.png'), bigPng(3 * 1024 * 1024));
});

afterAll(() => rmSync(filesDir, { recursive: true, force: true }));

describe('the investor and admin dashboards in Chromium against the standalone target', () => {
  stepsInOrder();

  it('1. the investor registers; the admin opens /dashboard and every queue counter reads 0', async () => {
    ({ inv, invPage, adm, admPage } = await e2e.investorAndAdmin(investor));
    await admPage.getByRole('heading', { name: 'Administration' }).waitFor();
    for (const q of ['deposits', 'investments', 'withdrawals', 'kyc'])
      await expect.poll(() => counter(admPage, q).textContent(), { timeout: 15_000 }).toBe('0');
    await expect.poll(() => flow(admPage, 'deposits').textContent(), { timeout: 15_000 }).toBe('$0.00');
    await checkA11y(admPage, 'dashboard-admin');
    assertNoConsoleErrors();
  });

  it('2. a deposit request moves the admin counter live; its confirmation adds to today’s money flow', async () => {
    await money.deposit(inv, e2e.url, '1000');
    await decidedLive('deposit', '$1,000.00');
    // a fresh load reads the same figure from today's audit trail
    await admPage.reload();
    await expect.poll(() => flow(admPage, 'deposits').textContent(), { timeout: 15_000 }).toBe('$1,000.00');
    assertNoConsoleErrors();
  });

  it('3. an approved investment shows its progress bar, the chart and the table on the investor dashboard', async () => {
    await money.invest(inv, e2e.url, '600', 'Bronze');
    await decidedLive('investment', '$600.00');

    await invPage.goto('/dashboard');
    const bar = invPage.getByRole('progressbar', { name: 'Bronze investment of $600.00 to maturity' });
    await bar.waitFor({ timeout: 15_000 });
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
    expect(await bar.getAttribute('aria-valuemax')).toBe('100');
    expect(await bar.getAttribute('aria-valuetext')).toMatch(/\$690\.00 at maturity/);
    await invPage.getByText('Projected at maturity').waitFor();
    await invPage.locator('.maturity__facts').getByText('$690.00').waitFor();

    // uPlot draws on a canvas; the table holds the same figures for screen readers
    await invPage.locator('.chart__plot canvas').first().waitFor({ timeout: 15_000 });
    const table = invPage.getByRole('table', { name: 'Total Investment and Total Profit over time' });
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Date',
      'Total Investment',
      'Total Profit',
    ]);
    expect(await table.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      '$600.00',
      '$0.00',
    ]);
    await invPage.getByRole('button', { name: 'Show as a table' }).click();
    await table.waitFor({ state: 'visible' });
    await invPage.getByRole('button', { name: 'Hide the table' }).click();
    await checkA11y(invPage, 'dashboard-investor');
    const user = await currentUser(inv, e2e.url);
    expect(user.investmentBalance).toBe(600);
    assertNoConsoleErrors();
  });

  it('4. the KYC upload shows a progress bar moving through its percentages', async () => {
    await invPage.goto('/upload-kyc');
    await invPage.getByText('Important notice').first().waitFor();
    await invPage.getByLabel('Front of document').setInputFiles(join(filesDir, 'id-front.png'));
    await invPage.getByLabel('Back of document').setInputFiles(join(filesDir, 'id-back.png'));
    // every aria-valuenow the bar takes, recorded in the page
    await invPage.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __progress: string[] }).__progress = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"][aria-label="Upload progress"]');
        const v = bar?.getAttribute('aria-valuenow');
        if (v != null && seen[seen.length - 1] !== v) seen.push(v);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const cdp = await inv.newCDPSession(invPage);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: 8 * 1024 * 1024,
      uploadThroughput: 1024 * 1024, // 6 MB take ~6 s
    });
    await invPage.getByRole('button', { name: 'Submit KYC' }).click();
    await invPage.getByRole('progressbar', { name: 'Upload progress' }).waitFor();
    // the bar mid-upload at both widths (the upload is throttled to take ~6 s)
    for (const vp of WIDTHS) {
      await invPage.setViewportSize(vp);
      await invPage.getByRole('progressbar', { name: 'Upload progress' }).scrollIntoViewIfNeeded();
      await invPage.screenshot({ path: join(SHOTS, `dashboard-kyc-upload-${vp.width}.png`) });
    }
    await invPage.setViewportSize(WIDTHS[0]!);
    await invPage
      .getByRole('status')
      .getByText('KYC documents uploaded successfully!')
      .waitFor({ timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    const seen = await invPage.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
    const values = seen.map(Number);
    expect(values[0], `values seen: ${seen.join(', ')}`).toBe(0);
    expect(values.at(-1)).toBe(100);
    expect(
      values.some((v) => v > 0 && v < 100),
      `values seen: ${seen.join(', ')}`,
    ).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
    assertNoConsoleErrors();
  });

  it('5. screenshots of both dashboards at 1280 and 390 px; none scrolls sideways', async () => {
    const overflowing: string[] = [];
    const shoot = async (
      context: BrowserContext,
      name: string,
      path: string,
      ready: string,
      loaded: (page: Page) => Promise<void> = async () => undefined,
    ) => {
      const page = await context.newPage();
      try {
        for (const vp of WIDTHS) {
          await page.setViewportSize(vp);
          await page.goto(path);
          await page.getByText(ready).first().waitFor({ timeout: 30_000 });
          await loaded(page);
          await page.evaluate(() => document.fonts.ready);
          const overflow = await sidewaysOverflow(page);
          if (overflow) overflowing.push(`${name}-${vp.width}: ${overflow}`);
          await page.screenshot({ path: join(SHOTS, `dashboard-${name}-${vp.width}.png`), fullPage: true });
        }
      } finally {
        await page.close();
      }
    };
    await shoot(inv, 'investor', '/dashboard', 'Projected at maturity', async (page) => {
      await page.locator('.chart__plot canvas').first().waitFor({ timeout: 15_000 });
    });
    await shoot(adm, 'admin', '/dashboard', 'Deposits confirmed', async (page) => {
      await expect.poll(() => counter(page, 'kyc').textContent(), { timeout: 15_000 }).toBe('1');
      await expect.poll(() => flow(page, 'deposits').textContent(), { timeout: 15_000 }).toBe('$1,000.00');
    });
    expect(overflowing).toEqual([]);
    assertNoConsoleErrors();
  });
});
