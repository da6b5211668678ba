/**
 * The investment service through its gRPC surface, against the real ledger (in process, SQLite
 * ':memory:'), on one in-process bus. After every test: the ledger's reconciliation invariants.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { stackPerTest } from '@meridian/held-request/testing/testStack';
import { ADMIN, ADMIN_2, caller, grpcError, startStack } from './testing/harness.js';

const PLANS = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 3_600_000 },
  { name: 'Quick', minAmount: 100, maxAmount: 1000, ratePercent: 10, durationMs: 1_200 },
]);

const stack = stackPerTest(() => startStack({ plansJson: PLANS }));
const user = () => `user-${randomUUID()}`;

const invest = (userId: string, amount: string, planName = 'Starter', investmentId = '') =>
  stack.call('startInvest', {
    caller: caller(userId),
    callerRole: 'subscriber',
    callerVerified: true,
    planName,
    amount,
    investmentId,
  });
const decide = (method: 'approveInvestment' | 'rejectInvestment', investmentId: string, admin = ADMIN) =>
  stack.call(method, { caller: caller(admin.userId), callerRole: admin.role, investmentId });
const get = (investmentId: string, by = ADMIN) =>
  stack.call('getInvestment', { caller: caller(by.userId), callerRole: by.role, investmentId });

describe('plans and start-invest', () => {
  it('lists the configured plans', async () => {
    const { plans } = await stack.call('listPlans', {});
    expect(plans.map((p) => [p.name, p.minAmountCents, p.maxAmountCents, p.rateBps, p.rangeText])).toEqual([
      ['Starter', 10_000, 50_000, 1200, '$100 to $500'],
      ['Quick', 10_000, 100_000, 1000, '$100 to $1,000'],
    ]);
  });

  it('a pending investment answers its projected maturity amount (amount + profit at the plan rate)', async () => {
    const u = user();
    await stack.fund(u, '300');
    const { investment } = await invest(u, '123.45');
    expect(investment).toMatchObject({ status: 'pending', amountCents: 12_345, maturityAmountCents: 13_826 });
    expect(await get(investment!.investmentId)).toMatchObject({ maturityAmountCents: 13_826 });
    const approved = await decide('approveInvestment', investment!.investmentId);
    expect(approved.investment).toMatchObject({ status: 'Active', maturityAmountCents: 13_826 });
  });

  it('holds the amount and answers the spec message; refuses with clear messages', async () => {
    const u = user();
    await stack.fund(u, '300');
    const ok = await invest(u, '250');
    expect(ok.message).toBe('Investment request submitted successfully');
    expect(ok.investment).toMatchObject({ status: 'pending', amountCents: 25_000, planName: 'Starter' });
    expect(await stack.balances(u)).toMatchObject({ depositCents: 5_000, investmentHoldCents: 25_000 });

    expect(await grpcError(invest(u, '100'))).toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: 'Insufficient balance',
    });
    expect(await grpcError(invest(u, '50'))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'The Starter plan accepts amounts from $100 to $500',
    });
    expect(await grpcError(invest(u, '100', ''))).toMatchObject({
      details: 'Please select an investment plan.',
    });
    expect(
      await grpcError(
        stack.call('startInvest', {
          caller: caller(u),
          callerRole: 'subscriber',
          callerVerified: false,
          planName: 'Starter',
          amount: '100',
        }),
      ),
    ).toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: 'Please verify your email before investing',
    });
    // the refused request is not in the history; the accepted one is
    const { investments } = await stack.call('investmentHistory', {
      caller: caller(u),
      callerRole: 'subscriber',
    });
    expect(investments.map((i) => i.investmentId)).toEqual([ok.investment!.investmentId]);
  });
});

describe('admin decisions', () => {
  it('approve captures into Total Investment and sets the term; reject releases', async () => {
    const u = user();
    await stack.fund(u, '1000');
    const one = (await invest(u, '200')).investment!.investmentId;
    const two = (await invest(u, '300')).investment!.investmentId;

    expect(
      await grpcError(
        stack.call('approveInvestment', { caller: caller(u), callerRole: 'subscriber', investmentId: one }),
      ),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
      details: 'Not authorized, admin only',
    });
    const approved = await decide('approveInvestment', one);
    expect(approved.message).toBe('Investment approved successfully');
    expect(approved.investment).toMatchObject({ status: 'Active', maturityAmountCents: 22_400 });
    expect(Date.parse(approved.investment!.endDate) - Date.parse(approved.investment!.startDate)).toBe(
      3_600_000,
    );
    const rejected = await decide('rejectInvestment', two);
    expect(rejected).toMatchObject({
      message: 'Investment rejected successfully',
      investment: { status: 'Rejected' },
    });
    expect(await stack.balances(u)).toMatchObject({
      depositCents: 80_000,
      investedCents: 20_000,
      investmentHoldCents: 0,
    });
    expect(
      (
        await stack.call('listPending', { caller: caller(ADMIN.userId), callerRole: 'admin' })
      ).investments.filter((i) => i.userId === u),
    ).toEqual([]);
  });

  it('detail: owner or admin only, with name and email from the user directory', async () => {
    const u = user();
    await stack.registerUser(u, 'Ada Investor', 'ada@example.com');
    await stack.fund(u, '200');
    const id = (await invest(u, '150')).investment!.investmentId;
    await waitFor(async () => (await get(id)).userName === 'Ada Investor', 'user directory');
    expect(await get(id)).toMatchObject({
      userName: 'Ada Investor',
      userEmail: 'ada@example.com',
      amountCents: 15_000,
    });
    expect((await get(id, { userId: u, role: 'subscriber' })).investmentId).toBe(id);
    expect(await grpcError(get(id, { userId: user(), role: 'subscriber' }))).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    expect(await grpcError(get('nope'))).toMatchObject({
      code: status.NOT_FOUND,
      details: 'Investment not found',
    });
  });
});

describe('maker-checker and impersonation', () => {
  it('an admin cannot approve or reject their own investment; a second admin can', async () => {
    await stack.fund(ADMIN_2.userId, '500');
    const id = (
      await stack.call('startInvest', {
        caller: caller(ADMIN_2.userId),
        callerRole: 'admin',
        callerVerified: true,
        planName: 'Starter',
        amount: '200',
      })
    ).investment!.investmentId;
    for (const method of ['approveInvestment', 'rejectInvestment'] as const)
      expect(await grpcError(decide(method, id, ADMIN_2))).toMatchObject({
        code: status.PERMISSION_DENIED,
        details:
          'You cannot decide your own investment: another admin must review it (if you are the only admin, a second admin is needed)',
      });
    expect((await get(id)).status).toBe('pending');
    expect((await decide('approveInvestment', id, ADMIN)).investment).toMatchObject({
      status: 'Active',
      decidedBy: ADMIN.userId,
    });
  });

  it('while impersonating, start-invest is refused with a clear message and nothing is held; reading works', async () => {
    const u = user();
    await stack.fund(u, '500');
    const asAdmin = { ...caller(u), impersonatorId: ADMIN.userId };
    expect(
      await grpcError(
        stack.call('startInvest', {
          caller: asAdmin,
          callerRole: 'subscriber',
          callerVerified: true,
          planName: 'Starter',
          amount: '200',
        }),
      ),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
      details: 'Money actions are not allowed while impersonating a user',
    });
    expect(await stack.balances(u)).toMatchObject({ depositCents: 50_000, investmentHoldCents: 0 });
    expect(
      (await stack.call('investmentHistory', { caller: asAdmin, callerRole: 'subscriber' })).investments,
    ).toEqual([]);
  });
});

describe('maturity', () => {
  it('a plan lasting ~1 s matures exactly once and the money lands in Total Profit', async () => {
    const u = user();
    await stack.fund(u, '500');
    const id = (await invest(u, '200', 'Quick')).investment!.investmentId;
    await decide('approveInvestment', id);
    await waitFor(async () => (await get(id)).status === 'Ended', {
      timeoutMs: 10_000,
      message: 'matured by the scheduler',
    });
    await waitFor(async () => (await stack.balances(u)).profitCents === 22_000, 'settled into Total Profit');
    expect(await stack.balances(u)).toMatchObject({
      depositCents: 30_000,
      investedCents: 0,
      profitCents: 22_000,
    });
    // a later deposit-maturity call changes nothing
    const again = await stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber' });
    expect(again.settledCount).toBe(0);
    await stack.service.flushOutbox();
    expect(
      stack.published.filter(
        (e) => e.type === 'InvestmentMatured' && (e.data as { investmentId: string }).investmentId === id,
      ),
    ).toHaveLength(1);
    expect(stack.published.map((e) => e.type).filter((t) => t.startsWith('Investment'))).toEqual([
      'InvestmentRequested',
      'InvestmentApproved',
      'InvestmentMatured',
    ]);
    const { transactions } = await stack.ledgerCall('listTransactions', {
      caller: caller(u),
      callerRole: 'subscriber',
    });
    expect(transactions.filter((t) => t.reason === 'investment_matured')).toHaveLength(1);
  });

  it('a service restarted with a due investment settles it once', async () => {
    const u = user();
    await stack.fund(u, '500');
    const id = (await invest(u, '100', 'Quick')).investment!.investmentId;
    const { investment } = await decide('approveInvestment', id);
    await stack.service.stop();
    // down while the investment falls due
    await waitFor(() => Date.now() >= Date.parse(investment!.endDate), { timeoutMs: 5_000, message: 'due' });
    expect((await stack.balances(u)).profitCents).toBe(0);
    await stack.restart();
    await waitFor(async () => (await stack.balances(u)).profitCents === 11_000, {
      timeoutMs: 10_000,
      message: 'settled after restart',
    });
    expect((await get(id)).status).toBe('Ended');
    await stack.restart();
    expect(
      (await stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber' })).settledCount,
    ).toBe(0);
    expect(await stack.balances(u)).toMatchObject({ investedCents: 0, profitCents: 11_000 });
    // the outbox resumed from its checkpoint: every event published once across the restarts
    await stack.service.flushOutbox();
    const mine = stack.published.filter((e) => (e.data as { investmentId?: string }).investmentId === id);
    expect(mine.map((e) => e.type)).toEqual([
      'InvestmentRequested',
      'InvestmentApproved',
      'InvestmentMatured',
    ]);
    expect(new Set(mine.map((e) => e.id)).size).toBe(3);
  });

  it('deposit-maturity settles the caller’s due investments at once and is idempotent', async () => {
    const u = user();
    await stack.fund(u, '1000');
    let offsetMs = 0;
    await stack.restart({ clock: () => new Date(Date.now() + offsetMs) });
    const id1 = (await invest(u, '100')).investment!.investmentId;
    const id2 = (await invest(u, '200')).investment!.investmentId;
    await decide('approveInvestment', id1);
    await decide('approveInvestment', id2);
    const before = await stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber' });
    expect(before).toMatchObject({ settledCount: 0, message: 'No matured investments to settle' });

    offsetMs = 2 * 3_600_000; // two hours later: both are due (the scheduler's timer is not due yet)
    const results = await Promise.all(
      [1, 2, 3].map(() => stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber' })),
    );
    expect(results.reduce((n, r) => n + r.settledCount, 0)).toBe(2);
    expect(await stack.balances(u)).toMatchObject({
      investedCents: 0,
      profitCents: 11_200 + 22_400,
      depositCents: 70_000,
    });
    expect(
      (await stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber' })).settledCount,
    ).toBe(0);
    expect(
      await grpcError(
        stack.call('settleDueForUser', { caller: caller(u), callerRole: 'subscriber', userId: user() }),
      ),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
  });
});

describe('faults', () => {
  it('a ledger refusal is answered as such and recorded once', async () => {
    const u = user();
    // a stale balance: the service asks for the hold, the ledger refuses it
    await stack.restartWithLedger({
      getBalances: async () => ({ depositCents: 1_000_000, investedCents: 0, profitCents: 0 }),
    });
    const res = await grpcError(invest(u, '100'));
    expect(res).toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: 'Insufficient balance',
      errorCode: 'INSUFFICIENT_FUNDS',
    });
    expect(
      (await stack.call('investmentHistory', { caller: caller(u), callerRole: 'subscriber' })).investments,
    ).toEqual([]);
  });
});
