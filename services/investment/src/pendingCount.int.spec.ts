/**
 * The pending investments counter: kept by the held-request projection in the command's
 * transaction, answered by CountPending without reading the queue (platform testing/pendingCountSpecs.ts); and
 * the cap on one user's pending investments (platform testing/pendingCapSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, it } from 'vitest';
import { expectPendingCounter } from '@meridian/platform/testing/pendingCountSpecs';
import { expectPendingCap } from '@meridian/platform/testing/pendingCapSpecs';
import { investmentView } from './projections/investmentView.js';
import { ADMIN, caller, startStack, type Stack } from './testing/harness.js';

let stack: Stack;
beforeEach(async () => {
  stack = await startStack();
});
afterEach(async () => {
  await stack.stop();
});

it('counts the pending investments through request, approve, reject, replays and a backfill', async () => {
  const userId = `user-${randomUUID()}`;
  await stack.fund(userId, '5000');
  const admin = { caller: caller(ADMIN.userId), callerRole: 'admin' };
  await expectPendingCounter(
    {
      store: stack.store,
      counterId: investmentView.counter.id,
      count: async () => (await stack.call('countPending', admin)).count,
      countAsSubscriber: () =>
        stack.call('countPending', { caller: caller(userId), callerRole: 'subscriber' }),
      listed: async () => (await stack.call('listPending', admin)).investments.length,
      request: (investmentId) => stack.invest(userId, investmentId),
      decide: (investmentId, decision) =>
        stack.call(decision === 'approve' ? 'approveInvestment' : 'rejectInvestment', {
          ...admin,
          investmentId,
        }),
    },
    () => randomUUID(),
  );
});

it('caps the pending investments of one user (5), race-safe, with a clear message', async () => {
  const userId = `user-${randomUUID()}`;
  await stack.fund(userId, '5000');
  await expectPendingCap(
    {
      noun: 'investments',
      request: (investmentId) => stack.invest(userId, investmentId),
      reject: (investmentId) =>
        stack.call('rejectInvestment', { caller: caller(ADMIN.userId), callerRole: 'admin', investmentId }),
    },
    () => randomUUID(),
  );
});
