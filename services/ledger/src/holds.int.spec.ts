import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AdjustmentOperation,
  BalanceAccount,
  HoldPurpose,
  HoldStatus,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { ledgerPerTest } from './testing/harness.js';

const h = ledgerPerTest();

const INVEST = HoldPurpose.HOLD_PURPOSE_INVESTMENT;
const WITHDRAW = HoldPurpose.HOLD_PURPOSE_WITHDRAWAL;

/** Settles the maturity of an investment of $600 that pays $672. */
const settle600At672 = (userId: string, investmentId: string) =>
  h.call('settleMaturity', { userId, investmentId, principalCents: 60000, maturityAmountCents: 67200 });

describe('holds: hold -> capture | release', () => {
  it('investment: hold lowers the Deposit Balance at once, capture moves it to Total Investment, maturity to Total Profit', async () => {
    const investor = await h.user();
    await h.fund(investor, '1000');
    const investmentId = `inv-${randomUUID()}`;
    const held = await h.call('placeHold', {
      userId: investor.userId,
      holdId: investmentId,
      purpose: INVEST,
      amountCents: 60000,
    });
    expect(held).toMatchObject({
      status: HoldStatus.HOLD_STATUS_HELD,
      amountCents: 60000,
      balances: { depositCents: 40000, investmentHoldCents: 60000 },
    });
    const captured = await h.call('captureHold', { userId: investor.userId, holdId: investmentId });
    expect(captured).toMatchObject({
      status: HoldStatus.HOLD_STATUS_CAPTURED,
      balances: { depositCents: 40000, investedCents: 60000, investmentHoldCents: 0 },
    });
    await expectStatus(
      h.call('releaseHold', { userId: investor.userId, holdId: investmentId }),
      grpc.status.ALREADY_EXISTS,
      'This hold has already been captured',
    );

    const settled = await settle600At672(investor.userId, investmentId);
    expect(settled).toMatchObject({ depositCents: 40000, investedCents: 0, profitCents: 67200 });
    // settling again (scheduler and the caller's GET at once) changes nothing
    expect(await settle600At672(investor.userId, investmentId)).toMatchObject({ profitCents: 67200 });
  });

  it('withdrawal: hold on Total Profit, release gives it back, capture pays it out', async () => {
    const investor = await h.user();
    await h.call('adjustBalance', {
      caller: h.admin.caller,
      callerRole: 'admin',
      userId: investor.userId,
      account: BalanceAccount.BALANCE_ACCOUNT_PROFIT,
      operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      amount: '300',
    });
    const w1 = `wd-${randomUUID()}`;
    const w2 = `wd-${randomUUID()}`;
    await h.call('placeHold', { userId: investor.userId, holdId: w1, purpose: WITHDRAW, amountCents: 10000 });
    await h.call('placeHold', { userId: investor.userId, holdId: w2, purpose: WITHDRAW, amountCents: 15000 });
    expect(await h.balances(investor.userId)).toMatchObject({
      profitCents: 5000,
      withdrawalHoldCents: 25000,
    });
    expect(await h.call('releaseHold', { userId: investor.userId, holdId: w1 })).toMatchObject({
      status: HoldStatus.HOLD_STATUS_RELEASED,
    });
    expect(await h.call('captureHold', { userId: investor.userId, holdId: w2 })).toMatchObject({
      status: HoldStatus.HOLD_STATUS_CAPTURED,
    });
    expect(await h.balances(investor.userId)).toMatchObject({ profitCents: 15000, withdrawalHoldCents: 0 });
    await expectStatus(
      h.call('captureHold', { userId: investor.userId, holdId: 'nope' }),
      grpc.status.NOT_FOUND,
      'Hold not found',
    );
    await expectStatus(
      h.call('placeHold', {
        userId: investor.userId,
        holdId: `wd-${randomUUID()}`,
        purpose: WITHDRAW,
        amountCents: 15001,
      }),
      grpc.status.FAILED_PRECONDITION,
      'Insufficient balance',
    );
  });
});

describe('concurrency', () => {
  it('50 parallel holds against one balance never overdraw', async () => {
    const investor = await h.user();
    await h.fund(investor, '1000'); // 100,000 cents
    const amounts = Array.from({ length: 50 }, (_, i) => 2_000 + (i % 7) * 500); // 2,000 .. 5,000 cents each, 170,000 in all
    const results = await Promise.allSettled(
      amounts.map((amountCents) =>
        h.call('placeHold', {
          userId: investor.userId,
          holdId: `inv-${randomUUID()}`,
          purpose: INVEST,
          amountCents,
        }),
      ),
    );
    const ok = results.flatMap((r, i) => (r.status === 'fulfilled' ? [amounts[i]] : []));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    const heldSum = ok.reduce((a, b) => a + b, 0);
    expect(heldSum).toBeLessThanOrEqual(100_000);
    expect(ok.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused)
      expect(r.reason).toMatchObject({
        code: grpc.status.FAILED_PRECONDITION,
        details: 'Insufficient balance',
      });
    const balances = await h.balances(investor.userId);
    expect(balances.depositCents).toBe(100_000 - heldSum);
    expect(balances.depositCents).toBeGreaterThanOrEqual(0);
    expect(balances.investmentHoldCents).toBe(heldSum);
    // every refused hold was refused for want of money: none would have fitted after the others
    expect(Math.min(...refused.map((_, i) => amounts[results.indexOf(refused[i])]))).toBeGreaterThan(
      balances.depositCents,
    );
  });
});

