/**
 * A user's deletion and their money (DELETE api/users/{id}, http/userDeletion.ts): refused while a deposit,
 * an investment or a withdrawal is pending or a balance is not zero, saying what must be settled; with
 * ?cancelPending=true every pending request is rejected (holds released) and then the user deleted, after
 * which no service decides any of their requests; an approval racing the deletion: exactly one happens.
 */
import { describe, expect, it } from 'vitest';
import type { TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { uploadAndApproveKyc } from './testing/kyc.js';
import { decidePayment, fundedInvestor, requestDeposit, waitFor, waitForBalances } from './testing/money.js';
import { moneySpec } from './testing/specComposition.js';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

let t: TestComposition;
let admin: HttpSession;
moneySpec((s) => void ({ t, admin } = s));

type Balances = {
  investmentHoldCents: number;
  withdrawalHoldCents: number;
  depositCents: number;
  investedCents: number;
};
const ledgerBalances = async (userId: string) =>
  (await t.app.money.ledgerStore.get<Balances>('balances', userId)) ?? null;

/** A verified investor with a pending deposit ($20), a pending investment ($200) and a pending withdrawal ($60). */
async function investorWithEverythingPending() {
  const investor = await fundedInvestor(t.url, admin, 500);
  const profit = await admin.put(`/api/users/updateDepositBalance/${investor.id}`, {
    operation: 'add',
    amount: 100,
  });
  expect(profit.status).toBe(200);
  await uploadAndApproveKyc(admin, investor);
  const depositId = await requestDeposit(investor.browser, 20);
  const invested = await investor.browser.post('/api/invest/start-invest', {
    amount: '200',
    planName: 'Starter',
  });
  expect(invested.status).toBe(201);
  const withdrawn = await investor.browser.post('/api/withDraw/create', {
    amount: '60',
    walletAddress: WALLET,
  });
  expect(withdrawn.status).toBe(201);
  await waitForBalances(investor.browser, { balance: 300, totalMaturityAmount: 40 });
  return {
    investor,
    depositId,
    investmentId: invested.body.investment._id as string,
    withdrawalId: withdrawn.body.withdrawal._id as string,
  };
}

describe('DELETE api/users/{id} with money pending', () => {
  it('is refused by default, saying what must be settled; the user and their money are untouched', async () => {
    const { investor } = await investorWithEverythingPending();
    const refused = await admin.delete(`/api/users/${investor.id}`);
    expect(refused.status).toBe(400);
    // balances: deposit 300 + profit 40 + held 200 + 60
    expect(refused.body.message).toBe(
      'This user has 1 pending deposit, 1 pending investment, 1 pending withdrawal and a balance of $600.00: settle them first, or delete with cancelPending=true',
    );
    expect((await investor.browser.get('/api/users/getUser')).status).toBe(200);
    // the accounts closed while asking were reopened: the investor still files requests
    expect((await investor.browser.post('/api/payments/create', { amount: 5 })).status).toBe(201);
    expect((await admin.delete(`/api/users/${investor.id}?cancelPending=maybe`)).status).toBe(400);
  });

  it('?cancelPending=true rejects every pending request, releases the holds, deletes; then nothing is decided', async () => {
    const { investor, depositId, investmentId, withdrawalId } = await investorWithEverythingPending();
    const deleted = await admin.delete(`/api/users/${investor.id}?cancelPending=true`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toBe('User deleted successfully');
    await waitFor(async () => {
      const b = await ledgerBalances(investor.id);
      return b?.investmentHoldCents === 0 && b.withdrawalHoldCents === 0 && b.depositCents === 50_000;
    }, 'the holds released at the ledger');
    const confirm = await decidePayment(admin, 'confirm', depositId);
    expect(confirm.status).toBeGreaterThanOrEqual(400);
    expect(confirm.status).toBeLessThan(500);
    const approveInvestment = await admin.put(`/api/invest/${investmentId}/approve`);
    expect(approveInvestment.status).toBe(409);
    expect(approveInvestment.body.message).toMatch(/rejected/i);
    const approveWithdrawal = await admin.put(`/api/withDraw/approve/${withdrawalId}`);
    expect(approveWithdrawal.status).toBe(409);
    expect(approveWithdrawal.body.message).toMatch(/rejected/i);
    expect((await admin.get('/api/payments/pending-deposit')).body).not.toContainEqual(
      expect.objectContaining({ _id: depositId }),
    );
  });

  it('an approval racing a deletion: exactly one of them decides the investment', async () => {
    const investor = await fundedInvestor(t.url, admin, 300);
    const invested = await investor.browser.post('/api/invest/start-invest', {
      amount: '200',
      planName: 'Starter',
    });
    expect(invested.status).toBe(201);
    const investmentId = invested.body.investment._id as string;
    const [approved, deleted] = await Promise.all([
      admin.put(`/api/invest/${investmentId}/approve`),
      admin.delete(`/api/users/${investor.id}?cancelPending=true`),
    ]);
    expect(deleted.status).toBe(200);
    // the approval won (the deletion found nothing pending) or lost (the request was rejected by the deletion)
    const later = await admin.put(`/api/invest/${investmentId}/reject`);
    expect(later.status).toBe(409);
    if (approved.status === 200) expect(later.body.message).toMatch(/approved/i);
    else {
      expect(approved.status).toBe(409);
      expect(later.body.message).toMatch(/rejected/i);
    }
    await waitFor(async () => (await ledgerBalances(investor.id))?.investmentHoldCents === 0, 'no hold left');
    // and the ledger agrees with the investment service on which one happened: captured into the invested
    // balance, or released back to the deposit balance
    const after = await ledgerBalances(investor.id);
    if (approved.status === 200) expect(after).toMatchObject({ investedCents: 20_000, depositCents: 10_000 });
    else expect(after).toMatchObject({ investedCents: 0, depositCents: 30_000 });
  });
});
