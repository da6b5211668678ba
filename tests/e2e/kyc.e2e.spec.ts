/**
 * The KYC journey in headless Chromium against the standalone target (`make start`'s
 * process serving web/dist), two browser contexts, one step per test, in order:
 *
 *  1. investor: registers through /register and opens the verification link from the dev mailbox;
 *  2. admin (new browser: the emailed code) opens /pending-kyc BEFORE the upload: 'No pending requests.';
 *  3. investor: /upload-kyc, picks front and back (real PNG files from a temp dir) → 'KYC documents
 *     uploaded successfully!' → the admin's open /pending-kyc shows the card without a reload;
 *  4. admin: the card shows both sides' images, 'Download front' saves the file; Approve → the card leaves;
 *     the investor's profile shows 'KYC: Approved' (a live push, no reload);
 *  5. admin adds $100 Total Profit on /edit-balance/{id} (via the Users tab) → the investor's
 *     /withdraw-wallet accepts a $60 request;
 *  6. screenshots of the KYC and withdraw screens at 1280 and 360 px; none scrolls sideways;
 *  no console or page error anywhere unless a step expected it.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/kyc.e2e.spec.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMail } from '@meridian/gateway/testing/httpSession';
import { checkA11y } from '../support/a11y.js';
import { SHOTS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import {
  KYC_PNG,
  Screenshots,
  currentUser,
  loginWithCode,
  newInvestor,
  registerAndVerify,
  requestWithdrawal,
  type Screen,
} from '../support/journey.js';

const ADMIN_EMAIL = 'kyc-e2e-admin@example.com';
const ADMIN_PASSWORD = 'Kyc-E2e-Admin-Passw0rd!';
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

const investor = newInvestor('Kira Kyc', '+4915550199');

const filesDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-kyc-files-'));
const e2e = useBrowserTarget({ name: 'kyc', admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
const { watcher, newContext, assertNoConsoleErrors } = e2e;
let shots: Screenshots;
let inv: BrowserContext; // the investor
let adm: BrowserContext; // the admin
let invPage: Page;
let admPage: Page;
let investorId = '';

beforeAll(() => {
  writeFileSync(join(filesDir, 'passport-front.png'), KYC_PNG);
  writeFileSync(join(filesDir, 'passport-back.png'), KYC_PNG);
  writeFileSync(join(filesDir, 'notes.txt'), 'not an identity document');
  shots = new Screenshots(e2e.url, SHOTS);
});

afterAll(() => rmSync(filesDir, { recursive: true, force: true }));

/** Screenshots of the investor's screens (`kyc-investor-…`). */
const invShot = (...screens: Screen[]) => shots.take(inv, screens, 'kyc-investor-');
/** Screenshots of the admin's screens (`kyc-admin-…`). */
const admShot = (...screens: Screen[]) => shots.take(adm, screens, 'kyc-admin-');

