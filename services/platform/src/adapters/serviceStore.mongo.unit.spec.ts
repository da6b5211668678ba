import { describe, expect, it } from 'vitest';
import { MongoBulkWriteError, MongoServerError, type BulkWriteResult } from 'mongodb';
import { DomainError } from '../eventSourcing/errors.js';
import * as queries from './serviceStore.mongo.support.js';
import { CLIENT_OPTIONS, MAJORITY, TX_OPTIONS } from './serviceStore.mongo.collections.js';

// The pure parts of the MongoDB ServiceStore: they run here, where no MongoDB server can
// (the adapter's own suite, serviceStore.mongo.int.spec.ts, needs a container runtime).

describe('MongoDB store: durable writes', () => {
  it('writes with majority write concern and journaling: transactions, single writes and the client it makes', () => {
    const durable = { w: 'majority', journal: true };
    expect(TX_OPTIONS.writeConcern).toEqual(durable);
    expect(MAJORITY).toEqual(durable);
    expect(CLIENT_OPTIONS.writeConcern).toEqual(durable);
  });
});

describe('MongoDB store: read-model queries', () => {
  it('filters on the stored document with $eq, never matching an array (as json_extract = value)', () => {
    expect(queries.docFilter({ role: 'admin', age: 31, ok: true, team: null, 'a.b': 'x' })).toEqual({
      'd.role': { $eq: 'admin', $not: { $type: 'array' } },
      'd.age': { $eq: 31, $not: { $type: 'array' } },
      'd.ok': { $eq: true, $not: { $type: 'array' } },
      'd.team': { $eq: null, $not: { $type: 'array' } },
      'd.a.b': { $eq: 'x', $not: { $type: 'array' } },
    });
    expect(queries.docFilter(undefined)).toEqual({});
  });

  it('refuses operator-like field names and non-scalar values', () => {
    expect(() => queries.docFilter({ $where: 'x' })).toThrow(DomainError);
    expect(() => queries.docFilter({ 'a.$b': 1 })).toThrow(DomainError);
    expect(() => queries.docFilter({ email: { $gt: '' } } as never)).toThrow(DomainError);
    expect(() => queries.docSort({ field: "a') --", direction: 'asc' })).toThrow(DomainError);
  });

  it('sorts by the field then by id in the same direction, else by id', () => {
    expect(queries.docSort({ field: 'age', direction: 'desc' })).toEqual({ 'd.age': -1, _id: -1 });
    expect(queries.docSort({ field: 'age', direction: 'asc' })).toEqual({ 'd.age': 1, _id: 1 });
    expect(queries.docSort(undefined)).toEqual({ _id: 1 });
  });

  it("pages with SQLite's LIMIT/OFFSET semantics", () => {
    expect(queries.pageOf(undefined, undefined)).toEqual({ none: false, skip: 0, limit: undefined });
    expect(queries.pageOf(2, 1)).toEqual({ none: false, skip: 1, limit: 2 });
    // limit 0 is nothing (MongoDB's limit(0) would be "no limit")
    expect(queries.pageOf(0, undefined).none).toBe(true);
    // a negative limit is no limit; a negative offset is 0
    expect(queries.pageOf(-1, -3)).toEqual({ none: false, skip: 0, limit: undefined });
    for (const bad of [2.5, Number.NaN, Number.POSITIVE_INFINITY, '2' as unknown as number]) {
      expect(() => queries.pageOf(bad, undefined)).toThrow(/limit must be an integer/);
      expect(() => queries.pageOf(undefined, bad)).toThrow(/offset must be an integer/);
    }
  });
});

