/**
 * Maker-checker at the ledger's admin entry points (docs/architecture.md §3a): no admin
 * confirms or rejects their own deposit nor adjusts their own balances, and money commands are refused
 * while an admin impersonates a user. Viewing still works.
 */
import { describe, expect, it } from 'vitest';
import { AdjustmentOperation, BalanceAccount } from '@meridian/proto/meridian/ledger/v1/ledger';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { ledgerPerTest, principal } from '../testing/harness.js';

const h = ledgerPerTest();
const SECOND_ADMIN = '(if you are the only admin, a second admin is needed)';
const IMPERSONATING = 'Money actions are not allowed while impersonating a user';

/** A second admin, known to the ledger as a user (so their own balances exist). */
async function secondAdmin() {
  const registered = await h.user();
  return principal(registered.userId, 'admin');
}

const addOne = (userId: string) => ({
  userId,
  account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
  operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
  amount: '1',
});

describe('maker-checker at the ledger', () => {
  it('an admin cannot confirm or reject their own deposit; another admin can', async () => {
    const other = await secondAdmin();
    const own = await h.requestDeposit(other, '40');
    for (const method of ['confirmDeposit', 'rejectDeposit'] as const)
      await expectStatus(
        h.call(method, { caller: other.caller, callerRole: 'admin', depositId: own.depositId }),
        grpc.status.PERMISSION_DENIED,
        `You cannot decide your own deposit: another admin must review it ${SECOND_ADMIN}`,
      );
    expect((await h.call('listPendingDeposits', h.asAdmin())).deposits.map((d) => d.depositId)).toContain(
      own.depositId,
    );
    expect(await h.call('confirmDeposit', { ...h.asAdmin(), depositId: own.depositId })).toMatchObject({
      status: 'Confirmed',
      decidedBy: h.admin.userId,
    });
    expect(await h.balances(other.userId)).toMatchObject({ depositCents: 4000 });
  });

  it('an admin cannot adjust their own balances; another admin can', async () => {
    const other = await secondAdmin();
    await expectStatus(
      h.call('adjustBalance', { caller: other.caller, callerRole: 'admin', ...addOne(other.userId) }),
      grpc.status.PERMISSION_DENIED,
      `You cannot adjust your own balances: another admin must do it ${SECOND_ADMIN}`,
    );
    expect(await h.balances(other.userId)).toMatchObject({ depositCents: 0 });
    expect(await h.call('adjustBalance', { ...h.asAdmin(), ...addOne(other.userId) })).toMatchObject({
      depositCents: 100,
    });
  });

  it('while impersonating, deposits and balance edits are refused with a clear message; viewing works', async () => {
    const investor = await h.user();
    await h.fund(investor, '25');
    const asImpersonator = {
      caller: { ...investor.caller, impersonatorId: h.admin.userId },
      callerRole: 'subscriber',
    };
    await expectStatus(
      h.call('createDeposit', { ...asImpersonator, amount: '10', emailVerified: true }),
      grpc.status.PERMISSION_DENIED,
      IMPERSONATING,
    );
    await expectStatus(
      h.call('adjustBalance', { ...asImpersonator, callerRole: 'admin', ...addOne(investor.userId) }),
      grpc.status.PERMISSION_DENIED,
      IMPERSONATING,
    );
    expect(await h.call('getBalances', { ...asImpersonator, userId: investor.userId })).toMatchObject({
      depositCents: 2500,
    });
    expect((await h.call('listUserDeposits', asImpersonator)).deposits).toHaveLength(1);
  });
});
