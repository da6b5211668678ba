/**
 * GET api/users/getUsers at scale: without parameters the spec's answer (every user, a
 * bare list); with limit/cursor/q one page of the same list and the next page's cursor in X-Next-Cursor; with
 * id that one user (an admin screen opened by its address) or none;
 * GET api/users/userStats from the identity projection's counters.
 */
import { expect, it } from 'vitest';
import { registerUser } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { sharedForSpec, startRestContract } from './testing/specComposition.js';

let url: string;
let admin: HttpSession;
sharedForSpec(startRestContract, (s) => void ({ url, admin } = s));

it('pages the users list by X-Next-Cursor, searches on the server and answers one user by id; the bare call answers every user', async () => {
  const tag = `pg${Date.now().toString(36)}`;
  for (let i = 0; i < 5; i++) await registerUser(url, { name: `${tag} ${i}` });
  const all = await admin.get('/api/users/getUsers');
  expect(all.status).toBe(200);
  expect(Array.isArray(all.body)).toBe(true);
  expect(all.headers.get('x-next-cursor')).toBeNull();

  const seen: string[] = [];
  let cursor = '';
  do {
    const page = await admin.get(
      `/api/users/getUsers?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.length).toBeLessThanOrEqual(2);
    seen.push(...(page.body as Array<{ _id: string }>).map((u) => u._id));
    cursor = page.headers.get('x-next-cursor') ?? '';
  } while (cursor);
  expect(seen).toEqual((all.body as Array<{ _id: string }>).map((u) => u._id));

  const found = await admin.get(`/api/users/getUsers?q=${tag.toUpperCase()}`);
  expect((found.body as Array<{ name: string }>).map((u) => u.name).sort()).toEqual(
    [0, 1, 2, 3, 4].map((i) => `${tag} ${i}`),
  );
  expect((await admin.get('/api/users/getUsers?limit=0')).status).toBe(400);
  expect((await admin.get('/api/users/getUsers?cursor=nope')).body).toEqual({
    message: 'Invalid cursor or limit',
  });

  // one user by id (an admin screen about one user opened by its address): that user with its balances
  const one = await admin.get(`/api/users/getUsers?id=${encodeURIComponent(seen[0]!)}`);
  expect(one.status).toBe(200);
  expect(
    (one.body as Array<{ _id: string; balance: unknown }>).map((u) => [u._id, typeof u.balance]),
  ).toEqual([[seen[0], 'number']]);
  expect((await admin.get('/api/users/getUsers?id=no-such-user')).body).toEqual([]);
  expect((await admin.get(`/api/users/getUsers?id=${seen[0]}&limit=5`)).body).toEqual({
    message: 'Invalid cursor or limit',
  });
  const investor = await registerUser(url);
  expect((await investor.browser.get(`/api/users/getUsers?id=${investor.id}`)).status).toBe(403);

  const stats = await admin.get('/api/users/userStats');
  expect(stats.body).toEqual({
    total: all.body.length + 1,
    verified: expect.any(Number),
    unverified: all.body.length + 1 - stats.body.verified,
    suspended: 0,
  });
});
