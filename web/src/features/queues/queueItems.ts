import type { Page } from '../../app/pages';

/** A value of one of an item's own fields (unknown: items are server answers). */
const fieldOf = (item: object, key: string): unknown => Object.getOwnPropertyDescriptor(item, key)?.value;

const asId = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** Deposits are keyed by transactionId or _id, investments by investmentId or _id, the rest by _id. */
export function queueItemId(item: object): string {
  const id = ['_id', 'transactionId', 'investmentId', 'id']
    .map((key) => fieldOf(item, key))
    .find((v) => v != null);
  return asId(id);
}

/** Every id a queue element is known by (deposits: transactionId and _id; investments: investmentId and _id). */
export function queueItemIds(item: object): string[] {
  return [
    queueItemId(item),
    ...['_id', 'transactionId', 'investmentId'].map((key) => fieldOf(item, key)),
  ].filter((id): id is string => typeof id === 'string' && id !== '');
}

const knownAs = (item: object, id: string) => id !== '' && queueItemIds(item).includes(id);

/** An admin queue's loaded pages as RTK Query caches them (oldest first). */
export interface QueuePages<T> {
  pages: Array<Page<T>>;
}

/**
 * A request entered the queue (a live push): it goes at the end of what is loaded, unless already there
 * (a replayed push, or an item the queue's GET brought first). Queues read oldest first.
 */
export function addQueueItem<T extends object>(queue: QueuePages<T>, item: T): void {
  const id = queueItemId(item);
  if (queue.pages.some((page) => page.items.some((i) => knownAs(i, id)))) return;
  queue.pages[queue.pages.length - 1]?.items.push(item);
}

/** An admin decided the item (here, or any admin: the queue/itemDecided push): it leaves the queue. */
export function removeQueueItem<T extends object>(queue: QueuePages<T>, id: string): void {
  for (const page of queue.pages) page.items = page.items.filter((i) => !knownAs(i, id));
}

/**
 * What the screen lists: the pages in order, each item once (a page loaded after a live push may bring an
 * item the push already added).
 */
export function queueItemsOf<T extends object>(queue: QueuePages<T> | undefined): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const page of queue?.pages ?? [])
    for (const item of page.items) {
      const id = queueItemId(item);
      if (id !== '' && seen.has(id)) continue;
      seen.add(id);
      out.push(item);
    }
  return out;
}
