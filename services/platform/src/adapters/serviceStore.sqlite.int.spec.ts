import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { createSqliteServiceStore, findSql } from './serviceStore.sqlite.js';
import { describeServiceStoreConformance } from '../testing/serviceStore.conformance.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';

const dir = tempDir('meridian-store-');
afterAll(() => dir.remove());

describeServiceStoreConformance('SQLite :memory:', {
  create: async () => createSqliteServiceStore(':memory:'),
});

describeServiceStoreConformance('SQLite file (WAL)', {
  create: async () => createSqliteServiceStore(join(dir.path, `${randomUUID()}.sqlite`)),
  location: async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    return { open: async () => createSqliteServiceStore(path) };
  },
});

describe('SQLite ServiceStore specifics', () => {
  it('uses the injected clock for occurredAt', async () => {
    const store = createSqliteServiceStore(':memory:', { clock: () => new Date('2030-01-02T03:04:05.000Z') });
    const { events } = await store.transaction((tx) =>
      tx.appendToStream('s', 0, [{ type: 'A', data: {} }], { correlationId: 'c' }),
    );
    expect(events[0].occurredAt).toBe('2030-01-02T03:04:05.000Z');
    await store.close();
  });

  it("keeps an ensureIndex index to its collection's documents, and finds and pages use it", async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    const store = createSqliteServiceStore(path);
    // a file of an earlier version: the whole-table index, replaced by the partial one
    const early = new Database(path);
    early.exec(
      `CREATE INDEX "ix_orders_status_at" ON documents (collection, json_extract(json, '$.status'), json_extract(json, '$.at'), id)`,
    );
    early.close();
    await store.ensureIndex!('orders', ['status', 'at']);
    await store.transaction(async (tx) => {
      for (let i = 0; i < 50; i++) {
        await tx.put('orders', `o${i}`, { status: i % 2 ? 'open' : 'done', at: i });
        await tx.put('other', `x${i}`, { status: 'open', at: i });
      }
    });
    const db = new Database(path, { readonly: true });
    try {
      const indexes = db
        .prepare<[], { name: string; sql: string }>(
          "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE '%orders%'",
        )
        .all();
      expect(indexes.map((r) => r.name)).toEqual(['px_orders_status_at']);
      // only the collection's own documents are in it
      expect(indexes[0].sql).toMatch(/WHERE collection = 'orders'$/);
      const page = findSql('orders', {
        where: { status: 'open' },
        orderBy: { field: 'at', direction: 'desc' },
        after: { value: 30, id: 'o30' },
        limit: 5,
      });
      const plan = db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${page.sql}`)
        .all(...page.params)
        .map((r) => r.detail)
        .join('; ');
      expect(plan).toContain('USING INDEX px_orders_status_at');
      expect(plan).not.toContain('TEMP B-TREE');
      const rows = db
        .prepare<unknown[], { json: string }>(page.sql)
        .all(...page.params)
        .map((r) => (JSON.parse(r.json) as { at: number }).at);
      expect(rows).toEqual([29, 27, 25, 23, 21]);
    } finally {
      db.close();
      await store.close();
    }
  });
});

describe('SQLite ServiceStore: group commit and the documents write-behind', () => {
  const fileStore = () => createSqliteServiceStore(join(dir.path, `${randomUUID()}.sqlite`));

  it('commits concurrent transactions together; a failing one is undone alone and its caller gets its error', async () => {
    const store = fileStore();
    let appendedSignals = 0;
    store.onAppended(() => appendedSignals++);
    const ok = (n: number) =>
      store.transaction(async (tx) => {
        await tx.appendToStream(`s-${n}`, 0, [{ type: 'A', data: { n } }], { correlationId: 'c' });
        await tx.put('docs', `d-${n}`, { n });
        return n;
      });
    const failing = store.transaction(async (tx) => {
      await tx.appendToStream('s-bad', 0, [{ type: 'A', data: {} }], { correlationId: 'c' });
      await tx.put('docs', 'd-bad', { n: -1 });
      await tx.put('docs', 'd-0', { n: 'overwritten by the failed one' });
      throw new Error('refused');
    });
    // issued in one tick: one group
    const results = await Promise.allSettled([ok(0), ok(1), failing, ok(2)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      0,
      1,
      'refused',
      2,
    ]);
    expect(await store.get('docs', 'd-0')).toEqual({ n: 0 });
    expect(await store.get('docs', 'd-bad')).toBeNull();
    expect((await store.readStream('s-bad')).version).toBe(0);
    expect((await store.readAll(0, 10)).map((e) => e.streamId)).toEqual(['s-0', 's-1', 's-2']);
    expect(appendedSignals).toBeGreaterThanOrEqual(1);
    await store.close();
  });

  it("runs each grouped callback in its caller's async context", async () => {
    const store = fileStore();
    const als = new AsyncLocalStorage<string>();
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        als.run(name, () =>
          store.transaction(async () => [als.getStore(), await Promise.resolve(als.getStore())]),
        ),
      ),
    );
    expect(seen).toEqual([
      ['a', 'a'],
      ['b', 'b'],
      ['c', 'c'],
    ]);
    // a transaction issued while a group is draining runs in its own context too
    const first = als.run('first', () => store.transaction(async () => als.getStore()));
    const second = await first.then(() =>
      als.run('second', () => store.transaction(async () => als.getStore())),
    );
    expect([await first, second]).toEqual(['first', 'second']);
    await store.close();
  });

  it('makes a read issued after a transaction (outside it) wait for its commit, as before groups', async () => {
    const store = fileStore();
    const written = store.transaction((tx) => tx.put('docs', 'a', { v: 1 }));
    const read = store.get('docs', 'a');
    expect(await read).toEqual({ v: 1 });
    await written;
    await store.close();
  });

  it('keeps optimistic concurrency inside a group: the second append at the same version is refused', async () => {
    const store = fileStore();
    const append = () =>
      store.transaction((tx) =>
        tx.appendToStream('same', 0, [{ type: 'A', data: {} }], { correlationId: 'c' }),
      );
    const results = await Promise.allSettled([append(), append()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await store.readStream('same')).version).toBe(1);
    await store.close();
  });

  it('reads its own buffered writes, finds and counts them, and rolls them back with a savepoint', async () => {
    const store = fileStore();
    await store.transaction(async (tx) => {
      await tx.put('docs', 'a', { v: 1, k: 'x' });
      await tx.put('docs', 'a', { v: 2, k: 'x' });
      expect(await tx.get('docs', 'a')).toEqual({ v: 2, k: 'x' });
      expect(await tx.count('docs', { k: 'x' })).toBe(1);
      await tx.put('docs', 'b', { v: 1, k: 'x' });
      await expect(
        store.transaction(async (inner) => {
          await inner.put('docs', 'a', { v: 3, k: 'y' });
          await inner.delete('docs', 'b');
          expect(await inner.get('docs', 'b')).toBeNull();
          expect(await inner.find('docs', { where: { k: 'y' } })).toEqual([{ v: 3, k: 'y' }]);
          await store.transaction(async (innermost) => {
            await innermost.put('docs', 'c', { v: 1, k: 'x' });
          });
          throw new Error('undo the nested one');
        }),
      ).rejects.toThrow('undo the nested one');
      // back to what the outer transaction had written, in memory and in SQL
      expect(await tx.get('docs', 'a')).toEqual({ v: 2, k: 'x' });
      expect(await tx.get('docs', 'b')).toEqual({ v: 1, k: 'x' });
      expect(await tx.get('docs', 'c')).toBeNull();
      expect((await tx.find<{ v: number }>('docs', { where: { k: 'x' } })).map((d) => d.v)).toEqual([2, 1]);
      await tx.put('docs', 'a', { v: 4, k: 'x' });
    });
    expect(await store.get('docs', 'a')).toEqual({ v: 4, k: 'x' });
    expect(await store.get('docs', 'b')).toEqual({ v: 1, k: 'x' });
    expect(await store.get('docs', 'c')).toBeNull();
    await store.close();
  });

  it('writes nothing of a transaction that throws after its writes were flushed for a find', async () => {
    const store = fileStore();
    await store.transaction((tx) => tx.put('docs', 'kept', { v: 1 }));
    await expect(
      store.transaction(async (tx) => {
        await tx.put('docs', 'kept', { v: 2 });
        await tx.put('docs', 'new', { v: 1 });
        expect(await tx.count('docs')).toBe(2);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store.get('docs', 'kept')).toEqual({ v: 1 });
    expect(await store.get('docs', 'new')).toBeNull();
    await store.close();
  });

  it('returns a fresh copy on every get: changing a document read or put does not change the stored one', async () => {
    const store = fileStore();
    await store.transaction(async (tx) => {
      const doc = { list: [1] };
      await tx.put('docs', 'a', doc);
      doc.list.push(2);
      const read = (await tx.get<{ list: number[] }>('docs', 'a')) as { list: number[] };
      read.list.push(3);
      expect(await tx.get('docs', 'a')).toEqual({ list: [1] });
    });
    expect(await store.get('docs', 'a')).toEqual({ list: [1] });
    await store.close();
  });

  it('holds a large nested transaction to bounded memory and still rolls it back whole', async () => {
    const store = fileStore();
    await store.transaction(async (tx) => {
      await tx.put('many', 'outer', { v: 1 });
      await expect(
        store.transaction(async (inner) => {
          for (let i = 0; i < 25_000; i++) await inner.put('many', String(i).padStart(5, '0'), { i });
          await inner.put('many', 'outer', { v: 2 });
          expect(await inner.get('many', '00007')).toEqual({ i: 7 });
          expect(await inner.count('many')).toBe(25_001);
          throw new Error('undo it all');
        }),
      ).rejects.toThrow('undo it all');
      expect(await tx.get('many', 'outer')).toEqual({ v: 1 });
      expect(await tx.get('many', '00007')).toBeNull();
    });
    expect(await store.count('many')).toBe(1);
    expect(await store.get('many', 'outer')).toEqual({ v: 1 });
    await store.close();
  });

  it('holds a large transaction to bounded memory and still commits every document', async () => {
    const store = fileStore();
    await store.transaction(async (tx) => {
      for (let i = 0; i < 25_000; i++) await tx.put('many', String(i).padStart(5, '0'), { i });
      expect(await tx.get('many', '00007')).toEqual({ i: 7 });
    });
    expect(await store.count('many')).toBe(25_000);
    expect(await store.get('many', '24999')).toEqual({ i: 24_999 });
    await store.close();
  });
});

describe('SQLite files: WAL checkpoints in the background', () => {
  it('copies committed pages into the database file off the event loop (the commit leaves them in the WAL)', async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    const store = createSqliteServiceStore(path);
    const before = statSync(path).size;
    const big = 'x'.repeat(2_000);
    await store.transaction(async (tx) => {
      for (let i = 0; i < 2_000; i++) await tx.put('docs', String(i), { big });
    });
    // 4 MB committed: far below the connection's own checkpoint mark, so only the worker moves them
    await waitFor(() => statSync(path).size > before + 2_000_000, 'the database file to receive the pages');
    expect(await store.count('docs')).toBe(2_000);
    await store.close();
  });
});
