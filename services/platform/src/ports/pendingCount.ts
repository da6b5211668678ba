/**
 * The size of an admin queue, kept as a counter in the read model (issue 14): one document per queue in
 * the `counters` collection, moved in the same transaction as the projection that moves an item into or
 * out of the queue, the way identity keeps its user statistics (projections/userView.ts): what the
 * document counted for before the change, and after it. A store whose items predate the counter counts
 * them once (inside the transaction, before this change) and the counter moves from there; a rebuild
 * drops the counter with the documents it counts.
 */
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
 * written, null when deleted) and moves the counter by what the change did to the queue.
 */
export async function countedWrite<D extends object>(
  tx: StoreTx,
  counter: PendingCounter,
  id: string,
  write: () => Promise<D | null>,
): Promise<D | null> {
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
