import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '../adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { EventBus } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import {
  asIs,
  DERIVED,
  fromOpeningEvent,
  integrationMapping,
  type IntegrationMapping,
  withIntegrationEvents,
} from './integrationEvents.js';
import { startOutboxRelay } from './outboxRelay.js';

const dir = tempDir('meridian-integration-');
afterAll(() => dir.remove());

const topic = 'meridian.test.events';
const meta = { correlationId: 'corr' };

/** Opened goes out as AccountOpened with the owner's name from the `owners` read model; Noted stays private. */
const mapping: IntegrationMapping = async (event, reads) => {
  if (event.type !== 'Opened') return null;
  const { owner } = event.data as { owner: string };
  const doc = await reads.get<{ name: string }>('owners', owner);
  return { type: 'AccountOpened', data: { owner, ownerName: doc?.name ?? '' } };
};

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function collect(bus: EventBus) {
  const got: StoredEvent[] = [];
  const sub = bus.subscribe({ topic, group: `g-${randomUUID()}`, handler: async (e) => void got.push(e) });
  stops.push(async () => (await sub).stop());
  return got;
}

function setUp(raw: ServiceStore = createSqliteServiceStore(':memory:')) {
  const bus = createInProcEventBus({ path: ':memory:' });
  const store = withIntegrationEvents(raw, mapping);
  stops.push(
    () => bus.close(),
    () => raw.close(),
  );
  return { raw, store, bus, got: collect(bus) };
}

function relay(store: ServiceStore, bus: EventBus, map?: Parameters<typeof startOutboxRelay>[0]['map']) {
  const r = startOutboxRelay({ store, bus, topic, map, lease: false });
  stops.push(() => r.stop());
  return r;
}

/** A relay whose map is `mapping` (reading `store`) run until flushed: the events it was asked to map. */
async function flushMapping(store: ServiceStore, bus: EventBus, mapping: IntegrationMapping) {
  const mapped: StoredEvent[] = [];
  await relay(store, bus, (e) => {
    mapped.push(e);
    return mapping(e, store);
  }).flush();
  return mapped;
}

