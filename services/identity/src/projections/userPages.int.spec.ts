/**
 * The admin's users list at scale: keyset pages (nothing missed or repeated while users register between
 * pages), server-side search (a name or email prefix, any case) and the user statistics kept as counters
 * by the projection (after verify, suspend and delete), all through identity's gRPC surface.
 */
import { expect, it } from 'vitest';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { identityPerTest } from '../testing/harness.js';
import { USER_STATS } from './userView.js';

const h = identityPerTest();

it('pages every user once, newest first, while users register between pages', async () => {
  const admin = await h.adminCaller();
  const first: string[] = [];
  for (let i = 0; i < 7; i++) {
    first.push((await h.register({ name: `Early ${i}` })).user!.id);
    if (i % 2 === 0) h.advance(1_000); // some share a createdAt: the id breaks the tie
  }
  const seen: string[] = [];
  const added: string[] = [];
  let cursor = '';
  let pages = 0;
  do {
    const page = await h.call('listUsers', { caller: admin, limit: 3, cursor });
    expect(page.users.length).toBeLessThanOrEqual(3);
    seen.push(...page.users.map((u) => u.id));
    cursor = page.nextCursor;
    pages++;
    h.advance(1_000);
    // newer than every page already read: it belongs before the cursor, so it never shows up later
    added.push((await h.register({ name: `Late ${pages}` })).user!.id);
  } while (cursor);
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.sort()).toEqual([...first, admin.userId].sort());
  const all = await h.call('listUsers', { caller: admin });
  expect(all.nextCursor).toBe('');
  expect(all.users.map((u) => u.id).slice(0, added.length)).toEqual([...added].reverse());

  // a removed user between pages makes no other user go missing
  const a = await h.call('listUsers', { caller: admin, limit: 4 });
  await h.call('deleteUser', { caller: admin, userId: a.users[3]!.id });
  const b = await h.call('listUsers', { caller: admin, limit: 100, cursor: a.nextCursor });
  expect(b.users.map((u) => u.id)).toEqual(all.users.slice(4).map((u) => u.id));
});

it('searches by a name or email prefix in any case, paged', async () => {
  const admin = await h.adminCaller();
  const tag = `zq${Date.now().toString(36)}`;
  const ann = await h.register({ name: 'Annabel Lee', email: `${tag}.ann@example.com` });
  const anton = await h.register({ name: 'anton Berg' });
  // a prefix of any word of the name (blind tokens, app/userSearch.ts): Bob Anders too
  const bob = await h.register({ name: 'Bob Anders', email: `bob.${tag}@example.com` });
  const byName = await h.call('listUsers', { caller: admin, limit: 10, query: 'AN' });
  expect(byName.users.map((u) => u.id).sort()).toEqual([ann.user!.id, anton.user!.id, bob.user!.id].sort());
  const byEmail = await h.call('listUsers', { caller: admin, limit: 10, query: tag.toUpperCase() });
  expect(byEmail.users.map((u) => u.id)).toEqual([ann.user!.id]);
  const one = await h.call('listUsers', { caller: admin, limit: 2, query: 'an' });
  const two = await h.call('listUsers', { caller: admin, limit: 2, query: 'an', cursor: one.nextCursor });
  expect([...one.users, ...two.users].map((u) => u.id).sort()).toEqual(byName.users.map((u) => u.id).sort());
  expect(two.nextCursor).toBe('');
  // LIKE's wildcards are plain characters
  expect((await h.call('listUsers', { caller: admin, limit: 10, query: '%' })).users).toEqual([]);
  await expectStatus(
    h.call('listUsers', { caller: admin, limit: 10, cursor: 'not-a-cursor' }),
    grpc.status.INVALID_ARGUMENT,
    'Invalid cursor or limit',
  );
});

it('answers one user by id, for an admin screen opened by its address; none once deleted; admins only', async () => {
  const admin = await h.adminCaller();
  const ann = await h.register({ name: 'Ann Byid' });
  await h.register({ name: 'Other Byid' });
  const one = await h.call('listUsers', { caller: admin, userId: ann.user!.id });
  expect(one.users.map((u) => [u.id, u.name])).toEqual([[ann.user!.id, 'Ann Byid']]);
  expect(one.nextCursor).toBe('');
  expect((await h.call('listUsers', { caller: admin, userId: 'no-such-user' })).users).toEqual([]);
  // with a page or a query it is a bad request, not a filter among others
  for (const extra of [{ limit: 5 }, { query: 'ann' }, { cursor: 'x' }])
    await expectStatus(
      h.call('listUsers', { caller: admin, userId: ann.user!.id, ...extra }),
      grpc.status.INVALID_ARGUMENT,
      'Invalid cursor or limit',
    );
  const annCaller = await h.callerOf(ann.sessionToken);
  await expectStatus(
    h.call('listUsers', { caller: annCaller, userId: ann.user!.id }),
    grpc.status.PERMISSION_DENIED,
    'Not authorized as an admin',
  );
  await h.call('deleteUser', { caller: admin, userId: ann.user!.id });
  expect((await h.call('listUsers', { caller: admin, userId: ann.user!.id })).users).toEqual([]);
});

it('keeps the user statistics as counters through verify, suspend and delete', async () => {
  const admin = await h.adminCaller();
  const stats = () => h.call('getUserStats', { caller: admin });
  expect(await stats()).toEqual({ total: 1, verified: 1, unverified: 0, suspended: 0 });
  const ann = await h.register();
  const bob = await h.register();
  const cy = await h.register();
  expect(await stats()).toEqual({ total: 4, verified: 1, unverified: 3, suspended: 0 });
  await h.call('verifyUser', {
    verificationToken: await h.latestSecret('EmailVerificationRequested', ann.email),
  });
  await h.call('upgradeUser', { caller: admin, userId: bob.user!.id, role: 'suspended' });
  expect(await stats()).toEqual({ total: 4, verified: 2, unverified: 2, suspended: 1 });
  await h.call('upgradeUser', { caller: admin, userId: bob.user!.id, role: 'subscriber' });
  await h.call('deleteUser', { caller: admin, userId: ann.user!.id });
  await h.call('upgradeUser', { caller: admin, userId: cy.user!.id, role: 'suspended' });
  expect(await stats()).toEqual({ total: 3, verified: 1, unverified: 2, suspended: 1 });
  // the counters are a document of their own: the figures do not come from counting the users
  expect(await h.store.get(USER_STATS, 'all')).toMatchObject({ total: 3, verified: 1, suspended: 1 });
});
