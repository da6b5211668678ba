/**
 * The paging checks every keyset-paged list passes (platform ports/pages.ts), through its service's gRPC surface:
 * pages in the list's order, nothing repeated nor missing while items are added between pages, limit
 * 0 = every item, and a limit out of 1..500 or a cursor that is not the service's own refused with
 * INVALID_ARGUMENT 'Invalid cursor or limit'.
 */
import { expect } from 'vitest';
import { INVALID_PAGE, MAX_PAGE } from '../ports/pages.js';
import { expectStatus, grpc } from './grpcStatus.js';

export interface PagedList {
  /** One call of the list: its ids in the answer's order and the next page's cursor. */
  page(limit: number, cursor: string): Promise<{ ids: string[]; nextCursor: string }>;
  /** Adds one item to the list; resolves to its id. */
  add(): Promise<string>;
  /** 'asc': a new item comes last (a queue, oldest first); 'desc': first (a history, newest first). */
  order: 'asc' | 'desc';
}

/** Walks every page of `list` with `limit`, calling `between` after each page; the ids seen in order. */
export async function walkPages(
  list: Pick<PagedList, 'page'>,
  limit: number,
  between: (pageNo: number) => Promise<void> = async () => {},
): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '';
  for (let pageNo = 0; ; pageNo++) {
    const page = await list.page(limit, cursor);
    expect(page.ids.length).toBeLessThanOrEqual(limit);
    seen.push(...page.ids);
    if (!page.nextCursor) return seen;
    expect(page.ids.length, 'a page with a next cursor is full').toBe(limit);
    cursor = page.nextCursor;
    await between(pageNo);
  }
}

/** The whole paging contract over a list that already holds at least `n` (≥ 3) items the caller added. */
export async function expectKeysetPaging(list: PagedList): Promise<void> {
  const all = (await list.page(0, '')).ids;
  expect(all.length).toBeGreaterThanOrEqual(3);
  expect(new Set(all).size).toBe(all.length);
  expect((await list.page(0, '')).nextCursor).toBe('');

  // pages of 2 walk the whole list in order
  expect(await walkPages(list, 2)).toEqual(all);
  // one page of everything: no next cursor
  expect(await list.page(all.length, '')).toEqual({ ids: all, nextCursor: '' });

  // items added between pages: every earlier item exactly once, in order; a queue's new ones come last
  const added: string[] = [];
  const seen = await walkPages(list, 2, async () => {
    added.push(await list.add());
  });
  expect(new Set(seen).size, 'no item twice').toBe(seen.length);
  expect(seen.filter((id) => all.includes(id))).toEqual(all);
  // (a queue's new items come after every older one, a history's before: the page already read)
  if (list.order === 'asc') expect([...seen.slice(all.length)].sort()).toEqual([...added].sort());
  else expect(seen.filter((id) => added.includes(id))).toEqual([]);
  const now = (await list.page(0, '')).ids;
  const [older, newer] =
    list.order === 'asc'
      ? [now.slice(0, all.length), now.slice(all.length)]
      : [now.slice(added.length), now.slice(0, added.length)];
  expect(older).toEqual(all);
  expect([...newer].sort()).toEqual([...added].sort());

  // bounds and foreign cursors
  for (const [limit, cursor] of [
    [MAX_PAGE + 1, ''],
    [-1, ''],
    [2, 'nope'],
    [2, Buffer.from('{"a":1}').toString('base64url')],
  ] as const)
    await expectStatus(list.page(limit, cursor), grpc.status.INVALID_ARGUMENT, INVALID_PAGE);
  expect((await list.page(MAX_PAGE, '')).ids.length).toBe(now.length);
}

/**
 * A queue whose items leave it between pages (an admin's decision): the item the cursor names (the last
 * one read) and the next unread one are decided after each page; every other item is read exactly once,
 * in order.
 */
export async function expectNoGapWhenItemsLeave(
  list: Pick<PagedList, 'page'> & { remove(id: string): Promise<void> },
): Promise<void> {
  const before = (await list.page(0, '')).ids;
  expect(before.length).toBeGreaterThanOrEqual(6);
  const removed = new Set<string>();
  const seen: string[] = [];
  let cursor = '';
  for (;;) {
    const page = await list.page(2, cursor);
    seen.push(...page.ids);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
    const last = page.ids[page.ids.length - 1];
    const unread = before.find((id) => !seen.includes(id) && !removed.has(id));
    for (const id of [last, unread]) {
      if (id === undefined) continue;
      await list.remove(id);
      removed.add(id);
    }
  }
  expect(removed.size).toBeGreaterThan(0);
  expect(seen).toEqual(before.filter((id) => seen.includes(id) || !removed.has(id)));
  expect(new Set(seen).size).toBe(seen.length);
}
