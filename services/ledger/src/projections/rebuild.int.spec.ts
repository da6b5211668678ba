/**
 * Every read model of the ledger can be dropped and rebuilt from events alone: a realistic run through
 * the gRPC surface (deposits confirmed, rejected and left pending, a referral bonus, holds placed then
 * captured, released or left held, a maturity settled, admin adjustments both ways, refusals), then
 * every collection is snapshotted, dropped and rebuilt — balances, accounts, transactions and deposits
 * from the ledger's own log (rebuildReadModels), the users directory by replaying identity's topic (kept
 * forever) from the beginning through the handler the live consumer uses — and compared.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { grpc } from '@meridian/platform/testing/grpcStatus';
import { dropCollections, replayTopic, snapshotCollections } from '@meridian/platform/testing/readModels';
import { AdjustmentOperation, BalanceAccount, HoldPurpose } from '@meridian/proto/meridian/ledger/v1/ledger';
import { handleIdentityEvent } from '../app/identityEvents.js';
import { COUNTERS } from '@meridian/platform/ports/pendingCount';
import { rebuildReadModels } from '../app/project.js';
import { LEDGER_REASONS } from '../domain/account.js';
import { expectLedgerInvariants } from '../testing/invariants.js';
import { startLedgerHarness } from '../testing/harness.js';
import {
  type BalancesDoc,
  COLLECTIONS,
  type DepositDoc,
  ID_FIELDS,
  PENDING_DEPOSITS,
  pendingDepositCount,
  type TransactionDoc,
  type UserDoc,
} from './views.js';

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const h = await startLedgerHarness();
  try {
    const asAdmin = h.asAdmin();
    const referrer = await h.user({ name: 'Rita Referrer' });
    const referee = await h.user({ name: 'Ray Referee', referredBy: referrer.userId });
    const investor = await h.user({ name: 'Ada' });
    await h.publishIdentity('ProfileUpdated', { userId: investor.userId, fields: ['name'], name: 'Ada L.' });
    await h.settle();

    // deposits: confirmed (the referee's first pays the referrer $5), rejected, left pending
    await h.fund(referee, '300');
    await h.fund(investor, '1000');
    const rejected = await h.requestDeposit(investor, '40');
    await h.call('rejectDeposit', { ...asAdmin, depositId: rejected.depositId, notes: 'no such transfer' });
    const pending = await h.requestDeposit(referee, '25.50');

    // an investment: held, captured, matured and settled; another held then released; one left held
    const hold = (userId: string, purpose: HoldPurpose, amountCents: number) => {
      const holdId = `${purpose === HoldPurpose.HOLD_PURPOSE_INVESTMENT ? 'inv' : 'wd'}-${randomUUID()}`;
      return h.call('placeHold', { userId, holdId, purpose, amountCents }).then(() => holdId);
    };
    const matured = await hold(investor.userId, HoldPurpose.HOLD_PURPOSE_INVESTMENT, 50_000);
    await h.call('captureHold', { userId: investor.userId, holdId: matured });
    await h.call('settleMaturity', {
      userId: investor.userId,
      investmentId: matured,
      principalCents: 50_000,
      maturityAmountCents: 56_000,
    });
    const released = await hold(investor.userId, HoldPurpose.HOLD_PURPOSE_INVESTMENT, 20_000);
    await h.call('releaseHold', { userId: investor.userId, holdId: released });
    await hold(referee.userId, HoldPurpose.HOLD_PURPOSE_INVESTMENT, 10_000);

    // withdrawals on Total Profit: one paid out, one released, one left held
    const paid = await hold(investor.userId, HoldPurpose.HOLD_PURPOSE_WITHDRAWAL, 6_000);
    await h.call('captureHold', { userId: investor.userId, holdId: paid });
    const refunded = await hold(investor.userId, HoldPurpose.HOLD_PURPOSE_WITHDRAWAL, 1_000);
    await h.call('releaseHold', { userId: investor.userId, holdId: refunded });
    await hold(investor.userId, HoldPurpose.HOLD_PURPOSE_WITHDRAWAL, 2_000);

    // admin adjustments both ways; refusals move nothing
    const adjust = (account: BalanceAccount, operation: AdjustmentOperation, amount: string) =>
      h.call('adjustBalance', {
        ...asAdmin,
        userId: referrer.userId,
        account,
        operation,
        amount,
        reason: 'ticket 7',
      });
    await adjust(
      BalanceAccount.BALANCE_ACCOUNT_PROFIT,
      AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
      '12.34',
    );
    await adjust(
      BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
      AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT,
      '1',
    );
    await expect(
      adjust(BalanceAccount.BALANCE_ACCOUNT_INVESTED, AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT, '1'),
    ).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    await expect(hold(referee.userId, HoldPurpose.HOLD_PURPOSE_INVESTMENT, 1_000_000)).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    });

    await h.settle();
    await h.service.stop();
    const before = await snapshotCollections(h.store, ID_FIELDS);

    // the run covers what the rebuild must restore
    const balances = new Map((before.balances as BalancesDoc[]).map((b) => [b.userId, b]));
    expect(balances.get(referrer.userId)).toMatchObject({ depositCents: 400, profitCents: 1234 });
    expect(balances.get(referee.userId)).toMatchObject({ depositCents: 20_000, investmentHoldCents: 10_000 });
    expect(balances.get(investor.userId)).toMatchObject({
      depositCents: 50_000,
      investedCents: 0,
      profitCents: 48_000,
      withdrawalHoldCents: 2_000,
      investmentHoldCents: 0,
    });
    expect(new Set((before.transactions as TransactionDoc[]).map((t) => t.reason))).toEqual(
      new Set(LEDGER_REASONS),
    );
    expect((before.deposits as DepositDoc[]).map((d) => d.status).sort()).toEqual([
      'Confirmed',
      'Confirmed',
      'Pending',
      'Rejected',
    ]);
    expect((before.deposits as DepositDoc[]).find((d) => d.depositId === pending.depositId)).toBeDefined();
    expect((before.users as UserDoc[]).find((u) => u.userId === investor.userId)?.name).toBe('Ada L.');
    expect(before.users).toHaveLength(3);
    expect(before.accounts.length).toBeGreaterThan(0);

    const pendingBefore = await pendingDepositCount(h.store);
    expect(pendingBefore).toBe(
      (before.deposits as DepositDoc[]).filter((d) => d.status === 'Pending').length,
    );
    const logEnd = await h.store.lastPosition();
    await dropCollections(h.store, ID_FIELDS);
    for (const c of Object.values(COLLECTIONS)) expect(await h.store.count(c)).toBe(0);

    // balances, accounts, transactions, deposits: the ledger's own log alone
    expect(await rebuildReadModels(h.store)).toBe(logEnd);
    // users: identity's topic replayed from the beginning (a fresh group) through the live handler
    const identityTopic = topicOf('identity');
    await replayTopic(h.bus, h.store, identityTopic, h.bus.size(identityTopic), (event, tx) =>
      handleIdentityEvent(event, tx, new Date()),
    );

    expect(await snapshotCollections(h.store, ID_FIELDS)).toEqual(before);
    // the queue's counter is rebuilt with the deposits, not counted on top of the old one
    expect(await h.store.get(COUNTERS, PENDING_DEPOSITS.id)).toMatchObject({ count: pendingBefore });
    expect(await h.store.lastPosition()).toBe(logEnd); // replaying decided nothing new
    await expectLedgerInvariants(h.store);
  } finally {
    await h.stop();
  }
});