describe('integration events built when the domain events are appended', () => {
  it('publishes what the read model said at append time, even after it changed', async () => {
    const { store, bus, got } = setUp();
    await store.transaction(async (tx) => {
      await tx.put('owners', 'u1', { name: 'Ada' });
      await tx.appendToStream('acct-1', 0, [{ type: 'Opened', data: { owner: 'u1' } }], meta);
      await tx.appendToStream('acct-1', 1, [{ type: 'Noted', data: {} }], meta);
    });
    await store.transaction((tx) => tx.put('owners', 'u1', { name: 'Grace' }));
    const r = relay(store, bus);
    await r.flush();
    await waitFor(() => got.length === 1, 'one integration event');
    const [source] = (await store.readStream('acct-1')).events;
    expect(got.map((e) => [e.type, e.data, e.id, e.streamId, e.version])).toEqual([
      ['AccountOpened', { owner: 'u1', ownerName: 'Ada' }, source.id, 'acct-1', 1],
    ]);
    expect('integration' in got[0]).toBe(false);
  });

  it('maps at the end of the transaction that appended: its own read-model writes are seen', async () => {
    const { store, bus, got } = setUp();
    await store.transaction(async (tx) => {
      await tx.appendToStream('acct-2', 0, [{ type: 'Opened', data: { owner: 'u2' } }], meta);
      await tx.put('owners', 'u2', { name: 'Lin' });
    });
    await relay(store, bus).flush();
    await waitFor(() => got.length === 1, 'one integration event');
    expect(got[0].data).toEqual({ owner: 'u2', ownerName: 'Lin' });
  });

  it('publishes nothing for an append that rolls back, whole or in a failed nested transaction', async () => {
    const { store, bus, got } = setUp();
    await expect(
      store.transaction(async (tx) => {
        await tx.appendToStream('acct-3', 0, [{ type: 'Opened', data: { owner: 'u3' } }], meta);
        throw new Error('decided otherwise');
      }),
    ).rejects.toThrow('decided otherwise');
    await store.transaction(async (tx) => {
      await expect(
        store.transaction(async (inner) => {
          await inner.appendToStream('acct-4', 0, [{ type: 'Opened', data: { owner: 'u4' } }], meta);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await tx.appendToStream('acct-5', 0, [{ type: 'Opened', data: { owner: 'u5' } }], meta);
    });
    await relay(store, bus).flush();
    await waitFor(() => got.length === 1, 'the committed one');
    expect(got.map((e) => e.streamId)).toEqual(['acct-5']);
  });

  it('never maps recorded events again at publish time: the relay map is for unrecorded ones only', async () => {
    const { raw, store, bus, got } = setUp();
    await raw.transaction((tx) =>
      tx.appendToStream('old-1', 0, [{ type: 'Opened', data: { owner: 'u6' } }], meta),
    );
    await store.transaction((tx) =>
      tx.appendToStream('new-1', 0, [{ type: 'Opened', data: { owner: 'u6' } }], meta),
    );
    await store.transaction((tx) => tx.put('owners', 'u6', { name: 'Now' }));
    const mapped = await flushMapping(store, bus, mapping);
    await waitFor(() => got.length === 2, 'both');
    expect(mapped.map((e) => e.streamId)).toEqual(['old-1']);
    expect(got.map((e) => [e.streamId, (e.data as { ownerName: string }).ownerName])).toEqual([
      ['old-1', 'Now'],
      ['new-1', ''],
    ]);
  });

  it('a store of the version before: its unpublished events go out once through the map, the published never again', async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    // the file as the version before wrote it: no integration column, two events, the first published
    const old = new Database(path);
    old.exec(`
      CREATE TABLE events (
        position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
        version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, occurred_at TEXT NOT NULL,
        correlation_id TEXT NOT NULL, causation_id TEXT, actor TEXT, UNIQUE (stream_id, version));
      CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO checkpoints VALUES ('outbox:${topic}', 1);
    `);
    const insert = old.prepare(
      `INSERT INTO events (id, stream_id, version, type, data, occurred_at, correlation_id)
       VALUES (?, ?, 1, 'Opened', ?, '2024-01-01T00:00:00.000Z', 'c')`,
    );
    insert.run('published-before', 'acct-a', JSON.stringify({ owner: 'ua' }));
    insert.run('pending-before', 'acct-b', JSON.stringify({ owner: 'ub' }));
    old.close();

    const { store, bus, got } = setUp(createSqliteServiceStore(path));
    await store.transaction((tx) =>
      tx.appendToStream('acct-c', 0, [{ type: 'Opened', data: { owner: 'uc' } }], meta),
    );
    await relay(store, bus, (e) => mapping(e, store)).flush();
    await waitFor(() => got.length === 2, 'the pending one and the new one');
    expect(got.map((e) => [e.id, e.type])).toEqual([
      ['pending-before', 'AccountOpened'],
      [(await store.readStream('acct-c')).events[0].id, 'AccountOpened'],
    ]);
    expect(await store.getCheckpoint(`outbox:${topic}`)).toBe(3);
  });
});

describe('a mapping by domain event type', () => {
  type Event =
    | { type: 'Requested'; data: { id: string; amountCents: number } }
    | { type: 'Placed'; data: { id: string } }
    | { type: 'Noted'; data: { text: string } };
  const mappingByType = integrationMapping<Event>({
    Requested: null,
    Placed: fromOpeningEvent<Extract<Event, { type: 'Requested' }>, object>(
      'RequestPlaced',
      async (reads, data) => ({
        ...data,
        note: (await reads.get<{ text: string }>('notes', data.id))?.text ?? '',
      }),
    ),
    Noted: asIs<{ text: string }>(),
  });

  it('publishes by rule, keeps private what has none, and a type it does not know (a former name) private', async () => {
    const store = createSqliteServiceStore(':memory:');
    stops.push(() => store.close());
    await store.transaction(async (tx) => {
      await tx.put('notes', 'r1', { text: 'then' });
      await tx.appendToStream('r-1', 0, [{ type: 'OldRequested', data: { id: 'r1', amountCents: 5 } }], meta);
      await tx.appendToStream('r-1', 1, [{ type: 'Placed', data: { id: 'r1' } }], meta);
      await tx.appendToStream('n-1', 0, [{ type: 'Noted', data: { text: 'hi' } }], meta);
    });
    const events = [...(await store.readStream('r-1')).events, ...(await store.readStream('n-1')).events];
    expect(await Promise.all(events.map((e) => mappingByType(e, store)))).toEqual([
      null,
      { type: 'RequestPlaced', data: { id: 'r1', amountCents: 5, note: 'then' } },
      { type: 'Noted', data: { text: 'hi' } },
    ]);
  });
});

describe('integration events recorded at the insert', () => {
  it('rules that read nothing are recorded with the insert (no second write) as derived; reading rules at the end', async () => {
    const raw = createSqliteServiceStore(':memory:');
    stops.push(() => raw.close());
    const rules = integrationMapping<
      | { type: 'Opened'; data: { owner: string } }
      | { type: 'Noted'; data: { text: string } }
      | { type: 'Closed'; data: { owner: string } }
    >({
      // reads nothing: the event determines it, so the outbox keeps no copy and the relay derives it
      Opened: ({ data }) => ({ type: 'AccountOpened', data: { ...data, shout: data.owner.toUpperCase() } }),
      Noted: null,
      // reads the transaction: mapped at its end, after the read-model write below
      Closed: async (event, reads) => ({
        type: 'AccountClosed',
        data: { ...event.data, name: (await reads.get<{ name: string }>('owners', event.data.owner))?.name },
      }),
    });
    let laterRecords = 0;
    const counting: ServiceStore = {
      ...raw,
      transaction: (fn) =>
        raw.transaction((tx) =>
          fn({
            ...tx,
            recordIntegrationEvent: (id, integration) => {
              laterRecords++;
              return tx.recordIntegrationEvent(id, integration);
            },
          }),
        ),
    };
    const store = withIntegrationEvents(counting, rules);
    await store.transaction(async (tx) => {
      await tx.appendToStream(
        's-1',
        0,
        [
          { type: 'Opened', data: { owner: 'o1' } },
          { type: 'Noted', data: { text: 'x' } },
          { type: 'Closed', data: { owner: 'o1' } },
        ],
        meta,
      );
      await tx.put('owners', 'o1', { name: 'Ada' });
    });
    const events = await raw.readAll(0, 10);
    expect(events.map((e) => e.integration)).toEqual([
      DERIVED,
      null,
      { type: 'AccountClosed', data: { owner: 'o1', name: 'Ada' } },
    ]);
    expect(laterRecords).toBe(1); // Closed only
    // published: the derived one as its rule makes it of the stored event, the others as recorded
    const bus = createInProcEventBus({ path: ':memory:' });
    stops.push(() => bus.close());
    const got = collect(bus);
    const mapped = await flushMapping(store, bus, rules);
    await waitFor(() => got.length === 2, 'the two published');
    expect(mapped.map((e) => e.type)).toEqual(['Opened']);
    expect(got.map((e) => [e.type, e.data, e.id])).toEqual([
      ['AccountOpened', { owner: 'o1', shout: 'O1' }, events[0].id],
      ['AccountClosed', { owner: 'o1', name: 'Ada' }, events[2].id],
    ]);
    // a rolled-back append records nothing
    await expect(
      store.transaction(async (tx) => {
        await tx.appendToStream('s-2', 0, [{ type: 'Opened', data: { owner: 'o2' } }], meta);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await raw.readAll(0, 10)).toHaveLength(3);
  });

  it('a rule that reads nothing and fails fails the append (not the relay later)', async () => {
    const raw = createSqliteServiceStore(':memory:');
    stops.push(() => raw.close());
    const store = withIntegrationEvents(
      raw,
      integrationMapping<{ type: 'Broken'; data: { n?: { m: number } } }>({
        Broken: ({ type, data }) => ({ type, data: { m: (data.n as { m: number }).m } }),
      }),
    );
    await expect(
      store.transaction((tx) => tx.appendToStream('b-1', 0, [{ type: 'Broken', data: {} }], meta)),
    ).rejects.toThrow(TypeError);
    expect(await raw.readAll(0, 10)).toHaveLength(0);
  });
});