describe('idempotency', () => {
  it('the same hold twice -> one effect; the same key with another payload -> refused, nothing moves', async () => {
    const investor = await h.user();
    await h.fund(investor, '500');
    const holdId = `inv-${randomUUID()}`;
    const request = { userId: investor.userId, holdId, purpose: INVEST, amountCents: 20000 };
    const [a, b] = await Promise.all([h.call('placeHold', request), h.call('placeHold', request)]);
    const c = await h.call('placeHold', request);
    expect(a.transactionId).toBe(b.transactionId);
    expect(c.transactionId).toBe(a.transactionId);
    expect(await h.balances(investor.userId)).toMatchObject({
      depositCents: 30000,
      investmentHoldCents: 20000,
    });

    await expectStatus(
      h.call('placeHold', { ...request, amountCents: 20001 }),
      grpc.status.ALREADY_EXISTS,
      'Idempotency key reused with a different request',
    );
    await expectStatus(
      h.call('placeHold', { ...request, purpose: WITHDRAW }),
      grpc.status.ALREADY_EXISTS,
      'Idempotency key reused with a different request',
    );
    expect(await h.balances(investor.userId)).toMatchObject({
      depositCents: 30000,
      investmentHoldCents: 20000,
    });
    expect(
      (await h.call('listTransactions', { caller: investor.caller, callerRole: 'subscriber' })).total,
    ).toBe(2);
  });

  it('an admin adjustment retried with its key moves money once; the key with another amount is refused', async () => {
    const investor = await h.user();
    const key = `adj-${randomUUID()}`;
    const request = {
      caller: h.admin.caller,
      callerRole: 'admin',
      userId: investor.userId,
      idempotencyKey: key,
      account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
      operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      amount: '10',
    };
    await h.call('adjustBalance', request);
    expect(await h.call('adjustBalance', request)).toMatchObject({ depositCents: 1000 });
    await expectStatus(
      h.call('adjustBalance', { ...request, amount: '11' }),
      grpc.status.ALREADY_EXISTS,
      'Idempotency key reused with a different request',
    );
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 1000 });
  });

  it('a deposit created twice with the same key is one deposit; the same key with another amount is refused', async () => {
    const investor = await h.user();
    const key = `dep-${randomUUID()}`;
    const as = {
      caller: investor.caller,
      callerRole: 'subscriber',
      emailVerified: true,
      idempotencyKey: key,
    };
    const [a, b] = await Promise.all([
      h.call('createDeposit', { ...as, amount: '20' }),
      h.call('createDeposit', { ...as, amount: '20' }),
    ]);
    expect(a.depositId).toBe(key);
    expect(b.depositId).toBe(key);
    await expectStatus(
      h.call('createDeposit', { ...as, amount: '21' }),
      grpc.status.ALREADY_EXISTS,
      'This deposit already exists',
    );
    expect(
      (await h.call('listPendingDeposits', h.asAdmin())).deposits.filter((d) => d.userId === investor.userId),
    ).toHaveLength(1);
    const confirm = () => h.call('confirmDeposit', { ...h.asAdmin(), depositId: key });
    await confirm();
    await expectStatus(confirm(), grpc.status.ALREADY_EXISTS, 'This deposit has already been confirmed');
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 2000 });
  });
});

describe('admin adjustments and active investments', () => {
  it('an admin cannot deduct Total Investment below an active principal, so its settlement never fails', async () => {
    const investor = await h.user();
    await h.fund(investor, '1000');
    const investmentId = `inv-${randomUUID()}`;
    await h.call('placeHold', {
      userId: investor.userId,
      holdId: investmentId,
      purpose: INVEST,
      amountCents: 60000,
    });
    await h.call('captureHold', { userId: investor.userId, holdId: investmentId });
    const deduct = (amount: string) =>
      h.call('adjustBalance', {
        ...h.asAdmin(),
        userId: investor.userId,
        account: BalanceAccount.BALANCE_ACCOUNT_INVESTED,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT,
        amount,
      });
    await expectStatus(
      deduct('0.01'),
      grpc.status.FAILED_PRECONDITION,
      'This deduction would take Total Investment below the principal of active investments',
    );
    expect(await settle600At672(investor.userId, investmentId)).toMatchObject({
      investedCents: 0,
      profitCents: 67200,
    });
  });
});
