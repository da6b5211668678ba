/**
 * Maker-checker and impersonation, as HTTP calls against the standalone composition:
 * - maker-checker (docs/architecture.md §3a): no admin decides their own deposit, investment, withdrawal
 *   or KYC case, nor edits their own balances; while impersonating, money commands are refused (viewing
 *   works);
 * - a user's Idempotency-Key is namespaced per user and operation: it never reaches the ledger's own keys
 *   (`capture:<withdrawal id>`) nor another user's requests.
 */
import { describe, expect, it } from 'vitest';
import {
  signIn,
  userWithRole,
  verifiedUser,
  type Account,
  type TestComposition,
} from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { approveKyc, uploadAndApproveKyc, uploadKyc } from './testing/kyc.js';
import { confirmDeposit, fundedInvestor, requestDeposit, waitForBalances } from './testing/money.js';
import { moneySpec } from './testing/specComposition.js';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const SECOND_ADMIN = '(if you are the only admin, a second admin is needed)';
const own = (noun: string) =>
  `You cannot decide your own ${noun}: another admin must review it ${SECOND_ADMIN}`;
const OWN_BALANCES = `You cannot adjust your own balances: another admin must do it ${SECOND_ADMIN}`;
const IMPERSONATING = 'Money actions are not allowed while impersonating a user';

let t: TestComposition;
let admin: HttpSession;
moneySpec((s) => void ({ t, admin } = s));

/** What the ledger holds for the user (its balances read model; the REST API does not show holds). */
async function heldCents(userId: string): Promise<{ withdrawal: number; investment: number }> {
  const b = await t.app.money.ledgerStore.get<{ withdrawalHoldCents: number; investmentHoldCents: number }>(
    'balances',
    userId,
  );
  return { withdrawal: b?.withdrawalHoldCents ?? 0, investment: b?.investmentHoldCents ?? 0 };
}

/** A second admin: a verified user the first admin promoted, signed in again. */
async function secondAdmin(): Promise<Account> {
  const account = await verifiedUser(t.url);
  expect((await admin.post('/api/users/upgradeUser', { role: 'admin', id: account.id })).status).toBe(200);
  await signIn(account.browser, account.email, account.password);
  expect((await account.browser.get('/api/users/getUser')).body.role).toBe('admin');
  return account;
}

describe('maker-checker', () => {
  it('an admin cannot confirm their own deposit nor edit their own balances; a second admin can', async () => {
    const other = await secondAdmin();
    const depositId = await requestDeposit(other.browser, 60);
    for (const path of ['/api/payments/confirmPayment', '/api/payments/rejectPayment']) {
      const res = await other.browser.patch(path, { transactionId: depositId });
      expect({ status: res.status, message: res.body.message }).toEqual({
        status: 403,
        message: own('deposit'),
      });
    }
    const edit = await other.browser.put(`/api/users/editDepositBalance/${other.id}`, { amount: 5 });
    expect({ status: edit.status, message: edit.body.message }).toEqual({
      status: 403,
      message: OWN_BALANCES,
    });
    await confirmDeposit(admin, depositId);
    expect((await admin.put(`/api/users/editDepositBalance/${other.id}`, { amount: 5 })).status).toBe(200);
    await waitForBalances(other.browser, { balance: 65 });
  });

  it('an admin cannot approve their own investment, withdrawal or KYC; a second admin can', async () => {
    const other = await secondAdmin();
    await confirmDeposit(admin, await requestDeposit(other.browser, 600));
    expect((await admin.put(`/api/users/updateDepositBalance/${other.id}`, { amount: 100 })).status).toBe(
      200,
    );
    await waitForBalances(other.browser, { balance: 600, totalMaturityAmount: 100 });

    expect((await uploadKyc(other)).status).toBe(200);
    const kyc = await other.browser.patch(`/api/users/kyc/approve/${other.id}`);
    expect({ status: kyc.status, message: kyc.body.message }).toEqual({
      status: 403,
      message: own('KYC case'),
    });
    await approveKyc(admin, other);

    const inv = await other.browser.post('/api/invest/start-invest', { planName: 'Bronze', amount: 500 });
    expect(inv.status).toBe(201);
    const investmentId = inv.body.investment._id as string;
    const selfApproved = await other.browser.put(`/api/invest/${investmentId}/approve`);
    expect({ status: selfApproved.status, message: selfApproved.body.message }).toEqual({
      status: 403,
      message: own('investment'),
    });
    expect((await admin.put(`/api/invest/${investmentId}/approve`)).status).toBe(200);

    const wd = await other.browser.post('/api/withDraw/create', { amount: 60, walletAddress: WALLET });
    expect(wd.status).toBe(201);
    const withdrawalId = wd.body.withdrawal._id as string;
    const selfPaid = await other.browser.put(`/api/withDraw/approve/${withdrawalId}`);
    expect({ status: selfPaid.status, message: selfPaid.body.message }).toEqual({
      status: 403,
      message: own('withdrawal'),
    });
    expect((await admin.put(`/api/withDraw/approve/${withdrawalId}`)).status).toBe(200);
    await waitForBalances(other.browser, { balance: 100, investmentBalance: 500, totalMaturityAmount: 40 });
  });

  it('while impersonating, money commands are refused with a clear message; viewing works', async () => {
    const investor = await fundedInvestor(t.url, admin, 200);
    const impersonator = await userWithRole(t.url, admin, 'admin');
    await signIn(impersonator.browser, impersonator.email, impersonator.password);
    expect((await impersonator.browser.post(`/api/users/impersonate/${investor.id}`)).status).toBe(200);
    const as = impersonator.browser;

    const refusals = [
      await as.post('/api/payments/create', { amount: 10 }),
      await as.post('/api/invest/start-invest', { planName: 'Starter', amount: 100 }),
      await as.post('/api/withDraw/create', { amount: 60, walletAddress: WALLET }),
      await as.put(`/api/users/editDepositBalance/${investor.id}`, { amount: 5 }),
    ];
    for (const res of refusals)
      expect({ status: res.status, message: res.body.message }).toEqual({
        status: 403,
        message: IMPERSONATING,
      });

    expect((await as.get('/api/withDraw/balance')).status).toBe(200);
    expect((await as.get('/api/invest/investment-history')).status).toBe(200);
    expect((await as.get('/api/invest/getTransactionHistory')).status).toBe(200);
    expect((await as.get('/api/users/getUser')).body).toMatchObject({ _id: investor.id, balance: 200 });
    expect((await as.post('/api/users/exit-impersonation')).status).toBe(200);
    await waitForBalances(investor.browser, { balance: 200, investmentBalance: 0 });
  });
});

