/**
 * The pure parts of the MongoDB ServiceStore (serviceStore.mongo.ts), apart so they are unit-tested
 * on machines where no MongoDB server can run: query building, paging, error mapping, savepoints
 * and the outbox horizon.
 */
import type { Document, Filter } from 'mongodb';
import { invalid } from '../eventSourcing/errors.js';
import type { FindQuery, Scalar } from '../ports/serviceStore.js';
import { checkField, checkScalar } from './storeShared.js';

/** Read-model documents are stored as `{ _id: id, d: <the document> }`: a document's own `_id` survives. */
export const DOC = 'd';

/** The unique index that backs optimistic concurrency on streams. */
export const STREAM_VERSION_INDEX = 'streamId_1_version_1';

/**
 * Equality filter on a read model, matching the SQLite twin (json_extract = value):
 * - a scalar never matches an array (MongoDB's own `{ f: 1 }` would match `f: [1, 2]`);
 * - null matches a missing field or JSON null;
 * - `$eq`, so a value can never be read as an operator; field names are checked (no `$`, no injection).
 */
export function docFilter<D extends Document = Document>(
  where: Record<string, Scalar> | undefined,
): Filter<D> {
  const filter: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(where ?? {})) {
    checkField(field);
    checkScalar(field, value);
    filter[`${DOC}.${field}`] = { $eq: value, $not: { $type: 'array' } };
  }
  return filter as Filter<D>;
}

/**
 * The keyset (`after`) and prefix conditions of find(), as the SQLite twin applies them: strictly after
 * (field value, id) in the order's direction; a case-insensitive prefix of any of the fields.
 */