describe('MongoDB store: duplicate key on (streamId, version) is a ConcurrencyError', () => {
  const bulk = (errmsg: string) =>
    new MongoBulkWriteError(
      { message: errmsg, code: 11000, writeErrors: [{ code: 11000, errmsg, index: 0 } as never] },
      {} as BulkWriteResult,
    );

  it('recognises it from insertMany (bulk write error) and from a single write (keyPattern)', () => {
    expect(
      queries.isStreamVersionConflict(
        bulk(
          'E11000 duplicate key error collection: t.events index: streamId_1_version_1 dup key: { streamId: "s", version: 2 }',
        ),
      ),
    ).toBe(true);
    expect(
      queries.isStreamVersionConflict(
        new MongoServerError({ code: 11000, errmsg: 'E11000', keyPattern: { streamId: 1, version: 1 } }),
      ),
    ).toBe(true);
  });

  it('does not take a duplicate event id, another error or a non-error for one', () => {
    // the stream id inside the duplicate _id value must not fool it
    expect(
      queries.isStreamVersionConflict(
        bulk(
          'E11000 duplicate key error collection: t.events index: _id_ dup key: { _id: "streamId_1_version_1" }',
        ),
      ),
    ).toBe(false);
    expect(
      queries.isStreamVersionConflict(
        new MongoServerError({ code: 11000, errmsg: 'E11000', keyPattern: { _id: 1 } }),
      ),
    ).toBe(false);
    expect(
      queries.isStreamVersionConflict(
        new MongoServerError({ code: 112, errmsg: 'WriteConflict index: streamId_1_version_1' }),
      ),
    ).toBe(false);
    expect(queries.isStreamVersionConflict(new Error('index: streamId_1_version_1'))).toBe(false);
    expect(queries.isStreamVersionConflict(null)).toBe(false);
    expect(queries.isStreamVersionConflict('E11000')).toBe(false);
  });
});

describe('MongoDB store: savepoints (nested store.transaction)', () => {
  it('undoes a failed savepoint newest first, and hands a released one to its parent', async () => {
    const log: string[] = [];
    const root = queries.SavepointScope.root();
    root.record(async () => void log.push('root write'));
    expect(root.recording).toBe(false);

    const outer = root.child();
    outer.record(async () => void log.push('undo outer 1'));
    const inner = outer.child();
    inner.record(async () => void log.push('undo inner 1'));
    inner.record(async () => void log.push('undo inner 2'));
    inner.release();
    outer.record(async () => void log.push('undo outer 2'));
    await outer.rollback();
    expect(log).toEqual(['undo outer 2', 'undo inner 2', 'undo inner 1', 'undo outer 1']);

    log.length = 0;
    const failing = root.child();
    failing.record(async () => void log.push('undo a'));
    await failing.rollback();
    await failing.rollback();
    expect(log).toEqual(['undo a']);

    // a savepoint released into the root leaves nothing to undo (the transaction's abort does it)
    const released = root.child();
    released.record(async () => void log.push('never'));
    released.release();
    await root.rollback();
    expect(log).toEqual(['undo a']);
  });
});

/**
 * A model of the outbox protocol of serviceStore.mongo.ts, run over many random interleavings:
 * appenders in several processes open a reservation (floor = the highest sequence their process has
 * seen), take positions from the sequence, then commit (events and the reservation's closing document
 * at once; the reservation is deleted afterwards) or abort (closing document, then delete, afterwards).
 * A relay reads the sequence, then the oldest reservation without a closing document (deleting closed
 * ones, reaping expired ones by inserting their closing document), then the committed events up to the
 * horizon. A reaped appender's commit fails (its closing insert conflicts). The relay must see every
 * committed event exactly once, in position order.
 */
