import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createSqliteServiceStore } from './serviceStore.sqlite.js';
import { describeServiceStoreConformance } from '../testing/serviceStore.conformance.js';
import { tempDir } from '../testing/tempDir.js';

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
    const { events } = await store.transaction((tx) => tx.appendToStream('s', 0, [{ type: 'A', data: {} }], { correlationId: 'c' }));
    expect(events[0].occurredAt).toBe('2030-01-02T03:04:05.000Z');
    await store.close();
  });

  it('runs a nested transaction as a savepoint: its failure rolls back only its own writes', async () => {
    const store = createSqliteServiceStore(':memory:');
    await store.transaction(async (tx) => {
      await tx.put('d', 'outer', { ok: 1 });
      await store
        .transaction(async (inner) => {
          await inner.put('d', 'inner', { ok: 2 });
          throw new Error('inner fails');
        })
        .catch(() => undefined);
      // reads through the store inside the transaction see the open transaction (no deadlock)
      expect(await store.get('d', 'outer')).toEqual({ ok: 1 });
    });
    expect(await store.get('d', 'outer')).toEqual({ ok: 1 });
    expect(await store.get('d', 'inner')).toBeNull();
    await store.close();
  });

  it('refuses to use a tx after its transaction finished', async () => {
    const store = createSqliteServiceStore(':memory:');
    let leaked: Parameters<Parameters<typeof store.transaction>[0]>[0] | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.put('d', 'x', {})).rejects.toThrow(/already finished/);
    await store.close();
  });

  it('does not show uncommitted writes to readers outside the transaction', async () => {
    const store = createSqliteServiceStore(':memory:');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let wrote!: () => void;
    const written = new Promise<void>((r) => (wrote = r));
    const tx = store.transaction(async (t) => {
      await t.put('d', 'x', { v: 1 });
      wrote();
      await gate;
      throw new Error('rollback');
    });
    await written;
    const read = store.get('d', 'x');
    release();
    await expect(tx).rejects.toThrow('rollback');
    expect(await read).toBeNull();
    await store.close();
  });
});
