/**
 * The admin's user search over blind prefix tokens (projections/searchTokens.ts) through identity's gRPC
 * surface: a word of the name or the email by prefix, case and Unicode forms aside, keyset paging through many
 * matches, tokens rewritten on a rename and gone with the user, and the backfill of a store from before tokens.
 */
import { expect, it } from 'vitest';
import { identityPerTest, type Harness } from '../testing/harness.js';
import {
  SEARCH_TOKENS,
  SEARCH_TOKENS_BACKFILLED,
  searchTerms,
  searchTokenId,
} from '../projections/searchTokens.js';
import type { SearchTokenDoc } from '../projections/searchTokens.js';

const h = identityPerTest();

type Caller = Awaited<ReturnType<Harness['callerOf']>>;

const ids = (page: { users: Array<{ id: string }> }) => page.users.map((u) => u.id);
const search = async (h: Harness, caller: Caller, query: string, limit = 50) =>
  ids(await h.call('listUsers', { caller, limit, query }));
const tokensOf = (h: Harness, userId: string) =>
  h.store.find<SearchTokenDoc>(SEARCH_TOKENS, { where: { userId } });

it('finds users by a prefix of any word of the name or of the email, in any case and Unicode form', async () => {
  const admin = await h.adminCaller();
  const tag = `q${Date.now().toString(36)}`;
  const elodie = await h.register({ name: 'Élodie Marchetti', email: `${tag}.elo@example.com` });
  h.advance(1_000);
  const mark = await h.register({ name: 'Mark Twain', email: `twain.${tag}@example.org` });
  const other = await h.register({ name: 'Zoë Ortiz', email: `zo.${tag}@example.net` });

  // a word of the name, newest first
  expect(await search(h, admin, 'mar')).toEqual([mark.user!.id, elodie.user!.id]);
  expect(await search(h, admin, 'TWA')).toEqual([mark.user!.id]);
  // the email: the whole address, and its local part (the domain is not a word of its own)
  expect(await search(h, admin, `${tag}.E`)).toEqual([elodie.user!.id]);
  expect(await search(h, admin, `twain.${tag}@example.o`)).toEqual([mark.user!.id]);
  expect(await search(h, admin, 'example.org')).toEqual([]);
  // case and Unicode forms: upper case, and a decomposed é (e + U+0301) for the composed one
  expect(await search(h, admin, 'ÉLO')).toEqual([elodie.user!.id]);
  expect(await search(h, admin, 'e\u0301lodie')).toEqual([elodie.user!.id]);
  expect(await search(h, admin, '  zoë  ')).toEqual([other.user!.id]);
  // several words: the first word's token, then the page filtered on the opened names
  expect(await search(h, admin, 'mark tw')).toEqual([mark.user!.id]);
  expect(await search(h, admin, 'mark x')).toEqual([]);
  expect(await search(h, admin, 'élodie   marchetti')).toEqual([elodie.user!.id]);
  // a word longer than the longest token: looked up by its first 24 and filtered
  const long = `${tag}-a-very-long-local-part-of-an-address`;
  const longUser = await h.register({ name: 'Long Address', email: `${long}@example.com` });
  expect(await search(h, admin, `${long}@ex`)).toEqual([longUser.user!.id]);
  expect(await search(h, admin, `${long}@xx`)).toEqual([]);
  // the store holds tokens, never the prefixes themselves: each token a keyed hash (43 base64url
  // characters, longer than any prefix kept), and nothing else in the rows holds a part of the name or email
  // (the tokens themselves are left out of that check: "elo" turns up by chance in random base64 about one
  // run in twenty, and failed a CI run)
  const stored = await tokensOf(h, elodie.user!.id);
  expect(stored.length).toBeGreaterThan(0);
  expect(stored.every((d) => /^[A-Za-z0-9_-]{43}$/.test(d.token))).toBe(true);
  expect(JSON.stringify(stored.map(({ token: _token, ...rest }) => rest))).not.toMatch(/elo|marchetti/i);
});

