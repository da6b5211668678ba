import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, DomainError } from '../eventSourcing/errors.js';
import type { EventMeta } from '../eventSourcing/types.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { waitFor } from './waitFor.js';
import { decodePageCursor, findPage } from '../ports/pages.js';

export interface ServiceStoreFactory {
  /** A fresh, empty store. */
  create(): Promise<ServiceStore>;
  /** A fresh location that can be opened several times (close, open again: same data). Optional. */
  location?(): Promise<{ open(): Promise<ServiceStore> }>;
}

const meta = (over: Partial<EventMeta> = {}): EventMeta => ({ correlationId: randomUUID(), ...over });
const ev = (type: string, data: unknown = {}) => ({ type, data });

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

    it('appends to a stream and reads it back with the full envelope', async () => {
      const store = await fresh();
      const streamId = `account-${randomUUID()}`;
      const m = meta({ causationId: 'cmd-1', actor: { userId: 'u1', role: 'admin', impersonatorId: 'a9' } });
      const res = await store.transaction((tx) =>
        tx.appendToStream(
          streamId,
          0,
          [ev('Opened', { owner: 'u1' }), { ...ev('Deposited', { cents: 500 }), id: 'fixed-id-' + streamId }],
          m,
        ),
      );
      expect(res.nextVersion).toBe(2);
      const { version, events } = await store.readStream(streamId);
      expect(version).toBe(2);
      expect(events.map((e) => [e.type, e.version, e.data])).toEqual([
        ['Opened', 1, { owner: 'u1' }],
        ['Deposited', 2, { cents: 500 }],
      ]);
      expect(events[1].id).toBe('fixed-id-' + streamId);
      expect(events[0].id).toMatch(/^[0-9a-f-]{36}$/);
      expect(events[0].streamId).toBe(streamId);
      expect(events[0].correlationId).toBe(m.correlationId);
      expect(events[0].causationId).toBe('cmd-1');
      expect(events[0].actor).toEqual({ userId: 'u1', role: 'admin', impersonatorId: 'a9' });
      expect(new Date(events[0].occurredAt).toISOString()).toBe(events[0].occurredAt);
      expect(events[1].position).toBeGreaterThan(events[0].position);
      expect(res.events.map((e) => e.position)).toEqual(events.map((e) => e.position));

      const none = await store.readStream('missing-' + randomUUID());
      expect(none).toEqual({ version: 0, events: [] });
      const plain = await store.transaction((tx) =>
        tx.appendToStream(`s-${randomUUID()}`, 'any', [ev('X')], meta()),
      );
      expect(plain.events[0].causationId).toBeNull();
      expect(plain.events[0].actor).toBeNull();
    });

    it('refuses an append at the wrong expected version (optimistic concurrency) and keeps the stream intact', async () => {
      const store = await fresh();
      const streamId = `s-${randomUUID()}`;
      await store.transaction((tx) => tx.appendToStream(streamId, 0, [ev('A')], meta()));
      const err = await store
        .transaction((tx) => tx.appendToStream(streamId, 0, [ev('B')], meta()))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConcurrencyError);
      expect(err).toMatchObject({ streamId, expected: 0, actual: 1 });
      await expect(
        store.transaction((tx) => tx.appendToStream(streamId, 5, [ev('B')], meta())),
      ).rejects.toBeInstanceOf(ConcurrencyError);
      await store.transaction((tx) => tx.appendToStream(streamId, 1, [ev('B')], meta()));
      await store.transaction((tx) => tx.appendToStream(streamId, 'any', [ev('C')], meta()));
      const { version, events } = await store.readStream(streamId);
      expect(version).toBe(3);
      expect(events.map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('lets exactly one of two concurrent appends at the same version win', async () => {
      const store = await fresh();
      const streamId = `s-${randomUUID()}`;
      await store.transaction((tx) => tx.appendToStream(streamId, 0, [ev('A')], meta()));
      const attempt = (type: string) =>
        store.transaction(async (tx) => {
          const { version } = await tx.readStream(streamId);
          return tx.appendToStream(streamId, version === 1 ? 1 : -1, [ev(type)], meta());
        });
      const results = await Promise.allSettled([attempt('B'), attempt('C')]);
      const ok = results.filter((r) => r.status === 'fulfilled');
      const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(ok).toHaveLength(1);
      expect(failed).toHaveLength(1);
      expect(failed[0].reason).toBeInstanceOf(ConcurrencyError);
      expect((await store.readStream(streamId)).version).toBe(2);
    });

    it('is atomic: a throw inside a transaction leaves no events, documents, markers or checkpoints', async () => {
      const store = await fresh();
      let notified = 0;
      store.onAppended(() => notified++);
      const streamId = `s-${randomUUID()}`;
      await store.transaction(async (tx) => {
        await tx.put('things', 'keep', { n: 1 });
      });
      const before = await store.lastPosition();
      const boom = new Error('boom');
      await expect(
        store.transaction(async (tx) => {
          await tx.appendToStream(streamId, 0, [ev('A'), ev('B')], meta());
          await tx.put('things', 't1', { n: 1 });
          await tx.put('things', 'keep', { n: 2 });
          await tx.delete('things', 'missing');
          expect(await tx.markProcessed('c1', 'e1')).toBe(true);
          await tx.setCheckpoint('cp', 42);
          // reads inside the transaction see its own writes
          expect(await tx.get('things', 't1')).toEqual({ n: 1 });
          expect((await tx.readStream(streamId)).version).toBe(2);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.readStream(streamId)).toEqual({ version: 0, events: [] });
      expect(await store.get('things', 't1')).toBeNull();
      expect(await store.get('things', 'keep')).toEqual({ n: 1 });
      expect(await store.getCheckpoint('cp')).toBe(0);
      expect(await store.lastPosition()).toBe(before);
      expect(await store.readAll(before, 10)).toEqual([]);
      expect(await store.transaction((tx) => tx.markProcessed('c1', 'e1'))).toBe(true);
      expect(notified).toBe(0);
    });

    it('returns the callback result after commit', async () => {
      const store = await fresh();
      expect(await store.transaction(async () => 'result')).toBe('result');
    });

    it('keeps a global order by position across streams (readAll paging, lastPosition)', async () => {
      const store = await fresh();
      expect(await store.lastPosition()).toBe(0);
      const a = `a-${randomUUID()}`;
      const b = `b-${randomUUID()}`;
      const expected: string[] = [];
      for (let i = 0; i < 5; i++) {
        await store.transaction(async (tx) => {
          await tx.appendToStream(a, i, [ev('A', { i })], meta());
          await tx.appendToStream(b, 'any', [ev('B', { i })], meta());
        });
        expected.push(`A${i}`, `B${i}`);
      }
      const seen: string[] = [];
      let after = 0;
      let pages = 0;
      for (;;) {
        const page = await store.readAll(after, 3);
        if (page.length === 0) break;
        pages++;
        expect(page.length).toBeLessThanOrEqual(3);
        for (const e of page) {
          expect(e.position).toBeGreaterThan(after);
          after = e.position;
          seen.push(`${e.type}${(e.data as { i: number }).i}`);
        }
      }
      expect(seen).toEqual(expected);
      expect(pages).toBe(4);
      expect(await store.lastPosition()).toBe(after);
    });

    it('records integration events on appended events, atomically with them (readAll returns them)', async () => {
      const store = await fresh();
      const s = `s-${randomUUID()}`;
      const before = await store.lastPosition();
      await store.transaction(async (tx) => {
        const { events } = await tx.appendToStream(s, 0, [ev('Opened'), ev('Secret'), ev('Plain')], meta());
        await tx.recordIntegrationEvent(events[0].id, { type: 'OpenedV1', data: { n: 1 } });
        await tx.recordIntegrationEvent(events[1].id, null);
        await tx.recordIntegrationEvent('no-such-event', { type: 'Ignored', data: {} });
        // a failed savepoint undoes its records too
        await expect(
          store.transaction(async (inner) => {
            await inner.recordIntegrationEvent(events[2].id, { type: 'Undone', data: {} });
            throw new Error('inner fails');
          }),
        ).rejects.toThrow('inner fails');
      });
      await expect(
        store.transaction(async (tx) => {
          const { events } = await tx.appendToStream(s, 3, [ev('RolledBack')], meta());
          await tx.recordIntegrationEvent(events[0].id, { type: 'Never', data: {} });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const log = await store.readAll(before, 10);
      expect(log.map((e) => [e.type, e.integration])).toEqual([
        ['Opened', { type: 'OpenedV1', data: { n: 1 } }],
        ['Secret', null],
        ['Plain', undefined],
      ]);
      expect('integration' in log[2]).toBe(false);
      // the stream reads as domain events only
      expect((await store.readStream(s)).events.every((e) => !('integration' in e))).toBe(true);
    });

    it('stores, replaces, deletes and finds documents (equality filters, order, limit, offset, count)', async () => {
      const store = await fresh();
      const users = [
        { id: 'u1', email: 'a@x.io', role: 'admin', age: 40, verified: true, team: null },
        { id: 'u2', email: 'b@x.io', role: 'subscriber', age: 25, verified: false, team: 'red' },
        { id: 'u3', email: 'c@x.io', role: 'subscriber', age: 31, verified: true, team: 'red' },
        { id: 'u4', email: 'd@x.io', role: 'subscriber', age: 19, verified: true, team: 'blue' },
        { id: 'u5', email: 'e@x.io', role: 'author', age: 31, verified: false, team: null },
      ];
      await store.transaction(async (tx) => {
        for (const u of users) await tx.put('users', u.id, u);
        await tx.put('other', 'u1', { id: 'u1', role: 'subscriber' });
      });
      expect(await store.get('users', 'u2')).toEqual(users[1]);
      expect(await store.get('users', 'nope')).toBeNull();

      const ids = (docs: Array<{ id: string }>) => docs.map((d) => d.id);
      expect(ids(await store.find('users', { where: { role: 'subscriber' } })).sort()).toEqual([
        'u2',
        'u3',
        'u4',
      ]);
      expect(
        ids(await store.find('users', { where: { role: 'subscriber', verified: true } })).sort(),
      ).toEqual(['u3', 'u4']);
      expect(ids(await store.find('users', { where: { age: 31 } })).sort()).toEqual(['u3', 'u5']);
      expect(ids(await store.find('users', { where: { age: '31' } }))).toEqual([]);
      expect(ids(await store.find('users', { where: { verified: false } })).sort()).toEqual(['u2', 'u5']);
      expect(ids(await store.find('users', { where: { team: null } })).sort()).toEqual(['u1', 'u5']);
      expect(ids(await store.find('users', { orderBy: { field: 'age', direction: 'asc' } }))).toEqual([
        'u4',
        'u2',
        'u3',
        'u5',
        'u1',
      ]);
      expect(
        ids(await store.find('users', { orderBy: { field: 'email', direction: 'desc' }, limit: 2 })),
      ).toEqual(['u5', 'u4']);
      expect(
        ids(
          await store.find('users', {
            where: { role: 'subscriber' },
            orderBy: { field: 'age', direction: 'desc' },
            limit: 2,
            offset: 1,
          }),
        ),
      ).toEqual(['u2', 'u4']);
      expect(
        ids(await store.find('users', { orderBy: { field: 'age', direction: 'asc' }, offset: 3 })),
      ).toEqual(['u5', 'u1']);
      expect(await store.count('users')).toBe(5);
      expect(await store.count('users', { role: 'subscriber' })).toBe(3);
      expect(await store.count('other')).toBe(1);
      expect(await store.count('empty')).toBe(0);

      await store.transaction(async (tx) => {
        await tx.put('users', 'u2', { ...users[1], role: 'author' });
        await tx.delete('users', 'u4');
      });
      expect(await store.get('users', 'u2')).toMatchObject({ role: 'author' });
      expect(await store.get('users', 'u4')).toBeNull();
      expect(await store.count('users', { role: 'subscriber' })).toBe(1);
    });

    it('reads many documents at once in the order asked, null where none, seeing the open transaction', async () => {
      const store = await fresh();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 1_200; i++) await tx.put('many', `d${i}`, { i });
        await tx.put('other', 'd1', { i: -1 });
      });
      expect(await store.getMany('many', [])).toEqual([]);
      expect(await store.getMany('many', ['d7', 'nope', 'd1', 'd7'])).toEqual([
        { i: 7 },
        null,
        { i: 1 },
        { i: 7 },
      ]);
      // more ids than one statement takes, in the order given
      const ids = Array.from({ length: 1_200 }, (_, i) => `d${1_199 - i}`);
      expect((await store.getMany<{ i: number }>('many', ids)).map((d) => d?.i)).toEqual(
        ids.map((id) => Number(id.slice(1))),
      );
      await store.transaction(async (tx) => {
        await tx.put('many', 'd2', { i: 'changed' });
        await tx.delete('many', 'd3');
        await tx.put('many', 'new', { i: 'new' });
        expect(await tx.getMany('many', ['d2', 'd3', 'new', 'd4'])).toEqual([
          { i: 'changed' },
          null,
          { i: 'new' },
          { i: 4 },
        ]);
      });
      expect(await store.getMany('many', ['d3', 'new'])).toEqual([null, { i: 'new' }]);
    });

    it('pages by keyset under an equality filter on an index (findPage), ties on the order value by id', async () => {
      const store = await fresh();
      await store.ensureIndex?.('queue', ['status', 'position']);
      const put = (id: string, status: string, position: number) =>
        store.transaction((tx) => tx.put('queue', id, { id, status, position }));
      // positions repeat (a tie is broken by the id), and other statuses are interleaved
      const items = [
        ['q1', 1],
        ['q3', 2],
        ['q2', 2],
        ['q4', 3],
        ['q5', 5],
      ] as const;
      for (const [id, position] of items) {
        await put(id, 'Pending', position);
        await put(`x-${id}`, 'Done', position);
      }
      const query = {
        where: { status: 'Pending' },
        orderBy: { field: 'position', direction: 'asc' as const },
        idOf: (d: { id: string }) => d.id,
      };
      const expected = ['q1', 'q2', 'q3', 'q4', 'q5'];
      expect((await findPage<{ id: string }>(store, 'queue', query, null)).items.map((d) => d.id)).toEqual(
        expected,
      );
      const seen: string[] = [];
      let page = await findPage<{ id: string }>(store, 'queue', query, { limit: 2, after: null });
      seen.push(...page.items.map((d) => d.id));
      await put('q6', 'Pending', 9); // added between pages: comes last
      await store.transaction((tx) => tx.delete('queue', 'q3')); // the next page's first: gone
      while (page.nextCursor) {
        page = await findPage<{ id: string }>(store, 'queue', query, {
          limit: 2,
          after: decodePageCursor(page.nextCursor),
        });
        seen.push(...page.items.map((d) => d.id));
      }
      expect(seen).toEqual(['q1', 'q2', 'q4', 'q5', 'q6']);
      const desc = { ...query, orderBy: { field: 'position', direction: 'desc' as const } };
      const first = await findPage<{ id: string }>(store, 'queue', desc, { limit: 3, after: null });
      expect(first.items.map((d) => d.id)).toEqual(['q6', 'q5', 'q4']);
      const rest = await findPage<{ id: string }>(store, 'queue', desc, {
        limit: 3,
        after: decodePageCursor(first.itemCursors![1]!),
      });
      expect(rest.items.map((d) => d.id)).toEqual(['q4', 'q2', 'q1']);
      expect(rest.nextCursor).toBe('');
    });

    it('refuses operator-like field names and non-scalar filter values', async () => {
      const store = await fresh();
      await store.transaction((tx) => tx.put('users', 'u1', { email: 'a@x.io' }));
      await expect(store.find('users', { where: { $where: 'x' } as never })).rejects.toBeInstanceOf(
        DomainError,
      );
      await expect(store.find('users', { where: { email: { $gt: '' } } as never })).rejects.toBeInstanceOf(
        DomainError,
      );
      await expect(
        store.find('users', { orderBy: { field: "a') --", direction: 'asc' } }),
      ).rejects.toBeInstanceOf(DomainError);
      await expect(store.count('users', { "email') OR 1=1 --": 'x' })).rejects.toBeInstanceOf(DomainError);
      await expect(store.get('system.users', 'x')).rejects.toBeInstanceOf(DomainError);
      await expect(store.transaction((tx) => tx.put('a$b', 'x', {}))).rejects.toBeInstanceOf(DomainError);
    });

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
