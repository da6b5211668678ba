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
    const { events } = await store.transaction((tx) =>
      tx.appendToStream('s', 0, [{ type: 'A', data: {} }], { correlationId: 'c' }),
    );
    expect(events[0].occurredAt).toBe('2030-01-02T03:04:05.000Z');
    await store.close();
  });
});
