/**
 * Keyset paging of the withdrawal lists: the admin queue (oldest first) and a user's
 * withdrawals (newest first), through gRPC, against the real ledger (platform testing/pagingSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { expectKeysetPaging, expectNoGapWhenItemsLeave } from '@meridian/platform/testing/pagingSpecs';
import { ledgerInvariantProblems } from '../../ledger/src/testing/invariants.js';
import { ADMIN, caller, startStack, type Stack } from './testing/harness.js';

let stack: Stack;
beforeEach(async () => {
  // one user's many pending withdrawals: a cap far above them (the cap is pendingCount.int.spec.ts's)
  stack = await startStack({ env: { WITHDRAWAL_MAX_PENDING: '1000' } });
});
afterEach(async () => {
  expect(await ledgerInvariantProblems(stack.ledgerStore)).toEqual([]);
  await stack.stop();
});

const request = (userId: string) => stack.requestWithdrawal(userId);
const admin = { caller: caller(ADMIN.userId), callerRole: 'admin' };

it('pages the pending queue oldest first and a user’s withdrawals newest first', async () => {
  const users = [0, 1].map(() => `user-${randomUUID()}`);
  for (const u of users) await stack.fund(u, '1000');
  for (let i = 0; i < 6; i++) await request(users[i % 2]);
  await expectKeysetPaging({
    order: 'asc',
    add: () => request(users[0]),
    page: async (limit, cursor) => {
      const out = await stack.call('listPending', { ...admin, limit, cursor });
      return { ids: out.withdrawals.map((w) => w.withdrawalId), nextCursor: out.nextCursor };
    },
  });
  await expectKeysetPaging({
    order: 'desc',
    add: () => request(users[1]),
    page: async (limit, cursor) => {
      const out = await stack.call('listUserWithdrawals', {
        caller: caller(users[1]),
        callerRole: 'subscriber',
        userId: '',
        limit,
        cursor,
      });
      return { ids: out.withdrawals.map((w) => w.withdrawalId), nextCursor: out.nextCursor };
    },
  });
});

it('items decided between two pages of the queue leave no gap', async () => {
  const u = `user-${randomUUID()}`;
  await stack.fund(u, '1000');
  for (let i = 0; i < 7; i++) await request(u);
  await expectNoGapWhenItemsLeave({
    page: async (limit, cursor) => {
      const out = await stack.call('listPending', { ...admin, limit, cursor });
      return { ids: out.withdrawals.map((w) => w.withdrawalId), nextCursor: out.nextCursor };
    },
    remove: async (withdrawalId) => {
      await stack.call('approveWithdrawal', { ...admin, withdrawalId });
    },
  });
});
