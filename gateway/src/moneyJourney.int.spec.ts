/**
 * Invest → approve → a plan lasting ~1 s matures → Total Profit; KYC approved through the KYC routes →
 * withdraw → approve; getTransactionHistory shows all of it — through the gateway
 * and the real standalone composition with PLANS_JSON. After each test the ledger reconciliation check holds.
 */
import { describe, expect, it } from 'vitest';
import { mailsWith, type Account, type TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { uploadAndApproveKyc } from './testing/kyc.js';
import {
  adminBrowser,
  balancesOf,
  fundedInvestor,
  openSocket,
  waitFor,
  waitForBalances,
  type RecordingSocket,
} from './testing/money.js';
import { moneySpec } from './testing/specComposition.js';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

let t: TestComposition;
let admin: HttpSession;
const sockets: RecordingSocket[] = [];
moneySpec((s) => void ({ t, admin } = s), sockets);

/** An admin adds `amount` to the user's Total Profit (the balance edit answers 200). */
async function addProfit(user: Account, amount: number): Promise<void> {
  const res = await admin.put(`/api/users/updateDepositBalance/${user.id}`, { operation: 'add', amount });
  expect(res.status).toBe(200);
}

describe('plans', () => {
  it('GET api/invest/plans lists the plans in force (PLANS_JSON) in dollars', async () => {
    const res = await (await adminBrowser(t.url)).get('/api/invest/plans');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      expect.objectContaining({
        _id: 'Starter',
        name: 'Starter',
        minAmount: 100,
        maxAmount: 500,
        ratePercent: 12,
      }),
      expect.objectContaining({ name: 'Bronze', minAmount: 500, maxAmount: 1500 }),
    ]);
  });
});

