import { describe, expect, it } from 'vitest';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { ledgerPerTest } from './testing/harness.js';
import { userRegistered } from './testing/ledgerClient.js';
import { AdjustmentOperation, BalanceAccount } from '@meridian/proto/meridian/ledger/v1/ledger';

const h = ledgerPerTest();
const asAdmin = () => h.asAdmin();

describe('deposits through gRPC', () => {
  it('create -> pending list (with name and email) -> confirm -> Deposit Balance credited', async () => {
    const investor = await h.user({ name: 'Ada Investor', email: 'ada@example.com' });
    await h.settle();
    const created = await h.requestDeposit(investor, '150.25');
    expect(created).toMatchObject({
      userId: investor.userId,
      amountCents: 15025,
      status: 'Pending',
      userName: 'Ada Investor',
      userEmail: 'ada@example.com',
    });

    const pending = await h.call('listPendingDeposits', asAdmin());
    expect(pending.deposits.map((d) => d.depositId)).toContain(created.depositId);
    expect(pending.deposits.find((d) => d.depositId === created.depositId)).toMatchObject({
      userName: 'Ada Investor',
      userEmail: 'ada@example.com',
    });

    const confirmed = await h.call('confirmDeposit', {
      ...asAdmin(),
      depositId: created.depositId,
      notes: 'seen on chain',
    });
    expect(confirmed).toMatchObject({
      status: 'Confirmed',
      notes: 'seen on chain',
      decidedBy: h.admin.userId,
    });
    expect(await h.balances(investor.userId)).toMatchObject({
      depositCents: 15025,
      investedCents: 0,
      profitCents: 0,
    });
    expect((await h.call('listPendingDeposits', asAdmin())).deposits.map((d) => d.depositId)).not.toContain(
      created.depositId,
    );

    // the owner sees it; another investor does not; history shows the posting
    expect(
      await h.call('getDeposit', {
        caller: investor.caller,
        callerRole: 'subscriber',
        depositId: created.depositId,
      }),
    ).toMatchObject({ status: 'Confirmed' });
    const other = await h.user();
    await expectStatus(
      h.call('getDeposit', { caller: other.caller, callerRole: 'subscriber', depositId: created.depositId }),
      grpc.status.NOT_FOUND,
      'Deposit not found',
    );
    const history = await h.call('listTransactions', { caller: investor.caller, callerRole: 'subscriber' });
    expect(history.transactions).toHaveLength(1);
    expect(history.transactions[0]).toMatchObject({
      reason: 'deposit_confirmed',
      depositId: created.depositId,
    });
    expect(
      (await h.call('listUserDeposits', { caller: investor.caller, callerRole: 'subscriber' })).deposits,
    ).toHaveLength(1);
  });

  it('reject moves nothing, and a second decision is refused', async () => {
    const investor = await h.user();
    const created = await h.requestDeposit(investor, '40');
    const rejected = await h.call('rejectDeposit', {
      ...asAdmin(),
      depositId: created.depositId,
      notes: 'no such transfer',
    });
    expect(rejected).toMatchObject({ status: 'Rejected', notes: 'no such transfer' });
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 0 });
    expect((await h.call('listTransactions', { ...asAdmin(), userId: investor.userId })).total).toBe(0);
    await expectStatus(
      h.call('confirmDeposit', { ...asAdmin(), depositId: created.depositId }),
      grpc.status.ALREADY_EXISTS,
      'This deposit has already been rejected',
    );
    await expectStatus(
      h.call('rejectDeposit', { ...asAdmin(), depositId: created.depositId }),
      grpc.status.ALREADY_EXISTS,
      'This deposit has already been rejected',
    );
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 0 });
  });

  it('two admins deciding the same deposit at once: exactly one wins, the other gets a clear error', async () => {
    for (const [a, b] of [
      ['confirmDeposit', 'confirmDeposit'],
      ['confirmDeposit', 'rejectDeposit'],
    ] as const) {
      const investor = await h.user();
      const created = await h.requestDeposit(investor, '100');
      const second = { caller: { ...h.admin.caller, userId: 'admin-two' }, callerRole: 'admin' };
      const results = await Promise.allSettled([
        h.call(a, { ...asAdmin(), depositId: created.depositId }),
        h.call(b, { ...second, depositId: created.depositId }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const status = (won[0] as PromiseFulfilledResult<{ status: string }>).value.status;
      expect(lost[0].reason).toMatchObject({
        code: grpc.status.ALREADY_EXISTS,
        details:
          status === 'Confirmed'
            ? 'This deposit has already been confirmed'
            : 'This deposit has already been rejected',
      });
      expect((await h.balances(investor.userId)).depositCents).toBe(status === 'Confirmed' ? 10000 : 0);
    }
  });

  it('refuses what the rules refuse: unverified email, bad amounts, non-admins', async () => {
    const investor = await h.user();
    const as = { caller: investor.caller, callerRole: 'subscriber' };
    await expectStatus(
      h.call('createDeposit', { ...as, amount: '10', emailVerified: false }),
      grpc.status.FAILED_PRECONDITION,
      'Please verify your email before making a deposit',
    );
    for (const [amount, refusal] of [
      ['10.123', 'Amount can have at most 2 decimal places'],
      ['0', 'Deposit amount must be greater than zero'],
      ['1000000.01', 'The maximum deposit is $1,000,000'],
    ]) {
      await expectStatus(h.requestDeposit(investor, amount), grpc.status.INVALID_ARGUMENT, refusal);
    }
    await expectStatus(
      h.call('createDeposit', {
        caller: { userId: '', sessionId: '', impersonatorId: '', correlationId: '' },
        amount: '10',
        emailVerified: true,
      }),
      grpc.status.UNAUTHENTICATED,
      'Not authenticated',
    );
    const created = await h.requestDeposit(investor, '1000000');
    await expectStatus(
      h.call('listPendingDeposits', as),
      grpc.status.PERMISSION_DENIED,
      'Not authorized, admin only',
    );
    await expectStatus(
      h.call('confirmDeposit', { ...as, depositId: created.depositId }),
      grpc.status.PERMISSION_DENIED,
      'Not authorized, admin only',
    );
    await expectStatus(
      h.call('confirmDeposit', { ...asAdmin(), depositId: 'nope' }),
      grpc.status.NOT_FOUND,
      'Deposit not found',
    );
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 0 });
  });
});

