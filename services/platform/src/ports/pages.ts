/**
 * Keyset pages of a read model: one way for every list (users, the admin queues, the
 * histories). A page is the documents strictly after the previous page's last (order field, id) in the
 * list's order, read from the store with `find({ where, orderBy, after, limit })` (a range on an
 * ensureIndex index, never everything then a slice), so an item added or removed between two pages never
 * makes another one repeat or go missing. The cursor is opaque to clients: base64url of `[value, id]`.
 *
 * The request side: `limit` 0 and no cursor is the spec's unpaged answer (every item); a limit of 1..500
 * (or a cursor with limit 0: the largest page) is a page; anything else is refused with INVALID_PAGE.
 */
import { invalid } from '../eventSourcing/errors.js';
import type { FindQuery, Scalar, StoreReads } from './serviceStore.js';

/** The largest page a list answers. */
export const MAX_PAGE = 500;
/** Refusal of a cursor that is not one of ours, or a limit out of 1..MAX_PAGE. */
export const INVALID_PAGE = 'Invalid cursor or limit';

/** Where a page ends: the last item's order value and document id. */
export interface PageCursor {
  value: string | number;
  id: string;
}

export const encodePageCursor = (c: PageCursor): string =>
  Buffer.from(JSON.stringify([c.value, c.id])).toString('base64url');

/** The cursor a client sent back, or null when it is not one of ours. */
export function decodePageCursor(cursor: string): PageCursor | null {
  if (!cursor || cursor.length > 1000) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      (typeof v[0] === 'string' || (typeof v[0] === 'number' && Number.isFinite(v[0]))) &&
      typeof v[1] === 'string'
    )
      return { value: v[0], id: v[1] };
  } catch {
    // not ours
  }
  return null;
}

/** A list request's paging, checked: null = unpaged (every item); else the page size and where it starts. */
export type PageRequest = { limit: number; after: PageCursor | null } | null;

/**
 * The paging of a request (`limit`, `cursor` as the proto carries them: 0 and "" when absent). Throws
 * invalid(INVALID_PAGE) for a cursor that is not ours or a limit out of range.
 */
export function pageRequest(input: { limit?: number; cursor?: string }): PageRequest {
  const limit = input.limit ?? 0;
  const cursor = input.cursor ?? '';
  const after = cursor ? decodePageCursor(cursor) : null;
  if ((cursor && !after) || !Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE)
    throw invalid(INVALID_PAGE);
  if (limit === 0 && !cursor) return null;
  return { limit: limit || MAX_PAGE, after };
}

/**
 * One page of a list and the cursor of the next ("" on the last page); when paged, `itemCursors[i]`
 * starts right after `items[i]` (a caller merging lists resumes each after the last item it used).
 */
export interface Page<T> {
  items: T[];
  nextCursor: string;
  itemCursors?: string[];
}

/**
 * A page of `collection` in the order of `orderBy` then the document id (read as `idOf(doc)`), only the
 * documents matching `where`. With `page` null, every matching document (the unpaged answer).
 */
export async function findPage<T extends object>(
  reads: StoreReads,
  collection: string,
  query: {
    where?: Record<string, Scalar>;
    orderBy: NonNullable<FindQuery['orderBy']>;
    idOf: (doc: T) => string;
  },
  page: PageRequest,
): Promise<Page<T>> {
  const { where, orderBy } = query;
  if (!page) return { items: await reads.find<T>(collection, { where, orderBy }), nextCursor: '' };
  const rows = await reads.find<T>(collection, {
    where,
    orderBy,
    ...(page.after ? { after: page.after } : {}),
    limit: page.limit + 1,
  });
  const items = rows.slice(0, page.limit);
  const itemCursors = items.map((doc) =>
    encodePageCursor({
      value: (doc as Record<string, unknown>)[orderBy.field] as string | number,
      id: query.idOf(doc),
    }),
  );
  return {
    items,
    nextCursor: rows.length > page.limit ? (itemCursors[itemCursors.length - 1] ?? '') : '',
    itemCursors,
  };
}
