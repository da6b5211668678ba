/**
 * The paged transaction history (GET api/invest/getTransactionHistory with `limit` / `cursor`): three lists
 * (the ledger's deposits, the investment service's investments, the withdrawal service's withdrawals), each
 * keyset-paged by its own service newest first, merged here a page at a time. A page takes the newest heads
 * of the three (a k-way merge by request time), so each list is used in its own order, from where the
 * previous page left it: nothing repeats or goes missing while items are added between pages. The history's
 * cursor holds each list's own cursor (an item cursor of the service: platform ports/pages.ts `itemCursors`), or null
 * once a list is used up; opaque to clients (base64url JSON, like the services' cursors).
 */
import { HttpError } from './errors.js';
import { INVALID_PAGE_QUERY } from './pages.js';

/** One list of the history: its page from a cursor ("" = the first page). */
export interface HistorySource<T> {
  fetch(cursor: string, limit: number): Promise<{ items: T[]; nextCursor: string; itemCursors: string[] }>;
  /** The item's request time (ISO): the order the service pages the list in. */
  time(item: T): string;
}

type Cursors = Array<string | null>;

const encode = (cursors: Cursors) => Buffer.from(JSON.stringify(cursors)).toString('base64url');

function decode(cursor: string, n: number): Cursors {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === n && v.every((c) => c === null || typeof c === 'string'))
      return v as Cursors;
  } catch {
    // not ours
  }
  throw new HttpError(400, INVALID_PAGE_QUERY);
}

/**
 * A page of at most `limit` items of the merged lists after `cursor` ("" = the first page), newest first,
 * each tagged with the index of its list, and the next page's cursor ("" on the last page).
 */
export async function mergeHistoryPage<T>(
  sources: ReadonlyArray<HistorySource<T>>,
  page: { limit: number; cursor: string },
): Promise<{ items: Array<{ source: number; item: T }>; nextCursor: string }> {
  const at: Cursors = page.cursor ? decode(page.cursor, sources.length) : sources.map(() => '');
  const fetched = await Promise.all(
    sources.map((s, i) => (at[i] === null ? null : s.fetch(at[i] as string, page.limit))),
  );
  const used = sources.map(() => 0);
  const items: Array<{ source: number; item: T }> = [];
  while (items.length < page.limit) {
    let best = -1;
    let bestTime = -Infinity;
    fetched.forEach((f, i) => {
      const head = f?.items[used[i]];
      if (head === undefined) return;
      const t = Date.parse(sources[i].time(head)) || 0;
      if (best < 0 || t > bestTime) [best, bestTime] = [i, t];
    });
    if (best < 0) break;
    items.push({ source: best, item: fetched[best]!.items[used[best]] });
    used[best]++;
  }
  const next: Cursors = fetched.map((f, i) => {
    if (!f) return null;
    // used up to the end of what it answered: where the service says its next page starts (none: done)
    if (used[i] === f.items.length) return f.nextCursor || null;
    if (used[i] === 0) return at[i];
    return f.itemCursors[used[i] - 1] ?? null;
  });
  return { items, nextCursor: next.every((c) => c === null) ? '' : encode(next) };
}
