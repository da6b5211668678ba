/**
 * Paged lists: every list route takes optional `limit` and `cursor` and answers the next page's
 * cursor in the X-Next-Cursor header (absent on the last page); the body keeps its spec shape. Screens load
 * the first page, then the next one as the user scrolls to the end (useSentinel in ui/MoreSentinel).
 */
export const LIST_PAGE_SIZE = 50;

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  /** '' on the last page */
  nextCursor: string;
}

/** `path` with the page's `limit` and `cursor` in its query string. */
export function pageUrl(path: string, page: PageRequest): string {
  const params = new URLSearchParams({ limit: String(page.limit) });
  if (page.cursor) params.set('cursor', page.cursor);
  return `${path}${path.includes('?') ? '&' : '?'}${params.toString()}`;
}
