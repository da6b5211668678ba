/**
 * Keyset paging of the pending KYC queue, oldest submission first, through gRPC
 * (platform testing/pagingSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { expectKeysetPaging } from '@meridian/platform/testing/pagingSpecs';
import { startKycHarness, type KycHarness } from './testing/harness.js';
import { SAMPLES } from './testing/samples.js';

let h: KycHarness;
beforeEach(async () => {
  h = await startKycHarness();
});
afterEach(async () => {
  await h.stop();
});

const submit = async () => {
  const userId = `user-${randomUUID()}`;
  const res = await h.upload(
    userId,
    { front: SAMPLES.png, back: SAMPLES.pdf },
    { name: 'Ada Lovelace', email: `${userId}@example.com` },
  );
  expect(res.status).toBe(200);
  return userId;
};

it('pages the pending KYC queue oldest first', async () => {
  for (let i = 0; i < 5; i++) await submit();
  await expectKeysetPaging({
    order: 'asc',
    add: submit,
    page: async (limit, cursor) => {
      const out = await h.call('listPending', { ...h.asAdmin(), limit, cursor });
      return { ids: out.pendingUsers.map((p) => p.userId), nextCursor: out.nextCursor };
    },
  });
});