describe('admin adjustments', () => {
  it('add and deduct on deposit / invested / profit against the adjustment account; a deduct past zero is refused', async () => {
    const investor = await h.user();
    const adjust = (account: BalanceAccount, operation: AdjustmentOperation, amount: string) =>
      h.call('adjustBalance', {
        ...asAdmin(),
        userId: investor.userId,
        account,
        operation,
        amount,
        reason: 'support ticket 42',
      });
    await adjust(
      BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
      AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      '25.50',
    );
    await adjust(
      BalanceAccount.BALANCE_ACCOUNT_INVESTED,
      AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      '100',
    );
    const after = await adjust(
      BalanceAccount.BALANCE_ACCOUNT_PROFIT,
      AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      '7',
    );
    expect(after).toMatchObject({ depositCents: 2550, investedCents: 10000, profitCents: 700 });
    expect(
      await adjust(
        BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT,
        '5.50',
      ),
    ).toMatchObject({ depositCents: 2000 });
    await expectStatus(
      adjust(BalanceAccount.BALANCE_ACCOUNT_PROFIT, AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT, '7.01'),
      grpc.status.FAILED_PRECONDITION,
      'Insufficient balance for this deduction',
    );
    await expectStatus(
      h.call('adjustBalance', {
        caller: investor.caller,
        callerRole: 'subscriber',
        userId: investor.userId,
        account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: '1',
      }),
      grpc.status.PERMISSION_DENIED,
      'Not authorized, admin only',
    );
    expect(await h.balances(investor.userId)).toMatchObject({
      depositCents: 2000,
      investedCents: 10000,
      profitCents: 700,
    });
    const history = await h.call('listTransactions', { ...asAdmin(), userId: investor.userId });
    expect(history.transactions).toHaveLength(4);
    expect(
      history.transactions.every(
        (t) =>
          t.reason === 'admin_adjustment' && t.adminId === h.admin.userId && t.memo === 'support ticket 42',
      ),
    ).toBe(true);
    expect(history.transactions[0].entries).toEqual(
      expect.arrayContaining([
        { accountId: 'platform:adjustment', amountCents: 550 },
        { accountId: `user:${investor.userId}:deposit`, amountCents: -550 },
      ]),
    );
  });

  it('refuses the balances of an unknown or deleted user with a clear message', async () => {
    const adjust = (userId: string) =>
      h.call('adjustBalance', {
        ...asAdmin(),
        userId,
        account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: '10',
      });
    await expectStatus(adjust('no-such-user'), grpc.status.NOT_FOUND, 'User not found or deleted');

    const investor = await h.user();
    expect(await adjust(investor.userId)).toMatchObject({ depositCents: 1000 });
    await h.publishIdentity('UserDeleted', { userId: investor.userId, deletedBy: h.admin.userId });
    await h.settle();
    await expectStatus(adjust(investor.userId), grpc.status.NOT_FOUND, 'User not found or deleted');
    expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 1000 });
  });

  it('a user identity knows but the ledger has not heard of yet: UNAVAILABLE (retry), never not found; applied once after', async () => {
    const late = await h.user({ register: false });
    // identity registered them (their personal-data key exists); UserRegistered has not reached the ledger
    await h.personalData.seal(late.userId, 'Late Investor');
    const adjust = () =>
      h.call('adjustBalance', {
        ...asAdmin(),
        userId: late.userId,
        account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: '7',
        idempotencyKey: `late-${late.userId}`,
      });
    await expectStatus(
      adjust(),
      grpc.status.UNAVAILABLE,
      'The ledger is still catching up with this new user, please try again in a moment',
    );
    expect(await h.balances(late.userId)).toMatchObject({ depositCents: 0 });
    await h.publishIdentity(
      'UserRegistered',
      userRegistered(late.userId, { name: 'Late Investor', email: `${late.userId}@example.com` }),
    );
    await h.settle();
    expect(await adjust()).toMatchObject({ depositCents: 700 });
    expect(await adjust()).toMatchObject({ depositCents: 700 }); // the client's retry: the same key, once
  });
});
