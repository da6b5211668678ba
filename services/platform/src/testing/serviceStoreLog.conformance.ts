import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ConcurrencyError } from '../eventSourcing/errors.js';
import { type FreshStore, ev, meta } from './serviceStoreFixtures.js';

/** The ServiceStore conformance cases of the event log: streams, optimistic concurrency, atomic transactions, global order. */
export function describeServiceStoreLogCases(fresh: FreshStore): void {
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
}
