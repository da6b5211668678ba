/**
 * Keyset paging of the withdrawal lists: the admin queue (oldest first) and a user's withdrawals
 * (newest first), through gRPC, against the real ledger (held-request testing/queueSpecs.ts); and the
 * queue's paging while its items are decided between pages.
 */
import { randomUUID } from 'node:crypto';
import { it } from 'vitest';
import { heldRequestPagingSpecs } from '@meridian/held-request/testing/queueSpecs';
import { expectNoGapWhenItemsLeave } from '@meridian/platform/testing/pagingSpecs';
import { ADMIN, caller, QUEUE } from './testing/harness.js';

const stack = heldRequestPagingSpecs(QUEUE);

it('items decided between two pages of the queue leave no gap', async () => {
  const admin = { caller: caller(ADMIN.userId), callerRole: 'admin' };
  const u = `user-${randomUUID()}`;
  await stack.fund(u, '1000');
  for (let i = 0; i < 7; i++) await stack.request(u);
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
