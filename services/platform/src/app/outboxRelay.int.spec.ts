import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '../adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { EventBus } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { busEvent } from '../testing/eventBus.conformance.js';
import { sqliteReplicaStores } from '../testing/replicaStores.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import { subscribeIdempotent } from './consumer.js';
import { LeaseLostError, type LeaseSettings } from './lease.js';
import { startOutboxRelay, type OutboxRelay } from './outboxRelay.js';

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
      const doc = (await tx.get<{ cents: number; count: number }>('totals', event.streamId)) ?? {
        cents: 0,
        count: 0,
      };
      await tx.put('totals', event.streamId, {
        cents: doc.cents + (event.data as { cents: number }).cents,
        count: doc.count + 1,
      });
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
      map: (e) =>
        e.type === 'Secret' ? null : { type: `${e.type}V1`, data: { ...(e.data as object), public: true } },
    });
    await store.transaction(async (tx) => {
      await tx.appendToStream(
        's1',
        0,
        [
          { type: 'Opened', data: { n: 1 } },
          { type: 'Secret', data: {} },
        ],
        meta,
      );
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
    await waitFor(
      async () => (await consumerStore.get<{ count: number }>('totals', 'acct-1'))?.count === 2,
      'both deposits applied',
    );
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
    const sub = await startTotals(bus, topic, consumerStore);
    const counting = await bus.subscribe({
      topic,
      group: 'raw',
      handler: async (e) => void deliveries.push(e.id),
    });

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
    const relay = startOutboxRelay({
      store,
      bus: flaky,
      topic: 't',
      onError: (_e, attempt) => errors.push(attempt),
    });
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

describe('outbox relays of several replicas (one publisher, elected by a lease)', () => {
  const topic = 'meridian.ledger.events';
  const checkpointName = `outbox:${topic}`;

  /** Two replicas of one service: two store instances on one SQLite file, two buses on one bus file. */
  function twoReplicas() {
    const stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
    const busPath = join(dir.path, `${randomUUID()}-bus.sqlite`);
    const buses = [createInProcEventBus({ path: busPath }), createInProcEventBus({ path: busPath })];
    const consumerStore = createSqliteServiceStore(':memory:');
    const stops: Array<() => Promise<unknown>> = [];
    return {
      stores,
      buses,
      consumerStore,
      stops,
      async close() {
        for (const s of stops.reverse()) await s();
        await Promise.all([
          ...buses.map((b) => b.close()),
          ...stores.map((s) => s.close()),
          consumerStore.close(),
        ]);
      },
    };
  }

  /** Every message on the topic, by event id (a double publish shows as 2). */
  async function countDeliveries(bus: EventBus) {
    const seen = new Map<string, number>();
    const sub = await bus.subscribe({
      topic,
      group: 'raw',
      handler: async (e) => void seen.set(e.id, (seen.get(e.id) ?? 0) + 1),
    });
    return { seen, sub };
  }

  const deposit = (store: ServiceStore) => appendDeposits(store, `acct-${randomUUID()}`, [100]);

  /** Two replicas, each running a relay with `lease` (stopped at the end, whatever the case stopped itself). */
  async function withRelays(
    lease: LeaseSettings,
    run: (r: ReturnType<typeof twoReplicas>, relays: OutboxRelay[]) => Promise<void>,
  ) {
    const r = twoReplicas();
    try {
      const relays = r.stores.map((store, i) => startOutboxRelay({ store, bus: r.buses[i], topic, lease }));
      r.stops.push(...relays.map((relay) => () => relay.stop()));
      await run(r, relays);
    } finally {
      await r.close();
    }
  }

  it('two relays on one store publish each event exactly once, whichever replica appended it', () =>
    withRelays({ ttlMs: 2_000, pollMs: 20 }, async (r, relays) => {
      const { seen, sub } = await countDeliveries(r.buses[0]);
      r.stops.unshift(() => sub.stop());
      await Promise.all(Array.from({ length: 40 }, (_, i) => deposit(r.stores[i % 2])));
      await Promise.all(relays.map((relay) => relay.flush())); // the standby waits for the holder's checkpoint
      await waitFor(() => seen.size === 40, 'all 40 delivered');
      expect(relays.filter((relay) => relay.isPublisher())).toHaveLength(1);
      expect(r.buses[0].size(topic)).toBe(40);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(await r.stores[1].getCheckpoint(checkpointName)).toBe(40);
    }));

  it('the holder is killed (no release): the standby takes over within about a ttl; nothing lost or doubled', () => {
    const ttlMs = 400;
    return withRelays({ ttlMs, pollMs: 20 }, async (r, relays) => {
      const sub = await startTotals(r.buses[0], topic, r.consumerStore);
      r.stops.push(() => sub.stop());
      for (let i = 0; i < 10; i++) await deposit(r.stores[i % 2]);
      await waitFor(() => relays.some((relay) => relay.isPublisher()), 'a publisher elected');
      const holder = relays.findIndex((relay) => relay.isPublisher());
      const survivor = 1 - holder;
      await relays[holder].flush();

      await relays[holder].stop({ release: false }); // the process dies: its lease is left to expire
      const killedAt = Date.now();
      for (let i = 0; i < 10; i++) await deposit(r.stores[survivor]);
      await relays[survivor].flush(10_000);
      expect(relays[survivor].isPublisher()).toBe(true);
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(ttlMs / 3); // it waited for the lease to expire (not a 20 ms poll)

      await waitFor(() => r.buses[0].committed('totals', topic) === 20, 'consumer caught up');
      expect(r.buses[0].size(topic)).toBe(20); // published once each
      expect(await r.stores[survivor].getCheckpoint(checkpointName)).toBe(20);
      expect(await r.consumerStore.count('totals')).toBe(20);
    });
  });

  it('a clean stop releases the lease: the standby takes over at once, long before the ttl', () =>
    withRelays({ ttlMs: 60_000, pollMs: 20 }, async (r, relays) => {
      await deposit(r.stores[0]);
      await relays[0].flush();
      const holder = relays.findIndex((relay) => relay.isPublisher());
      const survivor = 1 - holder;
      await relays[holder].stop();
      await deposit(r.stores[survivor]);
      await relays[survivor].flush(3_000);
      expect(relays[survivor].isPublisher()).toBe(true);
      expect(r.buses[0].size(topic)).toBe(2);
    }));

  it('fencing: a relay paused past its lease publishes its batch again but cannot move the checkpoint', async () => {
    const r = twoReplicas();
    try {
      const ttlMs = 300;
      // replica A can be cut off: its store transactions (lease renewals, checkpoint) and its publishes wait
      let heal!: () => void;
      let cut: Promise<void> | null = null;
      let attemptsA = 0;
      const storeA: ServiceStore = {
        ...r.stores[0],
        transaction: async (fn) => {
          if (cut) await cut;
          return r.stores[0].transaction(fn);
        },
      };
      const busA: EventBus = {
        ...r.buses[0],
        publish: async (t, events) => {
          attemptsA++;
          if (cut) await cut;
          return r.buses[0].publish(t, events);
        },
      };
      const errorsA: unknown[] = [];
      const relayA = startOutboxRelay({
        store: storeA,
        bus: busA,
        topic,
        lease: { ttlMs, pollMs: 20 },
        pollIntervalMs: 20,
        onError: (e) => errorsA.push(e),
      });
      r.stops.push(() => relayA.stop());
      await waitFor(() => relayA.isPublisher(), 'A holds the lease');
      const relayB = startOutboxRelay({
        store: r.stores[1],
        bus: r.buses[1],
        topic,
        lease: { ttlMs, pollMs: 20 },
      });
      r.stops.push(() => relayB.stop());
      const sub = await startTotals(r.buses[1], topic, r.consumerStore);
      r.stops.unshift(() => sub.stop());

      cut = new Promise<void>((resolve) => (heal = resolve));
      await deposit(r.stores[1]);
      await waitFor(() => attemptsA === 1, 'A is publishing when it gets cut off');
      // B takes over once A's lease has gone unrenewed for a ttl, and publishes on
      await waitFor(() => relayB.isPublisher(), { timeoutMs: 5_000, message: 'B took over' });
      await relayB.flush();
      await deposit(r.stores[1]);
      await relayB.flush();
      expect(await r.stores[1].getCheckpoint(checkpointName)).toBe(2);

      // A comes back: its publish goes out (a duplicate), its checkpoint write (1) is fenced off
      cut = null;
      heal();
      await waitFor(() => errorsA.some((e) => e instanceof LeaseLostError), 'A was refused the checkpoint');
      expect(relayA.isPublisher()).toBe(false);
      expect(await r.stores[1].getCheckpoint(checkpointName)).toBe(2);
      expect(r.buses[1].size(topic)).toBe(3); // first event twice: at least once
      await waitFor(() => r.buses[1].committed('totals', topic) === 3, 'consumer caught up');
      expect(await r.consumerStore.count('totals')).toBe(2); // applied once each
      expect(relayB.isPublisher()).toBe(true);
    } finally {
      await r.close();
    }
  });
});
