/**
 * Paged lists, one way for every list route (getUsers, the admin queues, the
 * histories): the body keeps the spec's shape (the list, or the object holding it), `limit` and `cursor`
 * are optional query parameters, and the next page's cursor travels in the X-Next-Cursor response header
 * (absent on the last page). Without `limit`, `cursor` (or getUsers' `q`) a route answers the spec's
 * whole list. A limit out of 1..500 or a cursor that is not the services' own is a 400 (INVALID_PAGE_QUERY,
 * the services' platform ports/pages.ts INVALID_PAGE).
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { INVALID_PAGE, MAX_PAGE } from '@meridian/platform/ports/pages';
import { HttpError } from './errors.js';

/** The response header that carries the next page's cursor of a paged list. */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';
/** The refusal of a bad `limit` or `cursor`. */
export const INVALID_PAGE_QUERY = INVALID_PAGE;
/** A page's size when a paged request (a cursor alone) names none. */
export const DEFAULT_PAGE = 50;

/** The paging query parameters (getUsers adds its own `q`). */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
  cursor: z.string().max(1000).optional(),
});

/**
 * The paging a request asks for, as the list RPCs take it: `{}` (limit 0: every item) when it names
 * neither `limit` nor `cursor`, else `{ limit, cursor }`. 400 INVALID_PAGE_QUERY when they are bad.
 */
export function pageParams(req: Request): { limit?: number; cursor?: string } {
  const page = pageQuerySchema.safeParse({ limit: req.query.limit, cursor: req.query.cursor });
  if (!page.success) throw new HttpError(400, INVALID_PAGE_QUERY);
  if (page.data.limit === undefined && page.data.cursor === undefined) return {};
  return { limit: page.data.limit ?? DEFAULT_PAGE, cursor: page.data.cursor ?? '' };
}

/** Sets X-Next-Cursor when a next page exists. */
export function setNextCursor(res: Response, nextCursor: string): void {
  if (nextCursor) res.setHeader(NEXT_CURSOR_HEADER, nextCursor);
}
