/**
 * The admin's user search over blind prefix tokens (projections/searchTokens.ts), and the backfill that gives
 * tokens to the users of a store written before tokens existed.
 */
import type { ServiceStore, StoreReads } from '@meridian/platform/ports/serviceStore';
import type { Logger } from '@meridian/platform/logger';
import {
  findTokenRows,
  matchesSearch,
  SEARCH_TOKENS,
  SEARCH_TOKENS_BACKFILLED,
  searchPlan,
  writeSearchTokens,
  type SearchTokenizer,
} from '../projections/searchTokens.js';
import { encodeUserCursor, USERS, type UserCursor, type UserView } from '../projections/userView.js';
import { openUserView, searchTokenizerOf, type IdentityContext } from './context.js';

const SEARCH_BATCH = 200;
const BACKFILL_STARTED = 1;
const BACKFILL_DONE = 2;

/**
 * A page of the users whose name (at one of its words) or email starts with `query` (case and Unicode forms
 * aside: normaliseSearch), newest first, keyset-paged like listUserPage (same cursor). One HMAC of the query's
 * first word (at most 24 code points) and a range of the token index; a query of several words or a longer
 * word is then filtered by opening the candidates.
 */
export async function searchUserPage(
  ctx: IdentityContext,
  db: StoreReads,
  page: { limit: number; after: UserCursor | null; query: string },
): Promise<{ users: UserView[]; nextCursor: string }> {
  const plan = searchPlan(page.query);
  if (!plan) return { users: [], nextCursor: '' };
  const token = ctx.crypto.searchToken(plan.term);
  const found: UserView[] = [];
  let after = page.after;
  for (;;) {
    const want = plan.exact ? page.limit + 1 - found.length : SEARCH_BATCH;
    const rows = await findTokenRows(db, token, after, want);
    const views = await Promise.all(rows.map((r) => db.get<UserView>(USERS, r.userId)));
    const opened = await Promise.all(views.map((v) => (v ? openUserView(ctx, v) : null)));
    for (const user of opened) {
      if (!user || (!plan.exact && !matchesSearch(user, plan.query))) continue;
      found.push(user);
      if (found.length > page.limit) {
        const users = found.slice(0, page.limit);
        const last = users[users.length - 1]!;
        return { users, nextCursor: encodeUserCursor({ createdAt: last.createdAt, id: last.id }) };
      }
    }
    if (rows.length < want) return { users: found, nextCursor: '' };
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.userId };
  }
}

/**
 * Gives tokens to the users of a store written before tokens existed: unless already done (the checkpoint
 * SEARCH_TOKENS_BACKFILLED is 2), when users exist but not one token does, every user view's tokens are
 * (re)written, a batch of users per transaction (each read again inside it, so a concurrent change or
 * deletion wins), then the checkpoint is set to 2. A store whose tokens the projection wrote from its first
 * user on is only marked. Idempotent: an interrupted backfill (checkpoint 1) runs again at the next start.
 */
export async function backfillSearchTokens(
  ctx: Pick<IdentityContext, 'crypto' | 'personalData'> & { store: ServiceStore; logger?: Logger },
  batch = 200,
): Promise<number> {
  const { store } = ctx;
  const state = await store.getCheckpoint(SEARCH_TOKENS_BACKFILLED);
  if (state === BACKFILL_DONE) return 0;
  const users = await store.count(USERS);
  // started and interrupted: again; else only a store with users and not one token
  const needed =
    state === BACKFILL_STARTED || (users > 0 && (await store.find(SEARCH_TOKENS, { limit: 1 })).length === 0);
  let done = 0;
  if (needed) {
    await store.transaction((tx) => tx.setCheckpoint(SEARCH_TOKENS_BACKFILLED, BACKFILL_STARTED));
    const tokenizer: SearchTokenizer = searchTokenizerOf(ctx);
    ctx.logger?.info({ users }, 'writing the search tokens of existing users');
    let after: { value: string; id: string } | null = null;
    for (;;) {
      const page: UserView[] = await store.find<UserView>(USERS, {
        orderBy: { field: 'createdAt', direction: 'desc' },
        ...(after ? { after } : {}),
        limit: batch,
      });
      if (page.length === 0) break;
      await store.transaction(async (tx) => {
        for (const { id } of page)
          await writeSearchTokens(tx, tokenizer, id, await tx.get<UserView>(USERS, id));
      });
      done += page.length;
      const last = page[page.length - 1]!;
      after = { value: last.createdAt, id: last.id };
    }
    ctx.logger?.info({ users: done }, 'search tokens written');
  }
  await store.transaction((tx) => tx.setCheckpoint(SEARCH_TOKENS_BACKFILLED, BACKFILL_DONE));
  return done;
}
