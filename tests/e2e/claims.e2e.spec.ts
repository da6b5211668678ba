/**
 * Claim locks on the admin queues in headless Chromium against the standalone target: two
 * browser contexts, two admins, one pending deposit, one step per test:
 *
 *  1. admin A opens the deposit (/transaction/{id}) and holds its claim; admin B's open queue shows
 *     "Being reviewed by <A>" on the card, live;
 *  2. B opens the deposit: "Being reviewed by <A>", Confirm and Reject disabled, a "Take over" button;
 *     screenshots of both views at 1280 and 360 px;
 *  3. B takes over: A's open page shows "Being reviewed by <B>" and A's buttons disabled, live;
 *     screenshots again;
 *  4. B confirms; A's page shows the deposit Confirmed without a reload; no claim is left.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/claims.e2e.spec.ts
 */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpSession } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser } from '@meridian/gateway/testing/composition';
import { requestDeposit } from '@meridian/gateway/testing/money';
import { SHOTS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import { checkA11y } from '../support/a11y.js';
import { loginWithCode, sidewaysOverflow } from '../support/journey.js';

const ADMIN_A = { email: 'e2e-claims-admin@example.com', password: 'E2e-Claims-Passw0rd!' };
const stamp = Date.now().toString(36);
const ADMIN_B = { name: 'Bea Backup', email: `bea.${stamp}@example.com`, password: 'Bea-Backup-Passw0rd!' };

const e2e = useBrowserTarget({ name: 'claims', admin: ADMIN_A });
const { watcher, newContext, assertNoConsoleErrors } = e2e;
let a: BrowserContext;
let b: BrowserContext;
let aPage: Page;
let bPage: Page;
let aName = '';
let depositId = '';
let investorName = '';
let api: HttpSession;

/** The page as it is now, at desktop and phone width (the page keeps its state: no reload). */
async function shoot(page: Page, name: string): Promise<void> {
  for (const [viewport, size] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SHOTS, `claims-${name}-${viewport}.png`), fullPage: true });
    expect(await sidewaysOverflow(page), `${name} at ${viewport} width scrolls sideways`).toBeNull();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const decisionButtons = (page: Page) => [
  page.getByRole('button', { name: 'Confirm payment' }),
  page.getByRole('button', { name: 'Reject payment' }),
];

beforeAll(async () => {
  const url = e2e.url;
  // the second admin: registered, promoted by the first (through the API)
  api = new HttpSession(url);
  await signIn(api, ADMIN_A.email, ADMIN_A.password);
  aName = (await api.get('/api/users/getUser')).body.name as string;
  const reg = await new HttpSession(url).post('/api/users/register', {
    name: ADMIN_B.name,
    email: ADMIN_B.email,
    password: ADMIN_B.password,
    phone: '+4915550124',
    country: 'Germany',
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const promoted = await api.post('/api/users/upgradeUser', { role: 'admin', id: reg.body._id as string });
  expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
  // a pending deposit by a verified investor
  const investor = await verifiedUser(url);
  investorName = (await investor.browser.get('/api/users/getUser')).body.name as string;
  depositId = await requestDeposit(investor.browser, 250);
}, 180_000);

describe('claim locks on the admin queues: two admins in Chromium against the standalone target', () => {
  stepsInOrder((step) =>
    console.log(
      `[claims e2e] failed at "${step}":\n${e2e.target?.output().split('\n').slice(-30).join('\n')}`,
    ),
  );

  it('1. admin A opens the deposit and holds it; admin B’s open queue shows who reviews it, live', async () => {
    b = await newContext('admin B');
    bPage = await b.newPage();
    await loginWithCode(bPage, e2e.url, watcher, ADMIN_B.email, ADMIN_B.password);
    await bPage.goto('/admin-pending-deposit');
    const card = bPage.getByRole('listitem', { name: `Deposit of $250.00 by ${investorName}` });
    await card.waitFor();
    await expect.poll(() => card.getByText(/^Being reviewed by/).count()).toBe(0);

    a = await newContext('admin A');
    aPage = await a.newPage();
    await loginWithCode(aPage, e2e.url, watcher, ADMIN_A.email, ADMIN_A.password);
    await aPage.goto(`/transaction/${depositId}`);
    await aPage.getByRole('heading', { name: 'Payment detail' }).waitFor();
    await aPage.getByText('You are reviewing this item').waitFor();
    for (const button of decisionButtons(aPage)) await expect.poll(() => button.isEnabled()).toBe(true);

    await card.getByText(`Being reviewed by ${aName}`).waitFor({ timeout: 10_000 }); // claims/changed
    assertNoConsoleErrors();
  });

  it('2. B opens the deposit: "Being reviewed by <A>", decisions disabled, a Take over button', async () => {
    watcher.expect({
      why: 'B opening an item A holds: the claim answers 409',
      text: /status of 409/,
      url: /\/api\/admin\/claims$/,
    });
    await bPage.goto(`/transaction/${depositId}`);
    await bPage.getByRole('heading', { name: 'Payment detail' }).waitFor();
    await bPage.getByText(`Being reviewed by ${aName}`).waitFor();
    for (const button of decisionButtons(bPage)) await expect.poll(() => button.isDisabled()).toBe(true);
    await bPage.getByRole('button', { name: 'Take over' }).waitFor();
    // A still holds it
    await aPage.getByText('You are reviewing this item').waitFor();
    await checkA11y(aPage, 'claims-a-holds');
    await checkA11y(bPage, 'claims-b-sees-a');

    await shoot(aPage, 'a-holds');
    await shoot(bPage, 'b-sees-a');
    assertNoConsoleErrors();
  });

  it('3. B takes over: A’s open page shows "Being reviewed by <B>" and A’s decisions disabled, live', async () => {
    await bPage.getByRole('button', { name: 'Take over' }).click();
    await bPage.getByText('You are reviewing this item').waitFor();
    for (const button of decisionButtons(bPage)) await expect.poll(() => button.isEnabled()).toBe(true);

    await aPage.getByText(`Being reviewed by ${ADMIN_B.name}`).waitFor({ timeout: 10_000 });
    for (const button of decisionButtons(aPage)) await expect.poll(() => button.isDisabled()).toBe(true);
    // recorded: the claim's history says who took it over from whom
    const claims = (await api.get('/api/admin/claims')).body.claims as Array<Record<string, any>>;
    const claim = claims.find((c) => c.id === depositId);
    expect(claim?.history.at(-1)).toMatchObject({
      action: 'takenOver',
      adminName: ADMIN_B.name,
      fromAdminName: aName,
    });

    await shoot(aPage, 'a-sees-b');
    await shoot(bPage, 'b-holds');
    assertNoConsoleErrors();
  });

  it('4. B confirms; A’s page shows the deposit Confirmed without a reload; the claim is gone', async () => {
    await bPage.getByRole('button', { name: 'Confirm payment' }).click();
    await bPage.getByText('Payment confirmed successfully').waitFor();
    await aPage.getByText('Confirmed').first().waitFor({ timeout: 10_000 }); // status/changed
    await expect.poll(() => aPage.getByRole('button', { name: 'Confirm payment' }).count()).toBe(0);
    const claims = (await api.get('/api/admin/claims')).body.claims as Array<{ id: string }>;
    expect(claims.some((c) => c.id === depositId)).toBe(false);
    assertNoConsoleErrors();
  });
});
