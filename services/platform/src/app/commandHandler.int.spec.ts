/** The one command path on real (in-memory) SQLite: load -> decide -> append with the version read -> project. */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import { ConcurrencyError, precondition } from '../eventSourcing/errors.js';
import type { Decider } from '../eventSourcing/types.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { type CommandStream, handleCommand, loadStream, projectDocument } from './commandHandler.js';

type Command = { type: 'Add'; amount: number } | { type: 'Close' };
type Event = { type: 'Added'; data: { amount: number } } | { type: 'Closed'; data: Record<string, never> };
type State = { total: number; closed: boolean };
type Doc = { total: number };

const counter: Decider<Command, Event, State> = {
  initialState: () => ({ total: 0, closed: false }),
  evolve: (s, e) => (e.type === 'Added' ? { ...s, total: s.total + e.data.amount } : { ...s, closed: true }),
  decide: (c, s) => {
    if (s.closed) throw precondition('closed');
    if (c.type === 'Close') return [{ type: 'Closed', data: {} }];
    return c.amount === 0 ? [] : [{ type: 'Added', data: { amount: c.amount } }];
  },
};

const project = (doc: Doc | null, e: { type: string; data: unknown }): Doc | null =>
  e.type === 'Closed' ? null : { total: (doc?.total ?? 0) + (e.data as { amount: number }).amount };

const stream = (onNull: 'delete' | 'keep'): CommandStream<Command, Event, State> => ({
  decider: counter,
  streamIdOf: (id) => `counter-${id}`,
  project: async (tx, events, id) => {
    await projectDocument<Event, Doc>(tx, 'counters', id, events, project, onNull);
  },
});

let store: ServiceStore;
afterEach(() => store.close());

describe('handleCommand', () => {
  it('appends at the version read, projects in the same transaction and returns before/after', async () => {
    store = createSqliteServiceStore(':memory:');
    const s = stream('delete');
    await store.transaction((tx) =>
      handleCommand(tx, s, 'c1', { type: 'Add', amount: 3 }, { correlationId: 'x' }),
    );
    const result = await store.transaction((tx) =>
      handleCommand(tx, s, 'c1', (state): Command => ({ type: 'Add', amount: state.total * 10 }), {
        correlationId: 'y',
        actor: { userId: 'u', role: 'admin' },
      }),
    );
    expect(result.before.total).toBe(3);
    expect(result.after.total).toBe(33);
    expect(result.decided).toEqual([{ type: 'Added', data: { amount: 30 } }]);
    expect(result.events.map((e) => [e.version, e.correlationId, e.actor])).toEqual([
      [2, 'y', { userId: 'u', role: 'admin' }],
    ]);
    expect(await store.get<Doc>('counters', 'c1')).toEqual({ total: 33 });
    expect((await loadStream(store, s, 'c1')).version).toBe(2);
  });

  it('appends and projects nothing when the decider decides nothing', async () => {
    store = createSqliteServiceStore(':memory:');
    const result = await store.transaction((tx) =>
      handleCommand(tx, stream('delete'), 'c2', { type: 'Add', amount: 0 }, { correlationId: 'x' }),
    );
    expect(result.events).toEqual([]);
    expect((await store.readStream('counter-c2')).version).toBe(0);
    expect(await store.get('counters', 'c2')).toBeNull();
  });

  it('appends at the version it loaded: a stream moved after the load fails with ConcurrencyError, nothing kept', async () => {
    store = createSqliteServiceStore(':memory:');
    const s = stream('delete');
    await expect(
      store.transaction((tx) => {
        // another writer moves the stream right after the handler has read it
        const moved = new Proxy(tx, {
          get(target, prop: keyof StoreTx) {
            if (prop === 'readStream')
              return async (streamId: string) => {
                const read = await target.readStream(streamId);
                await target.appendToStream(
                  streamId,
                  read.version,
                  [{ type: 'Added', data: { amount: 1 } }],
                  { correlationId: 'other' },
                );
                return read;
              };
            const value = target[prop];
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
        return handleCommand(moved, s, 'c3', { type: 'Add', amount: 2 }, { correlationId: 'x' });
      }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('counter-c3')).version).toBe(0);
    expect(await store.get('counters', 'c3')).toBeNull();
  });

  it('deletes a document that folds to null with onNull delete, and keeps it with keep', async () => {
    store = createSqliteServiceStore(':memory:');
    for (const [id, onNull] of [
      ['d', 'delete'],
      ['k', 'keep'],
    ] as const) {
      await store.transaction((tx) =>
        handleCommand(tx, stream(onNull), id, { type: 'Add', amount: 5 }, { correlationId: 'x' }),
      );
      await store.transaction((tx) =>
        handleCommand(tx, stream(onNull), id, { type: 'Close' }, { correlationId: 'x' }),
      );
    }
    expect(await store.get('counters', 'd')).toBeNull();
    expect(await store.get<Doc>('counters', 'k')).toEqual({ total: 5 });
  });
});
