/**
 * The size of an admin queue, kept as a counter in the read model: one document per queue in
 * the `counters` collection, moved in the same transaction as the projection that moves an item into or
 * out of the queue, the way identity keeps its user statistics (projections/userView.ts): what the
 * document counted for before the change, and after it. A store whose items predate the counter counts
 * them once (inside the transaction, before this change) and the counter moves from there; a rebuild
 * drops the counter with the documents it counts.
 */
import { randomUUID } from 'node:crypto';
import { precondition } from '../eventSourcing/errors.js';
import type { Scalar, StoreReads, StoreTx } from './serviceStore.js';

export const COUNTERS = 'counters';

/** One queue: the collection and the equality filter of its pending documents. */
export interface PendingCounter {
  /** the counter's document id (`pending-deposits`) */
  id: string;
  collection: string;
  where: Record<string, Scalar>;
}

export interface CounterDoc {
  id: string;
  count: number;
}

const counts = (counter: PendingCounter, doc: object | null): number =>
  doc !== null && Object.entries(counter.where).every(([k, v]) => (doc as Record<string, unknown>)[k] === v)
    ? 1
    : 0;

/**
 * Writes one document of the counter's collection through `write` (which answers the document as
 * written, null when deleted) and moves the counter by what the change did to the queue. `known`: the
 * document as stored and as it will be written, when the caller has both in hand; a write that keeps it in
 * (or out of) the queue then reads and touches no counter.
 */
export async function countedWrite<D extends object>(
  tx: StoreTx,
  counter: PendingCounter,
  id: string,
  write: () => Promise<D | null>,
  known?: { before: D | null; after: D | null },
): Promise<D | null> {
  if (known && counts(counter, known.before) === counts(counter, known.after)) return write();
  const before = await tx.get<D>(counter.collection, id);
  const stored = await tx.get<CounterDoc>(COUNTERS, counter.id);
  const base = stored ? stored.count : await tx.count(counter.collection, counter.where);
  const after = await write();
  const delta = counts(counter, after) - counts(counter, before);
  if (!stored || delta !== 0)
    await tx.put<CounterDoc>(COUNTERS, counter.id, { id: counter.id, count: base + delta });
  return after;
}

/** The queue's size: the counter, or (a store that has none yet) the count of its documents. */
export async function pendingCount(reads: StoreReads, counter: PendingCounter): Promise<number> {
  const stored = await reads.get<CounterDoc>(COUNTERS, counter.id);
  return stored ? stored.count : reads.count(counter.collection, counter.where);
}

/** How many requests of one kind (deposits, investments, withdrawals) a user may have pending at once, by default. */
export const DEFAULT_MAX_PENDING_PER_USER = 5;

/** The refusal of a request over the cap: `noun` in the plural ("deposits"). */
export const tooManyPending = (max: number, noun: string): string =>
  `You have ${max} pending ${noun}; wait until they are decided before requesting another`;

/** The collection of the per-user guard documents capPendingOfUser writes. */
export const PENDING_CAPS = 'pendingCaps';

/**
 * A flood guard: refuses a user's new request (precondition, tooManyPending) while `max` of their requests of
 * the kind are pending, the documents of `collection` matching `where` (the user's id among its fields). Called
 * in the transaction that records the request (the read models are projected in it), it is race-safe: it
 * writes the user's guard document in that same transaction, so two requests at once cannot both see room.
 * SQLite runs the transactions one after the other, the second seeing the first's request; on MongoDB their
 * writes to the guard conflict and the second transaction runs again, and sees it too. A fresh value each
 * time, so that the write is never a no-op.
 */
export async function capPendingOfUser(
  tx: StoreTx,
  cap: { collection: string; where: Record<string, Scalar>; userId: string; max: number; noun: string },
): Promise<void> {
  const guardId = `${cap.collection}:${cap.userId}`;
  await tx.put(PENDING_CAPS, guardId, { id: guardId, write: randomUUID() });
  const pending = await tx.count(cap.collection, cap.where);
  if (pending >= cap.max) throw precondition(tooManyPending(pending, cap.noun), 'TOO_MANY_PENDING');
}