describe('the money journey', () => {
  it('invest → approve → matures → withdraw (after KYC) → approve; history shows all of it', async () => {
    const investor = await fundedInvestor(t.url, admin, 600);
    const [investorSocket, adminSocket] = await Promise.all([
      openSocket(t.url, investor.browser),
      openSocket(t.url, admin),
    ]);
    sockets.push(investorSocket, adminSocket);

    // refusals first: no plan, out of bounds, more than the balance
    expect((await investor.browser.post('/api/invest/start-invest', { amount: '200' })).body.message).toBe(
      'Please select an investment plan.',
    );
    const outOfBounds = await investor.browser.post('/api/invest/start-invest', {
      amount: '50',
      planName: 'Starter',
    });
    expect(outOfBounds.status).toBe(400);
    expect(outOfBounds.body.message).toBe('The Starter plan accepts amounts from $100 to $500');
    const tooMuch = await investor.browser.post('/api/invest/start-invest', {
      amount: '1000',
      planName: 'Bronze',
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.message).toBe('Insufficient balance');
    expect(
      (await investor.browser.post('/api/invest/start-invest', { amount: { $gt: '' }, planName: 'Starter' }))
        .status,
    ).toBe(400);

    // invest: the amount is held at request time
    const started = await investor.browser.post('/api/invest/start-invest', {
      amount: '200',
      planName: 'Starter',
    });
    expect(started.status).toBe(201);
    expect(started.body.message).toBe('Investment request submitted successfully');
    const investmentId = started.body.investment._id as string;
    await waitForBalances(investor.browser, { balance: 400 });

    const pending = await admin.get('/api/invest/adminPendingInvestment');
    expect(pending.status).toBe(200);
    const item = (pending.body.pendingInvestments as Array<Record<string, unknown>>).find(
      (i) => i._id === investmentId,
    );
    // while pending: the projected dates, the request's time and that plus the plan's term
    const projectedStart = Date.parse(item!.startDate as string);
    const projectedEnd = Date.parse(item!.endDate as string);
    expect(item!.datesProjected).toBe(true);
    expect(projectedStart).toBe(Date.parse(item!.createdAt as string));
    expect(projectedEnd - projectedStart).toBe(item!.durationMs);
    expect(item!.durationMs).toBeGreaterThan(0);
    expect(item).toMatchObject({
      investmentId,
      plan: 'Starter',
      status: 'pending',
      amount: 200,
      maturityAmount: 224, // projected from the request on
      user: { _id: investor.id, email: investor.email, balance: 400 },
    });
    const added = await adminSocket.waitFor(
      (p) =>
        p.event === 'queue/itemAdded' &&
        p.payload.queue === 'investments' &&
        (p.payload.item as { _id: string })._id === investmentId,
    );
    expect(added.payload.item).toMatchObject({
      _id: investmentId,
      plan: 'Starter',
      amount: 200,
      status: 'pending',
    });

    // approve: captured into Total Investment, dates and maturity amount set; decided once
    const approved = await admin.put(`/api/invest/${investmentId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.investment).toMatchObject({ status: 'Active', maturityAmount: 224 });
    const real = approved.body.investment as { startDate: string; endDate: string; datesProjected: boolean };
    expect(real.datesProjected).toBe(false);
    expect(Date.parse(real.endDate) - Date.parse(real.startDate)).toBe(projectedEnd - projectedStart);
    expect(Date.parse(real.startDate)).toBeGreaterThanOrEqual(projectedStart);
    const again = await admin.put(`/api/invest/${investmentId}/reject`);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already been/);
    await adminSocket.waitFor(
      (p) =>
        p.event === 'queue/itemDecided' && p.payload.id === investmentId && p.payload.status === 'Active',
    );
    await investorSocket.waitFor(
      (p) =>
        p.event === 'balances/changed' &&
        (p.payload.balances as { investmentBalance: number }).investmentBalance === 200,
    );

    // maturity: the plan lasts ~1.2 s; the dashboard's deposit-maturity call (or the scheduler) settles it once
    await waitFor(
      async () => {
        const res = await investor.browser.get('/api/invest/deposit-maturity');
        expect(res.status).toBe(200);
        const list = await investor.browser.get('/api/invest/investment-history');
        return (
          (list.body.investments as Array<{ _id: string; status: string }>).find(
            (i) => i._id === investmentId,
          )?.status === 'Ended'
        );
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'investment Ended' },
    );
    expect(await waitForBalances(investor.browser, { totalMaturityAmount: 224 })).toEqual({
      balance: 400,
      investmentBalance: 0,
      totalMaturityAmount: 224,
    });
    expect((await investor.browser.get('/api/invest/deposit-maturity')).body.settledCount).toBe(0);
    await investorSocket.waitFor(
      (p) => p.event === 'status/changed' && p.payload.id === investmentId && p.payload.status === 'Ended',
    );
    const detail = await investor.browser.get(`/api/invest/investment/${investmentId}`);
    expect(detail.body.investment).toMatchObject({
      status: 'Ended',
      maturityAmount: 224,
      user: { _id: investor.id },
    });
    expect(await mailsWith(t.url, investor.email, 'Your investment is active')).toHaveLength(1);
    expect(await mailsWith(t.url, investor.email, 'Your investment has matured')).toHaveLength(1);

    // withdraw: KYC first
    const beforeKyc = await investor.browser.post('/api/withDraw/create', {
      amount: '60',
      walletAddress: WALLET,
    });
    expect(beforeKyc.status).toBe(400);
    expect(beforeKyc.body.message).toBe('Your KYC verification must be approved before you can withdraw');
    await uploadAndApproveKyc(admin, investor);
    expect(
      (await investor.browser.post('/api/withDraw/create', { amount: '49.99', walletAddress: WALLET })).body
        .message,
    ).toBe('Minimum withdrawal amount is $50');
    expect(
      (await investor.browser.post('/api/withDraw/create', { amount: '60', walletAddress: 'not-a-wallet' }))
        .status,
    ).toBe(400);
    expect(
      (await investor.browser.post('/api/withDraw/create', { amount: '300', walletAddress: WALLET })).body
        .message,
    ).toBe('Insufficient balance');

    const requested = await investor.browser.post('/api/withDraw/create', {
      amount: '60',
      walletAddress: WALLET,
    });
    expect(requested.status).toBe(201);
    expect(requested.body.message).toBe('Withdrawal request submitted successfully');
    const withdrawalId = requested.body.withdrawal._id as string;
    expect((await investor.browser.get('/api/withDraw/balance')).body.totalMaturityAmount).toBe(164);

    const pendingW = await admin.get('/api/withDraw/pending');
    expect(pendingW.body.message).toBe('Pending withdrawals fetched successfully');
    expect(
      (pendingW.body.withdrawals as Array<Record<string, unknown>>).find((w) => w._id === withdrawalId),
    ).toMatchObject({
      amount: 60,
      walletAddress: WALLET,
      status: 'Pending',
      user: { _id: investor.id, email: investor.email },
    });
    await adminSocket.waitFor((p) => p.event === 'queue/itemAdded' && p.payload.queue === 'withdrawals');
    const one = await admin.get(`/api/withDraw/get-withdrawal/${withdrawalId}`);
    expect(one.body).toMatchObject({
      _id: withdrawalId,
      amount: 60,
      walletAddress: WALLET,
      status: 'Pending',
    });
    expect(typeof one.body.user).toBe('string');

    const paid = await admin.put(`/api/withDraw/approve/${withdrawalId}`);
    expect(paid.status).toBe(200);
    expect(paid.body.withdrawal).toMatchObject({ status: 'Approved' });
    expect((await admin.put(`/api/withDraw/reject/${withdrawalId}`)).status).toBe(409);
    await adminSocket.waitFor(
      (p) =>
        p.event === 'queue/itemDecided' && p.payload.id === withdrawalId && p.payload.status === 'Approved',
    );
    expect(await balancesOf(investor.browser)).toEqual({
      balance: 400,
      investmentBalance: 0,
      totalMaturityAmount: 164,
    });
    expect(await mailsWith(t.url, investor.email, 'We received your withdrawal request')).toHaveLength(1);
    expect(await mailsWith(t.url, investor.email, 'Your withdrawal was approved')).toHaveLength(1);

    // history: the deposit, the investment and the withdrawal, newest first, each with its timestamp field
    const history = await investor.browser.get('/api/invest/getTransactionHistory');
    expect(history.status).toBe(200);
    const items = history.body.history as Array<Record<string, unknown>>;
    expect(items.map((i) => i.type).sort()).toEqual(['Investment', 'Transaction', 'Withdrawal']);
    expect(items.find((i) => i.type === 'Transaction')).toMatchObject({
      amount: 600,
      status: 'Confirmed',
      createdAt: expect.any(String),
    });
    expect(items.find((i) => i.type === 'Investment')).toMatchObject({
      _id: investmentId,
      status: 'Ended',
      startDate: expect.any(String),
    });
    expect(items.find((i) => i.type === 'Withdrawal')).toMatchObject({
      _id: withdrawalId,
      status: 'Approved',
      requestDate: expect.any(String),
    });
    expect(items[0].type).toBe('Withdrawal');
  });

  it('a rejected investment releases the hold; a rejected withdrawal goes back to Total Profit', async () => {
    const investor = await fundedInvestor(t.url, admin, 300);
    const started = await investor.browser.post('/api/invest/start-invest', {
      amount: 150,
      planName: 'Starter',
    });
    expect(started.status).toBe(201);
    await waitForBalances(investor.browser, { balance: 150 });
    const rejected = await admin.put(`/api/invest/${started.body.investment._id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.investment.status).toBe('Rejected');
    await waitForBalances(investor.browser, { balance: 300, investmentBalance: 0 });
    expect(await mailsWith(t.url, investor.email, 'Your investment was rejected')).toHaveLength(1);

    // Total Profit by an admin edit, then a withdrawal that is rejected
    await addProfit(investor, 80);
    await uploadAndApproveKyc(admin, investor);
    const requested = await investor.browser.post('/api/withDraw/create', {
      amount: 80,
      walletAddress: WALLET,
    });
    expect(requested.status).toBe(201);
    await waitForBalances(investor.browser, { totalMaturityAmount: 0 });
    const no = await admin.put(`/api/withDraw/reject/${requested.body.withdrawal._id}`);
    expect(no.status).toBe(200);
    expect(no.body.withdrawal.status).toBe('Rejected');
    await waitForBalances(investor.browser, { totalMaturityAmount: 80 });
    expect(await mailsWith(t.url, investor.email, 'Your withdrawal was rejected')).toHaveLength(1);
  });

  it('50 parallel withdrawals against one Total Profit never overdraw', async () => {
    const investor = await fundedInvestor(t.url, admin, 1);
    await addProfit(investor, 500);
    await uploadAndApproveKyc(admin, investor);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        investor.browser.post('/api/withDraw/create', { amount: 60, walletAddress: WALLET }),
      ),
    );
    const accepted = results.filter((r) => r.status === 201).length;
    expect(accepted).toBe(8); // 8 × $60 = $480 ≤ $500 < 9 × $60
    for (const r of results.filter((x) => x.status !== 201))
      expect(r.body.message).toBe('Insufficient balance');
    await waitForBalances(investor.browser, { totalMaturityAmount: 20 });
  });
});