describe('KYC journey in Chromium against the standalone target', () => {
  stepsInOrder();

  it('1. the investor registers and verifies the email through the link from the mailbox', async () => {
    inv = await newContext('investor');
    invPage = await inv.newPage();
    await registerAndVerify(invPage, e2e.url, investor);
    await invPage.getByRole('heading', { name: 'Verify your identity' }).waitFor();
    await checkA11y(invPage, 'kyc-upload');
    investorId = (await currentUser(inv, e2e.url))._id as string;
    expect(investorId).toBeTruthy();
    assertNoConsoleErrors();
  });

  it('2. the admin logs in from a new browser and opens /pending-kyc: nothing pending yet', async () => {
    adm = await newContext('admin');
    admPage = await adm.newPage();
    await loginWithCode(admPage, e2e.url, watcher, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admPage.getByRole('link', { name: 'Pending Kyc Verification' }).click();
    await admPage.waitForURL('**/pending-kyc');
    await admPage.getByRole('heading', { name: 'Pending Kyc Verification' }).waitFor();
    await admPage.getByText('No pending requests.').waitFor();
    assertNoConsoleErrors();
  });

  it('3. the investor uploads front and back; the open admin queue shows the card without a reload', async () => {
    await invShot({ name: 'upload-kyc', path: '/upload-kyc', waitForText: 'Important notice' });
    const form = invPage.getByRole('form', { name: 'Upload KYC documents' });
    await invPage.getByRole('button', { name: 'Submit KYC' }).click();
    await form.getByText('Please upload both front and back documents.').waitFor();
    // a wrong pick is rejected and cleared
    const front = invPage.getByLabel('Front of document');
    await front.setInputFiles(join(filesDir, 'notes.txt'));
    await form.getByText('Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.').waitFor();
    expect(await front.inputValue()).toBe('');

    await front.setInputFiles(join(filesDir, 'passport-front.png'));
    await invPage.getByText(/passport-front\.png · 0\.00 MB/).waitFor();
    await invPage.getByLabel('Back of document').setInputFiles(join(filesDir, 'passport-back.png'));
    await invPage.getByText(/passport-back\.png · 0\.00 MB/).waitFor();
    await invPage.getByRole('button', { name: 'Submit KYC' }).click();
    await invPage.getByRole('status').getByText('KYC documents uploaded successfully!').waitFor();
    const uploadedAt = Date.now();

    const card = admPage.getByRole('listitem', { name: `KYC of ${investor.name}` });
    await card.waitFor({ timeout: 10_000 }); // the live queue/itemAdded push: no reload
    await card.getByText(investor.email).waitFor();
    await card.getByText('KYC: Pending').waitFor();
    await checkA11y(admPage, 'kyc-pending-queue');

    // the upload screen goes to /dashboard after 2 s (with a reload)
    await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
    expect(Date.now() - uploadedAt).toBeGreaterThanOrEqual(1_500);
    await invPage.getByRole('heading', { name: `Welcome, ${investor.name}` }).waitFor();
    assertNoConsoleErrors();
  });

  it('4. the admin sees both sides on the card and downloads the front, approves, the card leaves; the investor sees KYC Approved live', async () => {
    await admShot({ name: 'pending-kyc', path: '/pending-kyc', waitForText: 'Download front' });
    const card = admPage.getByRole('listitem', { name: `KYC of ${investor.name}` });
    // an image served as an attachment under a sandboxing policy still shows in an <img>
    for (const side of ['Front', 'Back']) {
      const img = card.getByRole('img', { name: `${side} of ${investor.name}'s document` });
      await expect
        .poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth))
        .toBe(400);
    }
    const link = card.getByRole('link', { name: 'Download front' });
    const [download] = await Promise.all([admPage.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('kyc-front.png');
    const saved = await download.path();
    expect(readFileSync(saved).equals(KYC_PNG)).toBe(true);
    // never a page of ours: an attachment, sandboxed
    const served = await adm.request.get(new URL((await link.getAttribute('href'))!, e2e.url).toString());
    expect(served.status()).toBe(200);
    expect(served.headers()['content-disposition']).toBe('attachment; filename="kyc-front.png"');
    expect(served.headers()['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(served.headers()['content-type']).toBe('image/png');

    // the investor watches the profile while the admin decides
    await invPage.getByRole('banner').getByRole('link', { name: 'Profile' }).click();
    await invPage.waitForURL('**/user-profile');
    await invPage.getByText('KYC: Pending').waitFor();

    await card.getByRole('button', { name: `Approve KYC of ${investor.name}` }).click();
    await admPage.getByText('KYC approved successfully!').first().waitFor();
    await card.waitFor({ state: 'detached' });
    await admPage.getByText('No pending requests.').waitFor();

    await invPage.getByText('KYC: Approved').waitFor({ timeout: 10_000 }); // status/changed kind 'kyc'
    await invPage.reload();
    await invPage.getByText('KYC: Approved').waitFor();
    await waitForMail(e2e.url, investor.email, (m) => m.subject === 'Your identity is verified', 10_000);
    assertNoConsoleErrors();
  });

  it("5. the admin adds Total Profit on /edit-balance; the investor's /withdraw-wallet accepts a request", async () => {
    // the admin: Users tab → the investor's card → Edit profit
    await admPage.goto('/user-profile');
    await admPage.getByRole('tab', { name: 'Users' }).click();
    await admPage.getByRole('searchbox').fill(investor.email);
    const userCard = admPage
      .getByRole('list', { name: 'Users' })
      .getByRole('listitem', { name: investor.name });
    await userCard.waitFor();
    await userCard.getByText('KYC: Approved').waitFor();
    await userCard.getByRole('link', { name: 'Edit profit' }).click();
    await admPage.waitForURL(`**/edit-balance/${investorId}`);
    await admPage.getByRole('heading', { name: 'Edit total profit' }).waitFor();
    const strip = admPage.getByLabel('Current balance');
    await strip.getByText('$0.00').waitFor();
    await admPage.getByLabel('Amount (USD)').fill('100');
    await admPage.getByLabel('Operation').selectOption('add');
    await admPage.getByRole('button', { name: 'Submit' }).click();
    await admPage.getByRole('status').waitFor();
    await admShot({ name: 'edit-balance', path: `/edit-balance/${investorId}`, waitForText: 'Operation' });

    // the investor: the dashboard's Total Profit, then the withdraw screen
    await invPage.goto('/dashboard');
    const profit = invPage
      .getByRole('region', { name: 'Balances' })
      .locator('.balance-card', { hasText: 'Total Profit' });
    await profit.getByText('$100.00').waitFor({ timeout: 10_000 });
    await invPage.getByRole('link', { name: 'Withdraw' }).click();
    await invPage.waitForURL('**/withdraw-wallet');
    await invPage.getByLabel('Current balance').getByText('$100.00').waitFor();
    await invShot({ name: 'withdraw', path: '/withdraw-wallet', waitForText: '$100.00' });

    await requestWithdrawal(invPage, '60', WALLET);
    await invPage.waitForURL('**/dashboard', { timeout: 10_000 });
    await profit.getByText('$40.00').waitFor({ timeout: 10_000 }); // the $60 are held for the request
    assertNoConsoleErrors();
  });

  it('6. the KYC screens fit 1280 px and 360 px without sideways scrolling', async () => {
    await invShot(
      { name: 'upload-kyc-approved', path: '/upload-kyc', waitForText: 'Your identity is verified' },
      { name: 'profile', path: '/user-profile', waitForText: 'KYC: Approved' },
    );
    await admShot({ name: 'pending-kyc-empty', path: '/pending-kyc', waitForText: 'No pending requests.' });
    expect(shots.overflowing, 'screens wider than their viewport').toEqual([]);
    assertNoConsoleErrors();
  });

  it('no console errors or page errors across the whole journey', () => {
    assertNoConsoleErrors();
  });
});
