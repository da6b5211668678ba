import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '../adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { EventBus } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { busEvent } from '../testing/eventBus.conformance.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import { subscribeIdempotent } from './consumer.js';
import { startOutboxRelay } from './outboxRelay.js';

const dir = tempDir('meridian-relay-');
afterAll(() => dir.remove());

const meta = { correlationId: 'corr' };

async function appendDeposits(store: ServiceStore, streamId: string, amounts: number[]) {
  const { version } = await store.readStream(streamId);
  await store.transaction((tx) =>
    tx.appendToStream(
      streamId,
      version,
      amounts.map((cents) => ({ type: 'Deposited', data: { cents } })),
      meta,
    ),
  );
}

/** A consumer whose effect is a running total in its own store (the effect must happen once per event). */
async function startTotals(bus: EventBus, topic: string, consumerStore: ServiceStore) {
  return subscribeIdempotent({
    bus,
    store: consumerStore,
    topic,
    group: 'totals',
    handle: async (event, tx) => {
      if (event.type !== 'Deposited') return;
      const doc = (await tx.get<{ cents: number; count: number }>('totals', event.streamId)) ?? { cents: 0, count: 0 };
      await tx.put('totals', event.streamId, { cents: doc.cents + (event.data as { cents: number }).cents, count: doc.count + 1 });
    },
  });
}