describe('MongoDB store: the outbox horizon never skips an event that commits late', () => {
  type Appender = {
    process: number;
    step: 'reserve' | 'allocate' | 'finish' | 'close' | 'delete' | 'done';
    id: number;
    positions: number[];
    abort: boolean;
    n: number;
  };

  const simulate = (seed: number, useHorizon: boolean) => {
    let rand = seed;
    const next = () => {
      rand = (rand * 1103515245 + 12345) & 0x7fffffff;
      return rand / 0x7fffffff;
    };
    let seq = 0;
    const knownSeq = [0, 0, 0];
    const reservations = new Map<number, number>(); // id -> floor
    const closing = new Map<number, 'commit' | 'abort' | 'reap'>(); // the unique closing documents
    const committed = new Set<number>();
    const seen: number[] = [];
    let checkpoint = 0;
    let wakeups = 0;
    const appenders: Appender[] = Array.from({ length: 12 }, (_, i) => ({
      process: i % 3,
      step: 'reserve',
      id: i,
      positions: [],
      abort: next() < 0.25,
      n: 1 + Math.floor(next() * 3),
    }));
    // the relay's read is three steps apart, so appenders interleave between them
    let read: { stage: 0 | 1 | 2; seq: number; floor: number | undefined } = {
      stage: 0,
      seq: 0,
      floor: undefined,
    };

    const relayStep = () => {
      if (read.stage === 0) {
        read = { stage: 1, seq, floor: undefined };
      } else if (read.stage === 1) {
        let floor: number | undefined;
        for (const [id, f] of [...reservations.entries()].sort((a, b) => a[1] - b[1])) {
          if (closing.has(id)) {
            reservations.delete(id); // closed, not yet deleted
          } else if (next() < 0.1) {
            closing.set(id, 'reap'); // its lease ran out
            reservations.delete(id);
          } else {
            floor = f;
            break;
          }
        }
        read = { stage: 2, seq: read.seq, floor };
      } else {
        const horizon = useHorizon ? queries.outboxHorizon(read.seq, read.floor) : read.seq;
        const page = [...committed].filter((p) => p > checkpoint && p <= horizon).sort((a, b) => a - b);
        for (const p of page) {
          seen.push(p);
          checkpoint = p;
        }
        if (queries.isHeldBack(read.seq, read.floor, checkpoint)) wakeups++;
        read = { stage: 0, seq: 0, floor: undefined };
      }
    };

    const appenderStep = (a: Appender) => {
      if (a.step === 'reserve') {
        reservations.set(a.id, knownSeq[a.process]);
        a.step = 'allocate';
      } else if (a.step === 'allocate') {
        for (let i = 0; i < a.n; i++) a.positions.push(++seq);
        knownSeq[a.process] = Math.max(knownSeq[a.process], seq);
        a.step = 'finish';
      } else if (a.step === 'finish') {
        // commit: the closing document is inserted with the events; a reaped one makes it conflict
        if (!a.abort && !closing.has(a.id)) {
          closing.set(a.id, 'commit');
          for (const p of a.positions) committed.add(p);
          a.step = 'delete';
        } else {
          a.step = 'close';
        }
      } else if (a.step === 'close') {
        if (!closing.has(a.id)) closing.set(a.id, 'abort');
        a.step = 'delete';
      } else if (a.step === 'delete') {
        reservations.delete(a.id);
        a.step = 'done';
      }
    };

    for (let guard = 0; guard < 10_000; guard++) {
      const live = appenders.filter((a) => a.step !== 'done');
      if (live.length === 0) break;
      if (next() < 0.35) relayStep();
      else appenderStep(live[Math.floor(next() * live.length)]);
    }
    // everything settled: the relay drains
    for (let i = 0; i < 6; i++) relayStep();
    return { seen, committed: [...committed].sort((a, b) => a - b), wakeups };
  };

  it('delivers every committed position once, in order, across 300 interleavings', () => {
    let heldBack = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { seen, committed, wakeups } = simulate(seed, true);
      expect(seen, `seed ${seed}`).toEqual(committed);
      heldBack += wakeups;
    }
    // the interleavings did exercise the case: reads held back by an open reservation
    expect(heldBack).toBeGreaterThan(0);
  });

  it('(control) a relay that ignores reservations does skip late commits', () => {
    const skipped = Array.from({ length: 300 }, (_, i) => simulate(i + 1, false)).filter(
      ({ seen, committed }) => seen.length < committed.length,
    );
    expect(skipped.length).toBeGreaterThan(0);
  });
});

describe('docPage (keyset and prefix, as the SQLite twin)', () => {
  it('pages strictly after (field, id) in the order and matches a prefix in any case, literally', () => {
    expect(
      queries.docPage({
        orderBy: { field: 'createdAt', direction: 'desc' },
        after: { value: 't1', id: 'u1' },
      }),
    ).toEqual({
      $and: [
        { $or: [{ 'd.createdAt': { $lt: 't1' } }, { 'd.createdAt': { $eq: 't1' }, _id: { $lt: 'u1' } }] },
      ],
    });
    const page = queries.docPage({ prefix: { fields: ['name', 'email'], value: 'a.b' } }) as {
      $and: Array<{ $or: Array<Record<string, RegExp>> }>;
    };
    const re = page.$and[0]!.$or[0]!['d.name']!;
    expect([re.test('A.Bc'), re.test('axb')]).toEqual([true, false]);
    expect(queries.docPage({})).toEqual({});
    expect(() => queries.docPage({ after: { value: 1, id: 'x' } })).toThrow(/needs `orderBy`/);
  });
});
