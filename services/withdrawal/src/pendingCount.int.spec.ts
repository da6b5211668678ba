/**
 * The pending withdrawals counter: kept by the held-request projection in the command's
 * transaction, answered by CountPending without reading the queue (platform testing/pendingCountSpecs.ts); and
 * the cap on one user's pending withdrawals (platform testing/pendingCapSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, it } from 'vitest';
import { expectPendingCounter } from '@meridian/platform/testing/pendingCountSpecs';
import { expectPendingCap } from '@meridian/platform/testing/pendingCapSpecs';
import { withdrawalView } from './projections/withdrawalView.js';
import { ADMIN, caller, startStack, type Stack } from './testing/harness.js';

let stack: Stack;
beforeEach(async () => {
  stack = await startStack();
});
afterEach(async () => {
  await stack.stop();
});

it('counts the pending withdrawals through request, approve, reject, replays and a backfill', async () => {
  const userId = `user-${randomUUID()}`;
  await stack.fund(userId, '5000');
  const admin = { caller: caller(ADMIN.userId), callerRole: 'admin' };
  await expectPendingCounter(
    {
      store: stack.store,
      counterId: withdrawalView.counter.id,
      count: async () => (await stack.call('countPending', admin)).count,
      countAsSubscriber: () =>
        stack.call('countPending', { caller: caller(userId), callerRole: 'subscriber' }),
      listed: async () => (await stack.call('listPending', admin)).withdrawals.length,
      request: (withdrawalId) => stack.requestWithdrawal(userId, withdrawalId),
      decide: (withdrawalId, decision) =>
        stack.call(decision === 'approve' ? 'approveWithdrawal' : 'rejectWithdrawal', {
          ...admin,
          withdrawalId,
        }),
    },
    () => randomUUID(),
  );
});

it('caps the pending withdrawals of one user (5), race-safe, with a clear message', async () => {
  const userId = `user-${randomUUID()}`;
  await stack.fund(userId, '5000');
  await expectPendingCap(
    {
      noun: 'withdrawals',
      request: (withdrawalId) => stack.requestWithdrawal(userId, withdrawalId),
      reject: (withdrawalId) =>
        stack.call('rejectWithdrawal', { caller: caller(ADMIN.userId), callerRole: 'admin', withdrawalId }),
    },
    () => randomUUID(),
  );
});
