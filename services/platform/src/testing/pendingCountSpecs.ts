/**
 * The checks every admin queue's counter passes (ports/pendingCount.ts), through its service's gRPC surface:
 * the count follows requests and decisions (approve and reject), a replayed request or decision counts
 * nothing twice, it is the queue's length at every step, a store without the counter counts its items
 * once (the read, then the next projection writes it), and only an admin may ask.
 */
import { expect } from 'vitest';
import { COUNTERS } from '../ports/pendingCount.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { expectStatus, grpc } from './grpcStatus.js';
import { waitFor } from './waitFor.js';

export interface CountedQueue {
  store: ServiceStore;
  /** the counter's document id */
  counterId: string;
  /** The count RPC as the admin calls it. */
  count(): Promise<number>;
  /** The count RPC as a subscriber calls it (refused PERMISSION_DENIED). */
  countAsSubscriber(): Promise<unknown>;
  /** The queue's length as its list answers it (the whole list). */
  listed(): Promise<number>;
  /** Requests one item with `key` (its id or idempotency key: the same key again is a replay); its id. */
  request(key: string): Promise<string>;
  /** Decides the item; a replayed decision may throw (the service's refusal), it must not count again. */
  decide(id: string, decision: 'approve' | 'reject'): Promise<unknown>;
}

const settle = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch {
    // a replay the service refuses: what counts is that the queue's size did not move
  }
};

export async function expectPendingCounter(q: CountedQueue, keys: () => string): Promise<void> {
  const expectCount = async (n: number) => {
    // a request joins its queue in the command's transaction or, for a held request, once the ledger
    // holds its funds: wait for the list, then the counter must say the same
    await waitFor(async () => ((await q.listed()) === n ? true : null), {
      timeoutMs: 15_000,
      message: `queue of ${n}`,
    });
    expect(await q.count()).toBe(n);
  };
  await expectCount(0);

  const k = [keys(), keys(), keys(), keys()];
  const ids = [];
  for (const key of k.slice(0, 3)) ids.push(await q.request(key));
  await expectCount(3);
  // a replayed request (same key) is the same item: counted once
  await settle(q.request(k[0]));
  await expectCount(3);

  await q.decide(ids[0], 'approve');
  await expectCount(2);
  await q.decide(ids[1], 'reject');
  await expectCount(1);
  // decisions replayed (either way): nothing moves
  await settle(q.decide(ids[0], 'approve'));
  await settle(q.decide(ids[1], 'reject'));
  await settle(q.decide(ids[0], 'reject'));
  await expectCount(1);

  // backfill: a store whose items predate the counter
  await q.store.transaction((tx) => tx.delete(COUNTERS, q.counterId));
  expect(await q.store.get(COUNTERS, q.counterId)).toBeNull();
  expect(await q.count()).toBe(1); // the read counts the queue
  await q.request(k[3]); // the next projection counts it once and moves the counter from there
  await expectCount(2);
  expect(await q.store.get(COUNTERS, q.counterId)).toMatchObject({ count: 2 });

  await expectStatus(q.countAsSubscriber(), grpc.status.PERMISSION_DENIED);
}
