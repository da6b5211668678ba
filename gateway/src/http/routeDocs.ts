/**
 * What several routes' declarations say alike (routeTable.ts): paging, the review claims.
 */
import { CLAIM_MESSAGES } from '../live/claims.js';
import { INVALID_PAGE_QUERY, NEXT_CURSOR_HEADER } from './pages.js';

/** What a decision on a queue item answers when another admin holds its claim (live/claims.ts). */
export const CLAIM_REFUSALS = [CLAIM_MESSAGES.heldBy('<name>'), CLAIM_MESSAGES.busy];

/** A list route's paging (pages.ts): optional limit and cursor, the next page's cursor in X-Next-Cursor. */
export const paged = (order: string) => ({
  description: `Without parameters: the whole list, ${order} (the spec's answer). With \`limit\` or \`cursor\`: one page of the same list (keyset paging, stable while items are added or removed), the next page's cursor in the \`${NEXT_CURSOR_HEADER}\` header (absent on the last page); the body keeps its shape.`,
  query: {
    limit: 'Page size, 1-500 (default 50 when only `cursor` is given).',
    cursor: `The \`${NEXT_CURSOR_HEADER}\` of the previous page.`,
  },
  okHeaders: {
    [NEXT_CURSOR_HEADER]: 'The cursor of the next page; absent on the last page or without paging.',
  },
  errors: { 400: [INVALID_PAGE_QUERY] },
});

/** The rule of a decision on a claimed queue item. */
export const CLAIM_RULE =
  'The caller must hold the claim on the item (POST api/admin/claims); a decision that succeeds releases it.';
