import { afterEach, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '../adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { busEvent } from '../testing/eventBus.conformance.js';
import { waitFor } from '../testing/waitFor.js';
import { subscribeIdempotent } from './consumer.js';

const TOPIC = 't';
const GROUP = 'g';

/** A store that counts its top-level transactions. */
function countingStore(): { store: ServiceStore; transactions: () => number; close(): Promise<void> } {
  const inner = createSqliteServiceStore(':memory:');
  let n = 0;
  const store: ServiceStore = {
    ...inner,
    transaction: (fn) => {
      n++;
      return inner.transaction(fn);
    },
  };
  return { store, transactions: () => n, close: () => inner.close() };
}

/** Each handled event adds 1 to the count of its id: exactly-once means every count is 1. */
const countEffect = async (event: StoredEvent, tx: StoreTx) => {
  const doc = await tx.get<{ n: number }>('effects', event.id);
  await tx.put('effects', event.id, { n: (doc?.n ?? 0) + 1 });
};
const effectOf = async (store: ServiceStore, id: string) =>
  (await store.get<{ n: number }>('effects', id))?.n ?? 0;

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function rig(handle: (event: StoredEvent, tx: StoreTx) => Promise<void>, types?: string[]) {
  const bus = createInProcEventBus({ path: ':memory:', retryBaseMs: 2, retryMaxMs: 10, maxAttempts: 3 });
  const counting = countingStore();
  const sub = await subscribeIdempotent({
    bus,
    store: counting.store,
    topic: TOPIC,
    group: GROUP,
    handle,
    types,
  });
  cleanup.push(
    () => counting.close(),
    () => bus.close(),
    () => sub.stop(),
  );
  return { bus, ...counting };
}

describe('subscribeIdempotent', () => {
  it('skips the types it does not handle without a transaction or a marker, and batches the others', async () => {
    const { bus, store, transactions } = await rig(countEffect, ['Wanted']);
    const events = Array.from({ length: 60 }, (_, i) =>
      busEvent(`s${i}`, 1, {}, i % 3 === 0 ? 'Wanted' : 'Other'),
    );
    await bus.publish(TOPIC, events);
    await waitFor(() => bus.committed(GROUP, TOPIC) === 60);
    for (const e of events) expect(await effectOf(store, e.id)).toBe(e.type === 'Wanted' ? 1 : 0);
    // one fetched batch: one transaction for its 20 handled events (not 60, not 20)
    expect(transactions()).toBe(1);
    // the skipped events left no processed marker; the handled ones did
    const other = events.find((e) => e.type === 'Other')!;
    const wanted = events.find((e) => e.type === 'Wanted')!;
    expect(await store.transaction((tx) => tx.markProcessed(GROUP, other.id))).toBe(true);
    expect(await store.transaction((tx) => tx.markProcessed(GROUP, wanted.id))).toBe(false);
  });

  it('a batch with only skipped types opens no transaction at all', async () => {
    const { bus, transactions } = await rig(countEffect, ['Wanted']);
    await bus.publish(TOPIC, [busEvent('a', 1, {}, 'Other'), busEvent('b', 1, {}, 'Other')]);
    await bus.publish(TOPIC, [busEvent('c', 1, {}, 'Other')]);
    await waitFor(() => bus.committed(GROUP, TOPIC) === 3);
    expect(transactions()).toBe(0);
  });

  it('a poison event in a batch is dead-lettered; the others of the batch take effect exactly once', async () => {
    let poisonAttempts = 0;
    const events = Array.from({ length: 10 }, (_, i) => busEvent(`s${i}`, 1));
    const poison = events[4];
    const { bus, store } = await rig(async (event, tx) => {
      await countEffect(event, tx);
      if (event.id === poison.id) {
        poisonAttempts++;
        throw new Error('poison');
      }
    });
    await bus.publish(TOPIC, events);
    await waitFor(() => bus.committed(GROUP, TOPIC) === 10);
    for (const e of events) expect(await effectOf(store, e.id)).toBe(e === poison ? 0 : 1);
    expect(bus.size(`${TOPIC}.dlq`)).toBe(1);
    // once in the batch, then maxAttempts times on its own
    expect(poisonAttempts).toBe(4);
  });

  it('a transient failure rolls its batch back; redelivered one at a time, every event takes effect once', async () => {
    let failed = false;
    const events = Array.from({ length: 10 }, (_, i) => busEvent(`s${i}`, 1));
    const { bus, store } = await rig(async (event, tx) => {
      await countEffect(event, tx);
      if (event.id === events[7].id && !failed) {
        failed = true;
        throw new Error('transient');
      }
    });
    // the same event twice in a batch (a redelivery) still has one effect
    await bus.publish(TOPIC, [...events, events[2]]);
    await waitFor(() => bus.committed(GROUP, TOPIC) === 11);
    expect(failed).toBe(true);
    for (const e of events) expect(await effectOf(store, e.id)).toBe(1);
    expect(bus.size(`${TOPIC}.dlq`)).toBe(0);
  });
});
