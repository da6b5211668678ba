/**
 * Keyset paging of the investment lists: the admin queue (oldest first) and a user's
 * investment history (newest first), through gRPC, against the real ledger (platform testing/pagingSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { expectKeysetPaging } from '@meridian/platform/testing/pagingSpecs';
import { ledgerInvariantProblems } from '../../ledger/src/testing/invariants.js';
import { ADMIN, caller, startStack, type Stack } from './testing/harness.js';

let stack: Stack;
beforeEach(async () => {
  // one user's many pending investments: a cap far above them (the cap is pendingCount.int.spec.ts's)
  stack = await startStack({ env: { INVESTMENT_MAX_PENDING: '1000' } });
});
afterEach(async () => {
  expect(await ledgerInvariantProblems(stack.ledgerStore)).toEqual([]);
  await stack.stop();
});

const invest = (userId: string) => stack.invest(userId);
const admin = { caller: caller(ADMIN.userId), callerRole: 'admin' };

it('pages the pending queue oldest first and the investment history newest first', async () => {
  const users = [0, 1].map(() => `user-${randomUUID()}`);
  for (const u of users) await stack.fund(u, '2000');
  for (let i = 0; i < 6; i++) await invest(users[i % 2]);
  await expectKeysetPaging({
    order: 'asc',
    add: () => invest(users[0]),
    page: async (limit, cursor) => {
      const out = await stack.call('listPending', { ...admin, limit, cursor });
      return { ids: out.investments.map((i) => i.investmentId), nextCursor: out.nextCursor };
    },
  });
  await expectKeysetPaging({
    order: 'desc',
    add: () => invest(users[1]),
    page: async (limit, cursor) => {
      const out = await stack.call('investmentHistory', {
        caller: caller(users[1]),
        callerRole: 'subscriber',
        userId: '',
        limit,
        cursor,
      });
      return { ids: out.investments.map((i) => i.investmentId), nextCursor: out.nextCursor };
    },
  });
});
