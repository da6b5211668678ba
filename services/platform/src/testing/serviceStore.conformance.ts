import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConcurrencyError } from '../eventSourcing/errors.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { waitFor } from './waitFor.js';
import { ev, meta } from './serviceStoreFixtures.js';
import { describeServiceStoreDocumentCases } from './serviceStoreDocuments.conformance.js';
import { describeServiceStoreLogCases } from './serviceStoreLog.conformance.js';

export interface ServiceStoreFactory {
  /** A fresh, empty store. */
  create(): Promise<ServiceStore>;
  /** A fresh location that can be opened several times (close, open again: same data). Optional. */
  location?(): Promise<{ open(): Promise<ServiceStore> }>;
}

/** The one conformance suite of the ServiceStore port. Call inside a spec file. */
export function describeServiceStoreConformance(name: string, factory: ServiceStoreFactory): void {
  describe(`ServiceStore conformance: ${name}`, () => {
    const opened: ServiceStore[] = [];
    const fresh = async () => {
      const s = await factory.create();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
    });

    describeServiceStoreLogCases(fresh);
    describeServiceStoreDocumentCases(fresh);

    it('marks processed events idempotently, per consumer', async () => {
      const store = await fresh();
      const eventId = randomUUID();
      expect(await store.transaction((tx) => tx.markProcessed('ledger', eventId))).toBe(true);
      expect(await store.transaction((tx) => tx.markProcessed('ledger', eventId))).toBe(false);
      expect(await store.transaction((tx) => tx.markProcessed('notification', eventId))).toBe(true);
    });

    it('keeps checkpoints', async () => {
      const store = await fresh();
      expect(await store.getCheckpoint('relay')).toBe(0);
      await store.transaction((tx) => tx.setCheckpoint('relay', 7));
      await store.transaction((tx) => tx.setCheckpoint('other', 3));
      expect(await store.getCheckpoint('relay')).toBe(7);
      await store.transaction(async (tx) => {
        await tx.setCheckpoint('relay', 9);
        expect(await tx.getCheckpoint('relay')).toBe(9);
      });
      expect(await store.getCheckpoint('relay')).toBe(9);
      expect(await store.getCheckpoint('other')).toBe(3);
    });

    it('lists what is not the log for a migration: collections, documents with ids, markers, checkpoints, in pages', async () => {
      const store = await fresh();
      const inventory = store.inventory;
      if (!inventory) return; // optional: a store without one cannot be the source of a migration
      await store.transaction(async (tx) => {
        for (const id of ['c', 'a', 'b']) await tx.put('things', id, { id, n: id.charCodeAt(0) });
        await tx.put('others', 'x', { nested: { ok: true } });
        await tx.put('gone', 'y', { v: 1 });
        await tx.delete('gone', 'y');
        for (const [consumer, eventId] of [
          ['ledger', 'e2'],
          ['identity', 'e9'],
          ['ledger', 'e1'],
        ])
          await tx.markProcessed(consumer, eventId);
        await tx.setCheckpoint('relay', 7);
        await tx.setCheckpoint('audit', 3);
      });
      expect(await inventory.collections()).toEqual(['others', 'things']);
      expect(await inventory.documents('things', '', 2)).toEqual([
        { id: 'a', doc: { id: 'a', n: 97 } },
        { id: 'b', doc: { id: 'b', n: 98 } },
      ]);
      expect(await inventory.documents('things', 'b', 2)).toEqual([{ id: 'c', doc: { id: 'c', n: 99 } }]);
      expect(await inventory.documents('others', '', 10)).toEqual([
        { id: 'x', doc: { nested: { ok: true } } },
      ]);
      const first = await inventory.processed(null, 2);
      expect(first).toEqual([
        { consumer: 'identity', eventId: 'e9' },
        { consumer: 'ledger', eventId: 'e1' },
      ]);
      expect(await inventory.processed(first[1]!, 2)).toEqual([{ consumer: 'ledger', eventId: 'e2' }]);
      expect(await inventory.checkpoints()).toEqual([
        { name: 'audit', position: 3 },
        { name: 'relay', position: 7 },
      ]);
    });

    it('calls onAppended listeners after a commit that appended (and only then)', async () => {
      const store = await fresh();
      const seen: number[] = [];
      const off = store.onAppended(() => {
        void store.lastPosition().then((p) => seen.push(p));
      });
      await store.transaction((tx) => tx.put('x', '1', { a: 1 }));
      await store.transaction((tx) => tx.appendToStream(`s-${randomUUID()}`, 0, [ev('A')], meta()));
      const p1 = await store.lastPosition();
      await waitFor(() => seen.length === 1, 'listener called once');
      expect(seen).toEqual([p1]);
      off();
      await store.transaction((tx) => tx.appendToStream(`s-${randomUUID()}`, 0, [ev('A')], meta()));
      await store.lastPosition();
      expect(seen).toEqual([p1]);
    });

    it('serialises transactions: concurrent read-modify-write of a document loses no update', async () => {
      const store = await fresh();
      await store.transaction((tx) => tx.put('counters', 'c', { n: 0 }));
      await Promise.all(
        Array.from({ length: 10 }, () =>
          store.transaction(async (tx) => {
            const doc = (await tx.get<{ n: number }>('counters', 'c'))!;
            await tx.put('counters', 'c', { n: doc.n + 1 });
          }),
        ),
      );
      expect(await store.get('counters', 'c')).toEqual({ n: 10 });
    });

    it('runs a nested transaction inside the open one: its failure undoes only its own writes', async () => {
      const store = await fresh();
      let notified = 0;
      store.onAppended(() => notified++);
      const s1 = `s-${randomUUID()}`;
      const s2 = `s-${randomUUID()}`;
      await store.transaction(async (tx) => {
        await tx.put('d', 'kept', { v: 1 });
        await tx.put('d', 'replaced', { v: 1 });
        await tx.put('d', 'deleted', { v: 1 });
        await tx.setCheckpoint('cp', 1);
        await tx.appendToStream(s1, 0, [ev('A')], meta());
      });
      const before = await store.lastPosition();
      notified = 0;
      const result = await store.transaction(async (tx) => {
        await tx.put('d', 'outer', { ok: 1 });
        const boom = new Error('inner fails');
        await expect(
          store.transaction(async (inner) => {
            await inner.put('d', 'inner', { ok: 2 });
            await inner.put('d', 'replaced', { v: 2 });
            await inner.delete('d', 'deleted');
            expect(await inner.markProcessed('c', 'e-inner')).toBe(true);
            await inner.setCheckpoint('cp', 2);
            await inner.appendToStream(s1, 1, [ev('B')], meta());
            await inner.appendToStream(s2, 0, [ev('X')], meta());
            // a savepoint inside the savepoint, released: undone with its parent
            await store.transaction((deeper) => deeper.put('d', 'deeper', { ok: 3 }));
            expect(await inner.get('d', 'replaced')).toEqual({ v: 2 });
            throw boom;
          }),
        ).rejects.toBe(boom);
        // the enclosing transaction goes on, without the savepoint's writes
        expect(await tx.get('d', 'inner')).toBeNull();
        expect(await tx.get('d', 'deeper')).toBeNull();
        expect(await tx.get('d', 'replaced')).toEqual({ v: 1 });
        expect(await tx.get('d', 'deleted')).toEqual({ v: 1 });
        expect(await tx.getCheckpoint('cp')).toBe(1);
        expect((await tx.readStream(s1)).version).toBe(1);
        expect((await tx.readStream(s2)).version).toBe(0);
        // a savepoint that fails on a version check leaves the transaction usable too
        await expect(
          store.transaction((inner) => inner.appendToStream(s1, 7, [ev('Nope')], meta())),
        ).rejects.toBeInstanceOf(ConcurrencyError);
        // a savepoint that succeeds joins the transaction and returns its result
        const joined = await store.transaction(async (inner) => {
          await inner.put('d', 'joined', { ok: 4 });
          return (await inner.appendToStream(s1, 1, [ev('C')], meta())).nextVersion;
        });
        expect(joined).toBe(2);
        expect(await tx.get('d', 'joined')).toEqual({ ok: 4 });
        return 'outer result';
      });
      expect(result).toBe('outer result');
      expect(await store.get('d', 'outer')).toEqual({ ok: 1 });
      expect(await store.get('d', 'joined')).toEqual({ ok: 4 });
      expect(await store.get('d', 'inner')).toBeNull();
      expect(await store.get('d', 'replaced')).toEqual({ v: 1 });
      expect(await store.get('d', 'deleted')).toEqual({ v: 1 });
      expect(await store.getCheckpoint('cp')).toBe(1);
      expect((await store.readStream(s1)).events.map((e) => e.type)).toEqual(['A', 'C']);
      expect(await store.readStream(s2)).toEqual({ version: 0, events: [] });
      expect((await store.readAll(before, 10)).map((e) => e.type)).toEqual(['C']);
      expect(await store.transaction((tx) => tx.markProcessed('c', 'e-inner'))).toBe(true);
      await waitFor(() => notified >= 1, "onAppended after the commit of the savepoint's append");

      // a savepoint that succeeded is undone when its enclosing transaction fails
      await expect(
        store.transaction(async () => {
          await store.transaction((inner) => inner.put('d', 'lost', { ok: 5 }));
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await store.get('d', 'lost')).toBeNull();
    });

    it('reads through the store inside a transaction callback see the open transaction', async () => {
      const store = await fresh();
      const streamId = `s-${randomUUID()}`;
      await store.transaction(async (tx) => {
        await tx.put('d', 'x', { role: 'a' });
        await tx.setCheckpoint('cp', 5);
        const { events } = await tx.appendToStream(streamId, 0, [ev('A')], meta());
        expect(await store.get('d', 'x')).toEqual({ role: 'a' });
        expect(await store.find('d', { where: { role: 'a' } })).toEqual([{ role: 'a' }]);
        expect(await store.count('d')).toBe(1);
        expect(await store.getCheckpoint('cp')).toBe(5);
        expect((await store.readStream(streamId)).version).toBe(1);
        expect(await store.lastPosition()).toBe(events[0].position);
        expect((await store.readAll(0, 10)).map((e) => e.id)).toEqual([events[0].id]);
        // and the tx's own reads, naturally
        expect(await tx.count('d', { role: 'a' })).toBe(1);
        expect(await tx.find('d')).toEqual([{ role: 'a' }]);
      });
    });

    it('does not show uncommitted writes to readers outside the transaction', async () => {
      const store = await fresh();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let wrote!: () => void;
      const written = new Promise<void>((r) => (wrote = r));
      const tx = store.transaction(async (t) => {
        await t.put('d', 'x', { v: 1 });
        await t.appendToStream(`s-${randomUUID()}`, 0, [ev('A')], meta());
        wrote();
        await gate;
        throw new Error('rollback');
      });
      await written;
      const reads = Promise.all([store.get('d', 'x'), store.count('d'), store.readAll(0, 10)]);
      release();
      await expect(tx).rejects.toThrow('rollback');
      expect(await reads).toEqual([null, 0, []]);
    });

    it('refuses writes through a tx after its transaction finished', async () => {
      const store = await fresh();
      let leaked: Parameters<Parameters<typeof store.transaction>[0]>[0] | undefined;
      await store.transaction(async (tx) => {
        leaked = tx;
      });
      await expect(leaked!.put('d', 'x', {})).rejects.toThrow(/already finished/);
      await expect(leaked!.appendToStream(`s-${randomUUID()}`, 0, [ev('A')], meta())).rejects.toThrow(
        /already finished/,
      );
      await expect(leaked!.setCheckpoint('cp', 1)).rejects.toThrow(/already finished/);
      expect(await store.get('d', 'x')).toBeNull();
    });

    it('keeps documents as given and matches scalars only (limit 0, arrays, a field named _id)', async () => {
      const store = await fresh();
      await store.transaction(async (tx) => {
        await tx.put('d', 'a', { _id: 'own', tags: ['x', 'y'], n: [1], team: [null], v: 1 });
        await tx.put('d', 'b', { tags: 'x', n: 1, v: 2 });
      });
      expect(await store.get('d', 'a')).toEqual({ _id: 'own', tags: ['x', 'y'], n: [1], team: [null], v: 1 });
      const vs = (docs: Array<{ v: number }>) => docs.map((d) => d.v);
      expect(vs(await store.find('d', { where: { tags: 'x' } }))).toEqual([2]);
      expect(vs(await store.find('d', { where: { n: 1 } }))).toEqual([2]);
      expect(vs(await store.find('d', { where: { team: null } }))).toEqual([2]);
      expect(await store.count('d', { tags: 'x' })).toBe(1);
      expect(await store.find('d', { limit: 0 })).toEqual([]);
      expect(await store.readAll(0, 0)).toEqual([]);
    });

    // only a store whose location outlives a close (a file, a database) has this case; ':memory:' has none
    if (factory.location)
      it('keeps everything across close and re-open', async () => {
        const loc = await factory.location!();
        const s1 = await loc.open();
        const streamId = `s-${randomUUID()}`;
        await s1.transaction(async (tx) => {
          await tx.appendToStream(streamId, 0, [ev('A', { n: 1 })], meta());
          await tx.put('docs', 'd', { ok: true });
          await tx.markProcessed('c', 'e');
          await tx.setCheckpoint('cp', 1);
        });
        await s1.close();
        const s2 = await loc.open();
        opened.push(s2);
        expect((await s2.readStream(streamId)).events.map((e) => e.data)).toEqual([{ n: 1 }]);
        expect(await s2.get('docs', 'd')).toEqual({ ok: true });
        expect(await s2.transaction((tx) => tx.markProcessed('c', 'e'))).toBe(false);
        expect(await s2.getCheckpoint('cp')).toBe(1);
        await s2.transaction((tx) => tx.appendToStream(streamId, 1, [ev('B')], meta()));
        expect((await s2.readAll(0, 10)).map((e) => e.type)).toEqual(['A', 'B']);
      });
  });
}