it('pages through many matches newest first, each once, while others register between pages', async () => {
  const admin = await h.adminCaller();
  const made: string[] = [];
  for (let i = 0; i < 23; i++) {
    made.push((await h.register({ name: `Pagina ${i}` })).user!.id);
    await h.register({ name: `Other ${i}` });
    if (i % 3 === 0) h.advance(1_000); // some share a createdAt: the id breaks the tie
  }
  const all = await h.call('listUsers', { caller: admin, limit: 500 });
  const expected = all.users.filter((u) => made.includes(u.id)).map((u) => u.id);
  expect(expected).toHaveLength(23);

  const seen: string[] = [];
  let cursor = '';
  let pages = 0;
  do {
    const page = await h.call('listUsers', { caller: admin, limit: 5, query: 'PAG', cursor });
    expect(page.users.length).toBeLessThanOrEqual(5);
    seen.push(...ids(page));
    cursor = page.nextCursor;
    pages++;
    h.advance(1_000);
    // newer than every page read so far: never shows up on a later page
    await h.register({ name: `Pagina late ${pages}` });
  } while (cursor);
  expect(pages).toBe(5);
  expect(seen).toEqual(expected);

  // the multi-word (filtered) path pages the same way
  const filtered: string[] = [];
  cursor = '';
  do {
    const page = await h.call('listUsers', { caller: admin, limit: 4, query: 'pagina 1', cursor });
    filtered.push(...ids(page));
    cursor = page.nextCursor;
  } while (cursor);
  const ones = all.users.filter((u) => made.includes(u.id) && u.name.startsWith('Pagina 1')).map((u) => u.id);
  expect(ones.length).toBeGreaterThan(4);
  expect(filtered).toEqual(ones);
});

it('rewrites the tokens on a name change and leaves none after the deletion', async () => {
  const admin = await h.adminCaller();
  const quentin = await h.register({ name: 'Quentin Blake', email: 'qb-rename@example.com' });
  const id = quentin.user!.id;
  expect(await search(h, admin, 'blak')).toEqual([id]);
  const before = await tokensOf(h, id);
  expect(before).toHaveLength(searchTerms('Quentin Blake', 'qb-rename@example.com').length);

  await h.call('updateUser', { caller: await h.callerOf(quentin.sessionToken), name: 'Xavier Yates' });
  expect(await search(h, admin, 'blak')).toEqual([]);
  expect(await search(h, admin, 'quen')).toEqual([]);
  expect(await search(h, admin, 'yat')).toEqual([id]);
  expect(await search(h, admin, 'qb-ren')).toEqual([id]); // the email did not change
  const after = await tokensOf(h, id);
  expect(after).toHaveLength(searchTerms('Xavier Yates', 'qb-rename@example.com').length);
  for (const t of before.filter((b) => !after.some((a) => a.token === b.token)))
    expect(await h.store.get(SEARCH_TOKENS, searchTokenId(t.token, id))).toBeNull();

  // a profile change that is not the name leaves the tokens as they are
  await h.call('updateUser', { caller: await h.callerOf(quentin.sessionToken), bio: 'Illustrator' });
  expect((await tokensOf(h, id)).map((t) => t.token).sort()).toEqual(after.map((t) => t.token).sort());

  await h.call('deleteUser', { caller: admin, userId: id });
  expect(await tokensOf(h, id)).toEqual([]);
  expect(await search(h, admin, 'yat')).toEqual([]);
  expect(await search(h, admin, 'qb-ren')).toEqual([]);
  // the admin's own tokens stand
  expect((await h.store.find<SearchTokenDoc>(SEARCH_TOKENS)).every((t) => t.userId === admin.userId)).toBe(
    true,
  );
});

it('gives tokens at start to the users of a store written before tokens existed', async () => {
  const admin = await h.adminCaller();
  const ida = await h.register({ name: 'Ida Backfill' });
  h.advance(1_000);
  const jon = await h.register({ name: 'Jon Backfill' });
  const count = await h.store.count(SEARCH_TOKENS);
  // the store as a version without tokens left it: no token, no checkpoint
  await h.store.transaction(async (tx) => {
    for (const t of await tx.find<SearchTokenDoc>(SEARCH_TOKENS))
      await tx.delete(SEARCH_TOKENS, searchTokenId(t.token, t.userId));
    await tx.setCheckpoint(SEARCH_TOKENS_BACKFILLED, 0);
  });
  expect(await search(h, admin, 'backf')).toEqual([]);

  await h.restart();
  expect(await h.store.count(SEARCH_TOKENS)).toBe(count);
  expect(await search(h, admin, 'backf')).toEqual([jon.user!.id, ida.user!.id]);
  expect(await h.store.getCheckpoint(SEARCH_TOKENS_BACKFILLED)).toBe(2);

  // once done, a later start does not write them again (a deleted token stays deleted until its user changes)
  const one = (await tokensOf(h, ida.user!.id))[0]!;
  await h.store.transaction((tx) => tx.delete(SEARCH_TOKENS, searchTokenId(one.token, one.userId)));
  await h.restart();
  expect(await h.store.count(SEARCH_TOKENS)).toBe(count - 1);
});