export function docPage(query: FindQuery): Record<string, unknown> {
  const and: unknown[] = [];
  if (query.prefix && query.prefix.value !== '') {
    const re = new RegExp(`^${query.prefix.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
    and.push({ $or: query.prefix.fields.map((f) => ({ [`${DOC}.${checkField(f)}`]: re })) });
  }
  if (query.after) {
    if (!query.orderBy) throw invalid('find: `after` needs `orderBy`');
    const field = `${DOC}.${checkField(query.orderBy.field)}`;
    checkScalar(query.orderBy.field, query.after.value);
    const op = query.orderBy.direction === 'desc' ? '$lt' : '$gt';
    and.push({
      $or: [
        { [field]: { [op]: query.after.value } },
        { [field]: { $eq: query.after.value }, _id: { [op]: query.after.id } },
      ],
    });
  }
  return and.length ? { $and: and } : {};
}

/** Sort of find(): by the field then by id in the same direction, else by id (as SQLite orders). */
export function docSort(
  orderBy: { field: string; direction: 'asc' | 'desc' } | undefined,
): Record<string, 1 | -1> {
  if (!orderBy) return { _id: 1 };
  const dir = orderBy.direction === 'desc' ? -1 : 1;
  return { [`${DOC}.${checkField(orderBy.field)}`]: dir, _id: dir };
}

export interface Page {
  /** true: the answer is empty whatever the data (limit 0). */
  none: boolean;
  skip: number;
  /** undefined: no limit. */
  limit: number | undefined;
}

/**
 * LIMIT/OFFSET with SQLite's semantics (`LIMIT ? OFFSET ?` of the twin): limit 0 returns nothing
 * (MongoDB's limit(0) would mean "no limit"), a negative limit means no limit (MongoDB's would mean
 * "one batch"), a negative offset counts as 0 (MongoDB's skip would fail). A value that is not an
 * integer is refused with a clear error (SQLite fails with "datatype mismatch").
 */
export function pageOf(limit: number | undefined, offset: number | undefined): Page {
  for (const [name, value] of [
    ['limit', limit],
    ['offset', offset],
  ] as const) {
    if (value !== undefined && !Number.isSafeInteger(value))
      throw invalid(`${name} must be an integer, got ${String(value)}`);
  }
  return {
    none: limit === 0,
    skip: Math.max(0, offset ?? 0),
    limit: limit === undefined || limit < 0 ? undefined : limit,
  };
}

interface DuplicateKeyLike {
  code?: unknown;
  message?: unknown;
  errmsg?: unknown;
  keyPattern?: unknown;
  writeErrors?: unknown;
}

/**
 * True when err is a duplicate key on (streamId, version): another writer took that version of the
 * stream first. Recognises a single-write server error (code 11000 with keyPattern or the index name in
 * the message) and a bulk write error (insertMany: MongoBulkWriteError with writeErrors). A duplicate
 * event id (the `_id_` index) is not one.
 */
export function isStreamVersionConflict(err: unknown): boolean {
  const e = err as DuplicateKeyLike | null;
  if (!e || typeof e !== 'object') return false;
  const one = (x: DuplicateKeyLike | null | undefined): boolean => {
    if (!x || Number(x.code) !== 11000) return false;
    const pattern = x.keyPattern as Record<string, unknown> | undefined;
    if (pattern && typeof pattern === 'object') return 'streamId' in pattern && 'version' in pattern;
    const text = `${typeof x.errmsg === 'string' ? x.errmsg : ''} ${typeof x.message === 'string' ? x.message : ''}`;
    return new RegExp(`index: ${STREAM_VERSION_INDEX}\\b`).test(text);
  };
  if (one(e)) return true;
  const list = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [];
  return list.some((w: unknown) => {
    const we = w as DuplicateKeyLike & { err?: DuplicateKeyLike };
    return one(we) || one(we?.err);
  });
}

/**
 * The highest position a reader outside transactions may read up to (the outbox horizon).
 *
 * `seq` is the position sequence read FIRST, `oldestFloor` the lowest floor among the open
 * position reservations read AFTER it (undefined when none is open). Every appending transaction
 * attempt opens a reservation whose floor is below every position it will take, before it takes any,
 * and its reservation stops being open only when its events become visible (the closing document is
 * inserted inside the committing transaction) or can never become visible (closed after the attempt
 * failed, or reaped: the reaper's closing document makes the transaction's own insert of it conflict,
 * so it cannot commit). Take a position p <= the horizon: p <= seq, so its reservation was open before
 * seq was read; it was not open when the reservations were read (else the floor, below p, would cap
 * the horizon below p); so p is visible by then or never will be. A reader never skips an event that
 * commits late; it only waits for it.
 */
export function outboxHorizon(seq: number, oldestFloor: number | undefined): number {
  return oldestFloor === undefined ? seq : Math.min(seq, oldestFloor);
}

/** True when an open reservation keeps positions below `seq` out of a reader's reach. */
export function isHeldBack(seq: number, oldestFloor: number | undefined, afterPosition: number): boolean {
  return oldestFloor !== undefined && oldestFloor < seq && seq > afterPosition;
}

/**
 * A savepoint: MongoDB has none, so a nested store.transaction records how to undo each write it makes
 * (inside the same server transaction) and runs the undos, newest first, when its callback fails.
 * A scope that succeeds hands its undos to its parent, so a failing enclosing savepoint undoes them too.
 * The root scope (the transaction itself) records nothing: its failure aborts the server transaction.
 */
export class SavepointScope {
  private undos: Array<() => Promise<void>> = [];

  private constructor(private readonly parent: SavepointScope | null) {}

  static root(): SavepointScope {
    return new SavepointScope(null);
  }

  child(): SavepointScope {
    return new SavepointScope(this);
  }

  /** Whether writes in this scope need their undo (false at the root). */
  get recording(): boolean {
    return this.parent !== null;
  }

  record(undo: () => Promise<void>): void {
    if (this.recording) this.undos.push(undo);
  }

  /** The savepoint's callback succeeded: its writes now belong to the enclosing scope. */
  release(): void {
    const mine = this.undos.splice(0);
    if (this.parent?.recording) this.parent.undos.push(...mine);
  }

  /** The savepoint's callback failed: undo its writes, newest first. */
  async rollback(): Promise<void> {
    const mine = this.undos.splice(0).reverse();
    for (const undo of mine) await undo();
  }
}
