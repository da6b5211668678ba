/**
 * Keyset paging of the pending KYC queue, oldest submission first, through gRPC
 * (platform testing/pagingSpecs.ts).
 */
import { it } from 'vitest';
import { expectKeysetPaging } from '@meridian/platform/testing/pagingSpecs';
import { kycHarnessPerTest } from './testing/harness.js';

const h = kycHarnessPerTest();

it('pages the pending KYC queue oldest first', async () => {
  for (let i = 0; i < 5; i++) await h.submitCase();
  await expectKeysetPaging({
    order: 'asc',
    add: () => h.submitCase(),
    page: async (limit, cursor) => {
      const out = await h.call('listPending', { ...h.asAdmin(), limit, cursor });
      return { ids: out.pendingUsers.map((p) => p.userId), nextCursor: out.nextCursor };
    },
  });
});
