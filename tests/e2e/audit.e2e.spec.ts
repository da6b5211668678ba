/**
 * The audit trail and the security events in headless Chromium against the standalone target, one step
 * per test:
 *
 *  1. an investor signs in from a new browser (the emailed code), then again with the password; the
 *     Security tab of their profile lists both sign-ins with address and time;
 *  2. the admin suspends a user (through the API), opens "Audit trail" from the dashboard, filters by action
 *     and user, sees the entry (who, whom, what, when, address) and downloads the CSV of the same filters;
 *  3. screenshots of both screens at 1280 px and 360 px into artifacts/screenshots/ (no sideways scroll).
 *
 *   cd web && npx vite build && cd .. && npx vitest run --project e2e tests/e2e/audit.e2e.spec.ts
 */
import type { BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpSession } from '@meridian/gateway/testing/httpSession';
import { checkA11y } from '../support/a11y.js';
import { SHOTS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import { Screenshots, loginWithCode } from '../support/journey.js';

const ADMIN_EMAIL = 'e2e-audit-admin@example.com';
const ADMIN_PASSWORD = 'E2e-Audit-Passw0rd!';
const SHOTS_TIMEOUT_MS = 120_000;

const stamp = Date.now().toString(36);
const investor = { name: 'Ivy Investor', email: `ivy.${stamp}@example.com`, password: 'Ivy-Passw0rd!' };
const suspended = { name: 'Sam Suspended', email: `sam.${stamp}@example.com`, password: 'Sam-Passw0rd!' };

const e2e = useBrowserTarget({
  name: 'audit',
  admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
});
const { watcher, newContext } = e2e;
let investorContext: BrowserContext;
let adminContext: BrowserContext;
let screenshots: Screenshots;

/** Registers through the API (a browser of its own, which the account then trusts). */
async function register(account: { name: string; email: string; password: string }): Promise<string> {
  const http = new HttpSession(e2e.url);
  const res = await http.post('/api/users/register', {
    name: account.name,
    email: account.email,
    password: account.password,
    phone: '+4915550123',
    country: 'Germany',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body._id as string;
}

beforeAll(() => {
  screenshots = new Screenshots(e2e.url, SHOTS);
});

describe('audit trail and security events in Chromium against the standalone target', () => {
  stepsInOrder();

  it('1. the investor sees their sign-ins on the Security tab', async () => {
    await register(investor);
    investorContext = await newContext('investor');
    const page = await investorContext.newPage();
    await loginWithCode(page, e2e.url, watcher, investor.email, investor.password);
    // log out and in again: the browser is trusted now, the password alone signs in
    await page
      .getByRole('button', { name: /log ?out/i })
      .first()
      .click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email', { exact: true }).fill(investor.email);
    await page.getByLabel('Password', { exact: true }).fill(investor.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/dashboard');

    await page.goto('/user-profile');
    await page.getByRole('tab', { name: 'Security' }).click();
    const list = page.getByRole('list', { name: 'Security events' });
    await list.waitFor();
    await expect
      .poll(async () => (await list.getByRole('listitem').allInnerTexts()).join('\n'), { timeout: 10_000 })
      .toMatch(/Sign-in with your password[\s\S]*Sign-in from a new browser with an emailed code/);
    await checkA11y(page, 'audit-security-events');
    const first = await list.getByRole('listitem').first().innerText();
    expect(first).toMatch(/\d{4}|\d{1,2}:\d{2}/); // a time is shown
    expect(first).toMatch(/127\.0\.0\.1|::1|::ffff:127\.0\.0\.1/); // and the address
    await page.close();
    expect(watcher.unexpected()).toEqual([]);
  });

  it('2. the admin filters the audit trail, sees the suspension and exports it as CSV', async () => {
    const samId = await register(suspended);
    adminContext = await newContext('admin');
    const page = await adminContext.newPage();
    await loginWithCode(page, e2e.url, watcher, ADMIN_EMAIL, ADMIN_PASSWORD);
    // the suspension, from the admin's own browser session (its cookies, its CSRF token)
    const xsrf = (await adminContext.cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
    const res = await page.request.post('/api/users/upgradeUser', {
      data: { role: 'suspended', id: samId },
      headers: { 'x-xsrf-token': decodeURIComponent(xsrf) },
    });
    expect(res.status(), await res.text()).toBe(200);

    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.waitForURL('**/admin/audit');
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit entries' });
    await table.waitFor();
    await checkA11y(page, 'audit-trail');

    await page.getByLabel('Action').selectOption('RoleChanged');
    await page.getByLabel('User', { exact: true }).fill(suspended.email);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const row = table.getByRole('row').filter({ hasText: suspended.email });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    const text = await row.innerText();
    expect(text).toContain('Role changed');
    expect(text).toContain(ADMIN_EMAIL);
    expect(text).toMatch(/127\.0\.0\.1|::1/);
    expect(await table.getByRole('row').count()).toBe(2); // the header and the one entry

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(href).toContain('format=csv');
    expect(href).toContain('action=RoleChanged');
    const csv = await page.request.get(href!);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`${suspended.email},${samId},RoleChanged,identity,`);
    await page.close();
    expect(watcher.unexpected()).toEqual([]);
  });

  it(
    '3. screenshots of the audit screen and the Security tab, desktop and phone',
    async () => {
      await screenshots.take(
        adminContext,
        [
          {
            name: 'audit-trail',
            path: '/admin/audit',
            waitForText: 'Every admin action',
            prepare: async (page) => {
              await page
                .getByRole('table', { name: 'Audit entries' })
                .getByText('Role changed')
                .first()
                .waitFor();
            },
          },
        ],
        'admin-',
      );
      await screenshots.take(
        investorContext,
        [
          {
            name: 'security-events',
            path: '/user-profile',
            waitForText: 'Update profile',
            prepare: async (page) => {
              await page.getByRole('tab', { name: 'Security' }).click();
              await page.getByRole('list', { name: 'Security events' }).waitFor();
            },
          },
        ],
        'investor-',
      );
      expect(screenshots.overflowing).toEqual([]);
      expect(watcher.unexpected()).toEqual([]);
    },
    SHOTS_TIMEOUT_MS,
  );
});