describe('outbox relay + idempotent consumer', () => {
  it('publishes appended events in order, and maps or hides them', async () => {
    const store = createSqliteServiceStore(':memory:');
    const bus = createInProcEventBus({ path: ':memory:' });
    const topic = 'meridian.test.events';
    const got: StoredEvent[] = [];
    const sub = await bus.subscribe({ topic, group: 'g', handler: async (e) => void got.push(e) });
    const relay = startOutboxRelay({
      store,
      bus,
      topic,
      map: (e) => (e.type === 'Secret' ? null : { type: `${e.type}V1`, data: { ...(e.data as object), public: true } }),
    });
    await store.transaction(async (tx) => {
      await tx.appendToStream('s1', 0, [{ type: 'Opened', data: { n: 1 } }, { type: 'Secret', data: {} }], meta);
      await tx.appendToStream('s2', 0, [{ type: 'Opened', data: { n: 2 } }], meta);
    });
    await relay.flush();
    await waitFor(() => got.length === 2, 'two public events delivered');
    expect(got.map((e) => [e.type, e.streamId, e.data])).toEqual([
      ['OpenedV1', 's1', { n: 1, public: true }],
      ['OpenedV1', 's2', { n: 2, public: true }],
    ]);
    const source = await store.readAll(0, 10);
    expect(got[0].id).toBe(source[0].id);
    expect(got[0].position).toBe(source[0].position);
    expect(await store.getCheckpoint(`outbox:${topic}`)).toBe(3);
    await relay.stop();
    await sub.stop();
    await bus.close();
    await store.close();
  });

  it('loses nothing when the process dies between append and publish (new relay on the same store)', async () => {
    const storePath = join(dir.path, `${randomUUID()}.sqlite`);
    const busPath = join(dir.path, `${randomUUID()}-bus.sqlite`);
    const topic = 'meridian.ledger.events';

    // process 1: events are committed, but the relay never runs (crash before publish)
    const store1 = createSqliteServiceStore(storePath);
    await appendDeposits(store1, 'acct-1', [100, 250]);
    await store1.close();

    // process 2: a new relay on the same files publishes them
    const store2 = createSqliteServiceStore(storePath);
    const bus = createInProcEventBus({ path: busPath });
    const consumerStore = createSqliteServiceStore(':memory:');
    const sub = await startTotals(bus, topic, consumerStore);
    const relay = startOutboxRelay({ store: store2, bus, topic });
    await relay.flush();
    await waitFor(async () => (await consumerStore.get<{ count: number }>('totals', 'acct-1'))?.count === 2, 'both deposits applied');
    expect(await consumerStore.get('totals', 'acct-1')).toEqual({ cents: 350, count: 2 });
    await relay.stop();
    await sub.stop();
    await Promise.all([bus.close(), store2.close(), consumerStore.close()]);
  });

  it('applies each event once when the relay republishes after a crash between publish and checkpoint', async () => {
    const store = createSqliteServiceStore(':memory:');
    const bus = createInProcEventBus({ path: ':memory:' });
    const consumerStore = createSqliteServiceStore(':memory:');
    const topic = 'meridian.ledger.events';
    const deliveries: string[] = [];
    const sub = await subscribeIdempotent({
      bus,
      store: consumerStore,
      topic,
      group: 'totals',
      handle: async (event, tx) => {
        const doc = (await tx.get<{ cents: number; count: number }>('totals', event.streamId)) ?? { cents: 0, count: 0 };
        await tx.put('totals', event.streamId, { cents: doc.cents + (event.data as { cents: number }).cents, count: doc.count + 1 });
      },
    });
    const counting = await bus.subscribe({ topic, group: 'raw', handler: async (e) => void deliveries.push(e.id) });

    await appendDeposits(store, 'acct-9', [100, 200, 300]);
    const relay1 = startOutboxRelay({ store, bus, topic });
    await relay1.flush();
    await relay1.stop();
    // crash after publish but before the checkpoint was recorded: the checkpoint is lost
    await store.transaction((tx) => tx.setCheckpoint(`outbox:${topic}`, 0));
    const relay2 = startOutboxRelay({ store, bus, topic });
    await relay2.flush();
    await waitFor(() => deliveries.length === 6, 'every event delivered twice');
    await waitFor(() => bus.committed('totals', topic) === 6, 'consumer caught up');
    expect(await consumerStore.get('totals', 'acct-9')).toEqual({ cents: 600, count: 3 });

    await relay2.stop();
    await sub.stop();
    await counting.stop();
    await Promise.all([bus.close(), store.close(), consumerStore.close()]);
  });

  it('rolls the effect back and retries when the handler fails, so a failure never skips an event', async () => {
    const store = createSqliteServiceStore(':memory:');
    const bus = createInProcEventBus({ path: ':memory:', retryBaseMs: 1, retryMaxMs: 5 });
    const topic = 't';
    let failures = 0;
    const sub = await subscribeIdempotent({
      bus,
      store,
      topic,
      group: 'c',
      handle: async (event, tx) => {
        await tx.put('seen', event.id, { at: failures });
        if (failures++ < 2) throw new Error('transient');
      },
    });
    const e = busEvent('s', 1);
    await bus.publish(topic, [e]);
    await waitFor(() => bus.committed('c', topic) === 1);
    expect(await store.get('seen', e.id)).toEqual({ at: 2 });
    expect(await store.transaction((tx) => tx.markProcessed('c', e.id))).toBe(false);
    await sub.stop();
    await bus.close();
    await store.close();
  });

  it('retries a failed publish and never moves the checkpoint past unpublished events', async () => {
    const store = createSqliteServiceStore(':memory:');
    const inner = createInProcEventBus({ path: ':memory:' });
    let failures = 0;
    const flaky: EventBus = {
      ...inner,
      publish: async (topic, events) => {
        if (failures < 2) {
          failures++;
          throw new Error('broker down');
        }
        return inner.publish(topic, events);
      },
    };
    const errors: number[] = [];
    const relay = startOutboxRelay({ store, bus: flaky, topic: 't', onError: (_e, attempt) => errors.push(attempt) });
    await appendDeposits(store, 'a', [1, 2]);
    await waitFor(() => errors.length >= 1, 'first publish failed');
    expect(await store.getCheckpoint('outbox:t')).toBe(0);
    await relay.flush();
    expect(errors).toEqual([1, 2]);
    expect(inner.size('t')).toBe(2);
    expect(await store.getCheckpoint('outbox:t')).toBe(2);
    await relay.stop();
    await inner.close();
    await store.close();
  });
});
