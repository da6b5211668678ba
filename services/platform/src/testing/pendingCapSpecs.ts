/**
 * The checks every per-user cap on pending requests passes (ports/pendingCount.ts capPendingOfUser), through
 * its service's gRPC surface: a user's requests pass up to the cap, three sent at once when one place is left
 * leave exactly one more, the next is refused with the clear message, a replay of a recorded request still
 * answers it, and a decided request makes room for one more.
 */
import { expect } from 'vitest';
import { DEFAULT_MAX_PENDING_PER_USER, tooManyPending } from '../ports/pendingCount.js';
import { expectStatus, grpc } from './grpcStatus.js';

export interface CappedRequests {
  /** The requests' noun in the plural, as the refusal says it ("deposits"). */
  noun: string;
  /** Requests one item for the user with `key` (its id or idempotency key: the same key again is a replay); its id. */
  request(key: string): Promise<string>;
  /** Rejects the item (an admin's decision). */
  reject(id: string): Promise<unknown>;
}

export async function expectPendingCap(
  q: CappedRequests,
  keys: () => string,
  max = DEFAULT_MAX_PENDING_PER_USER,
): Promise<void> {
  const refusal = tooManyPending(max, q.noun);
  const first = keys();
  const ids = [await q.request(first)];
  while (ids.length < max - 1) ids.push(await q.request(keys()));

  // one place left, three requests at once: exactly one takes it
  const raced = await Promise.allSettled([q.request(keys()), q.request(keys()), q.request(keys())]);
  expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  for (const r of raced.filter((r) => r.status === 'rejected'))
    await expectStatus(Promise.reject(r.reason), grpc.status.FAILED_PRECONDITION, refusal);

  await expectStatus(q.request(keys()), grpc.status.FAILED_PRECONDITION, refusal);
  // a retry of a request already recorded is answered, not refused
  expect(await q.request(first)).toBe(ids[0]);

  // a decided request is no longer pending: room for one more, and no more
  await q.reject(ids[0]!);
  await q.request(keys());
  await expectStatus(q.request(keys()), grpc.status.FAILED_PRECONDITION, refusal);
}
