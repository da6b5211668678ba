import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedMongoDBContainer } from '@testcontainers/mongodb';
import type { MongoClient } from 'mongodb';
import { createMongoServiceStore } from './serviceStore.mongo.js';
import { describeServiceStoreConformance } from '../testing/serviceStore.conformance.js';
import { detectContainerRuntime } from '../testing/containers.js';
import { waitFor } from '../testing/waitFor.js';
import type { ServiceStore } from '../ports/serviceStore.js';

// MongoDB (single-node replica set) through testcontainers only: no MongoDB server can run on our
// machines (no container engine, and no MongoDB build for them), so without a container runtime this
// suite is skipped, with the reason printed. The adapter's pure parts are unit-tested in
// serviceStore.mongo.unit.spec.ts, which runs everywhere.
const runtime = await detectContainerRuntime();
if (!runtime.available) {
  console.log(
    `[skip] MongoDB ServiceStore suite: needs a MongoDB replica set in a container, and there is no container runtime (${runtime.reason})`,
  );
}

const meta = () => ({ correlationId: randomUUID() });
const dbName = () => `t_${randomUUID().replace(/-/g, '')}`;

describe.skipIf(!runtime.available)('MongoDB ServiceStore (testcontainers)', () => {
  let container: StartedMongoDBContainer;
  let url = '';
  let client: MongoClient;
  beforeAll(async () => {
    const { MongoDBContainer } = await import('@testcontainers/mongodb');
    const { MongoClient } = await import('mongodb');
    container = await new MongoDBContainer('mongo:8.0').start();
    url = `${container.getConnectionString()}/?directConnection=true`;
    client = await new MongoClient(url).connect();
  }, 180_000);
  afterAll(async () => {
    await client?.close();
    await container?.stop();
  });

  describeServiceStoreConformance('MongoDB replica set', {
    create: () => createMongoServiceStore({ url, database: dbName() }),
    location: async () => {
      const database = dbName();
      return { open: () => createMongoServiceStore({ url, database }) };
    },
  });

  describe('MongoDB specifics: the outbox under appends that commit out of order', () => {
    const opened: ServiceStore[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((s) => s.close()));
    });
    const open = async (database: string, reservationLeaseMs?: number) => {
      const s = await createMongoServiceStore({ client, database, reservationLeaseMs });
      opened.push(s);
      return s;
    };

    it('appends to different streams concurrently, every one committed at its own position', async () => {
      const store = await open(dbName());
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.transaction((tx) =>
            tx.appendToStream(`s-${i}-${randomUUID()}`, 0, [{ type: 'A', data: { i } }], meta()),
          ),
        ),
      );
      const positions = results.map((r) => r.events[0].position);
      expect(new Set(positions).size).toBe(8);
      expect((await store.readAll(0, 100)).map((e) => e.position)).toEqual(
        [...positions].sort((a, b) => a - b),
      );
    });

    it('never lets a reader run past an append that commits later, and wakes it when that one commits', async () => {
      const store = await open(dbName());
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let appended!: (p: number) => void;
      const firstPosition = new Promise<number>((r) => (appended = r));
      const slow = store.transaction(async (tx) => {
        const { events } = await tx.appendToStream(
          `slow-${randomUUID()}`,
          0,
          [{ type: 'Slow', data: {} }],
          meta(),
        );
        appended(events[0].position);
        await gate;
      });
      const p1 = await firstPosition;
      // a later append to another stream commits first, at a higher position
      const fast = await store.transaction((tx) =>
        tx.appendToStream(`fast-${randomUUID()}`, 0, [{ type: 'Fast', data: {} }], meta()),
      );
      expect(fast.events[0].position).toBeGreaterThan(p1);
      expect(await store.lastPosition()).toBe(fast.events[0].position);
      let wakes = 0;
      store.onAppended(() => wakes++);
      // the reader must not see Fast yet: its checkpoint would pass Slow's position
      expect(await store.readAll(0, 10)).toEqual([]);
      release();
      await slow;
      await waitFor(() => wakes > 0, 'onAppended after the slow commit');
      expect((await store.readAll(0, 10)).map((e) => e.type)).toEqual(['Slow', 'Fast']);
    });

    it('holds readers back behind a reservation left by a dead process until its lease runs out, then reaps it', async () => {
      const database = dbName();
      const store = await open(database, 1_000);
      const { events } = await store.transaction((tx) =>
        tx.appendToStream(`s-${randomUUID()}`, 0, [{ type: 'A', data: {} }], meta()),
      );
      // a process that opened a reservation below A's position and died
      await client
        .db(database)
        .collection<{ _id: string; floor: number; at: Date }>('reservations')
        .insertOne({ _id: 'dead', floor: 0, at: new Date() });
      let wakes = 0;
      store.onAppended(() => wakes++);
      expect(await store.readAll(0, 10)).toEqual([]);
      // held back: listeners are woken again to retry, and once the lease is over the read goes through
      await waitFor(() => wakes > 0, 'listeners woken while held back');
      await waitFor(async () => (await store.readAll(0, 10)).length === 1, {
        message: 'the dead reservation reaped',
        timeoutMs: 10_000,
      });
      expect((await store.readAll(0, 10))[0].id).toBe(events[0].id);
      expect(
        await client
          .db(database)
          .collection('reservations')
          .countDocuments({ _id: 'dead' as never }),
      ).toBe(0);
    });

    it('does not commit an attempt whose reservation was reaped meanwhile', async () => {
      const database = dbName();
      const store = await open(database);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let appended!: () => void;
      const firstAppend = new Promise<void>((r) => (appended = r));
      const firstAttempt: number[] = [];
      let attempts = 0;
      const streamId = `s-${randomUUID()}`;
      const tx = store.transaction(async (t) => {
        attempts++;
        const { events } = await t.appendToStream(streamId, 0, [{ type: 'A', data: {} }], meta());
        if (attempts === 1) {
          firstAttempt.push(...events.map((e) => e.position));
          appended();
          await gate;
        }
      });
      await firstAppend;
      // reap it as a reader would after the lease
      const [reservation] = await client
        .db(database)
        .collection<{ _id: string }>('reservations')
        .find()
        .toArray();
      await client
        .db(database)
        .collection<{ _id: string; by: string; at: Date }>('closed')
        .insertOne({ _id: reservation._id, by: 'reap', at: new Date() });
      await client
        .db(database)
        .collection<{ _id: string }>('reservations')
        .deleteOne({ _id: reservation._id });
      release();
      // either retried as a new attempt (write conflict) or failed: the first attempt's positions never appear
      await tx.catch(() => undefined);
      const log = await store.readAll(0, 100);
      expect(log.filter((e) => firstAttempt.includes(e.position))).toEqual([]);
      expect(log.length).toBeLessThanOrEqual(1);
    });
  });
});
