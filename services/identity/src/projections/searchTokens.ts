/**
 * Blind prefix tokens of the admin's user search. Names and emails are
 * sealed per user, so the store cannot match a prefix; instead, for every user, each normalised prefix
 * (1..24 code points) of each word of the name and of the email (the whole address and its local part) is
 * stored as a keyed HMAC-SHA256 (IdentityCrypto.searchToken, a key derived from SECRETS_KEY) in
 * `search-tokens`: { token, userId, createdAt } keyed `<token>:<userId>`, indexed on (token, createdAt, id):
 * the id sorts like the userId inside one token, so the index is (token, createdAt, userId). A search is one
 * HMAC and a keyset range of that index, newest first.
 *
 * Written inline by projectInline (userView.ts), in the same transaction as the user view: on
 * UserRegistered, rewritten on a name change, every token of the user deleted on UserDeleted (found by the
 * (userId, token) index, so nothing is left even when the name can no longer be opened).
 *
 * A token reveals only that two prefixes are equal, and only to someone holding the key.
 */
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';

export const SEARCH_TOKENS = 'search-tokens';
/** Longest prefix with a token of its own; a longer query word is looked up by its first 24 and filtered. */
export const MAX_PREFIX = 24;
/** The checkpoint set once every user that existed before tokens got theirs (backfillSearchTokens). */
export const SEARCH_TOKENS_BACKFILLED = 'search-tokens-backfilled';

export const SEARCH_TOKEN_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  // the id is `<token>:<userId>`: inside one token it orders like the userId
  { collection: SEARCH_TOKENS, fields: ['token', 'createdAt'] },
  // a user's tokens (rewritten, deleted)
  { collection: SEARCH_TOKENS, fields: ['userId', 'token'] },
];

export interface SearchTokenDoc {
  token: string;
  userId: string;
  createdAt: string;
}

/** What writing tokens needs: the keyed hash, and the opening of a sealed value (null: its key is gone). */
export interface SearchTokenizer {
  token(term: string): string;
  open(value: string): Promise<string | null>;
}

export const searchTokenId = (token: string, userId: string) => `${token}:${userId}`;

/** Lower case, NFKC, trimmed, inner whitespace collapsed to one space. */
export const normaliseSearch = (value: string): string =>
  value.normalize('NFKC').toLowerCase().normalize('NFKC').trim().replace(/\s+/g, ' ');

/** The first `n` code points of `word` (never half a surrogate pair). */
const head = (word: string, n: number) => Array.from(word).slice(0, n).join('');

/** Every prefix (1..MAX_PREFIX code points) of `word`. */
function prefixesOf(word: string): string[] {
  const chars = Array.from(word);
  const out: string[] = [];
  for (let n = 1; n <= Math.min(chars.length, MAX_PREFIX); n++) out.push(chars.slice(0, n).join(''));
  return out;
}

/** The words a user is found by: each word of the name, the whole email and its local part (normalised). */
export function searchWords(name: string, email: string): string[] {
  const e = normaliseSearch(email);
  const local = e.includes('@') ? e.slice(0, e.indexOf('@')) : '';
  return [...normaliseSearch(name).split(' '), e, local].filter((w) => w !== '');
}

/** The distinct prefixes behind a user's tokens (pure). */
export function searchTerms(name: string, email: string): string[] {
  return [...new Set(searchWords(name, email).flatMap(prefixesOf))];
}

/**
 * Whether an opened user matches a normalised query: the query starts the name at one of its words, or
 * starts the email. For a single word of at most MAX_PREFIX code points this is exactly what its token finds.
 */
export function matchesSearch(user: { name: string; email: string }, query: string): boolean {
  const name = normaliseSearch(user.name);
  const email = normaliseSearch(user.email);
  if (email.startsWith(query)) return true;
  const words = name.split(' ');
  for (let i = 0; i < words.length; i++) if (words.slice(i).join(' ').startsWith(query)) return true;
  return false;
}

/**
 * The term to look up for a query (its first word, at most MAX_PREFIX code points) and whether the rows it
 * finds need filtering by opening (a query of several words, or one longer word); null for an empty query.
 */
export function searchPlan(query: string): { term: string; exact: boolean; query: string } | null {
  const q = normaliseSearch(query);
  if (!q) return null;
  const first = q.split(' ')[0]!;
  const term = head(first, MAX_PREFIX);
  return { term, exact: term === q, query: q };
}

/** Deletes every token of a user. */
export async function deleteSearchTokens(tx: StoreTx, userId: string): Promise<void> {
  // ordered by the index's next field: the (userId, token) index then answers it (SQLite's planner, with no
  // order to save a sort on, would rather walk the whole collection by its primary key)
  const docs = await tx.find<SearchTokenDoc>(SEARCH_TOKENS, {
    where: { userId },
    orderBy: { field: 'token', direction: 'asc' },
  });
  for (const doc of docs) await tx.delete(SEARCH_TOKENS, searchTokenId(doc.token, userId));
}

/**
 * Replaces a user's tokens by those of `view` (sealed name and email, opened here); none when the view is
 * gone or its values can no longer be opened (a deleted user's key).
 */
export async function writeSearchTokens(
  tx: StoreTx,
  tokenizer: SearchTokenizer,
  userId: string,
  view: { name: string; email: string; createdAt: string } | null,
): Promise<void> {
  await deleteSearchTokens(tx, userId);
  if (!view) return;
  const [name, email] = await Promise.all([tokenizer.open(view.name), tokenizer.open(view.email)]);
  if (name === null || email === null) return;
  for (const term of searchTerms(name, email)) {
    const token = tokenizer.token(term);
    await tx.put<SearchTokenDoc>(SEARCH_TOKENS, searchTokenId(token, userId), {
      token,
      userId,
      createdAt: view.createdAt,
    });
  }
}

/**
 * The token rows of one token after (createdAt, userId), newest first (createdAt, then userId, descending),
 * at most `limit`.
 */
export function findTokenRows(
  db: StoreReads,
  token: string,
  after: { createdAt: string; id: string } | null,
  limit: number,
): Promise<SearchTokenDoc[]> {
  return db.find<SearchTokenDoc>(SEARCH_TOKENS, {
    where: { token },
    orderBy: { field: 'createdAt', direction: 'desc' },
    ...(after ? { after: { value: after.createdAt, id: searchTokenId(token, after.id) } } : {}),
    limit,
  });
}