describe('KYC while impersonating (found by the proof suites)', () => {
  it('an impersonating admin cannot upload KYC documents for the user, so cannot then approve them alone', async () => {
    const user = await verifiedUser(t.url);
    const impersonator = await secondAdmin();
    const as = impersonator.browser;
    expect((await as.post(`/api/users/impersonate/${user.id}`)).status).toBe(200);
    const upload = await uploadKyc(as);
    expect({ status: upload.status, message: upload.body.message }).toEqual({
      status: 403,
      message: 'KYC documents cannot be uploaded while impersonating a user',
    });
    expect((await as.post('/api/users/exit-impersonation')).status).toBe(200);
    // nothing was submitted: there is nothing for this admin (nor anyone) to approve
    expect((await as.patch(`/api/users/kyc/approve/${user.id}`)).body).toEqual({
      message: 'No KYC submission found for this user',
    });
    const pending = (await admin.get('/api/users/kyc/pending')).body.pendingUsers as Array<{ _id: string }>;
    expect(pending.map((p) => p._id)).not.toContain(user.id);
    expect((await user.browser.get('/api/users/getUser')).body.kycStatus).toBe('Not Submitted');
    // the user in person uploads
    expect((await uploadKyc(user)).status).toBe(200);
  });
});

describe('Idempotency-Key namespace', () => {
  it('Idempotency-Key capture:<W> on an investment no longer blocks withdrawal W’s capture', async () => {
    const investor = await fundedInvestor(t.url, admin, 300);
    expect((await admin.put(`/api/users/updateDepositBalance/${investor.id}`, { amount: 100 })).status).toBe(
      200,
    );
    await uploadAndApproveKyc(admin, investor);
    await waitForBalances(investor.browser, { totalMaturityAmount: 100 });

    const wd = await investor.browser.post('/api/withDraw/create', { amount: 60, walletAddress: WALLET });
    expect(wd.status).toBe(201);
    const withdrawalId = wd.body.withdrawal._id as string;
    const inv = await investor.browser.post(
      '/api/invest/start-invest',
      { planName: 'Starter', amount: 100 },
      { headers: { 'idempotency-key': `capture:${withdrawalId}` } },
    );
    expect(inv.status).toBe(201);

    expect(await heldCents(investor.id)).toEqual({ withdrawal: 6_000, investment: 10_000 });

    const approved = await admin.put(`/api/withDraw/approve/${withdrawalId}`);
    expect(approved.status).toBe(200);
    // paid out: nothing of it is still held
    expect(await heldCents(investor.id)).toEqual({ withdrawal: 0, investment: 10_000 });
    expect((await admin.put(`/api/invest/${inv.body.investment._id as string}/reject`)).status).toBe(200);
    expect(await heldCents(investor.id)).toEqual({ withdrawal: 0, investment: 0 });
    await waitForBalances(investor.browser, { balance: 300, totalMaturityAmount: 40 });
  });

  it('two users with the same Idempotency-Key get two deposits; a retry by one of them gets the same', async () => {
    const [a, b] = [await verifiedUser(t.url), await verifiedUser(t.url)];
    const key = { headers: { 'idempotency-key': 'my-first-deposit' } };
    const first = await a.browser.post('/api/payments/create', { amount: 20 }, key);
    const again = await a.browser.post('/api/payments/create', { amount: 20 }, key);
    const other = await b.browser.post('/api/payments/create', { amount: 20 }, key);
    expect([first.status, again.status, other.status]).toEqual([201, 201, 201]);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expect(other.body.transactionId).not.toBe(first.body.transactionId);
    for (const id of [first.body.transactionId as string, other.body.transactionId as string])
      await confirmDeposit(admin, id);
    await waitForBalances(a.browser, { balance: 20 });
    await waitForBalances(b.browser, { balance: 20 });
  });
});
