/**
 * The REST contract of spec §7 ("Account" and "Other"), path by path: the admin calls: getUsers, DELETE
 * {id}, upgradeUser, impersonate/{id}. Against the standalone composition started in-process (SQLite
 * ':memory:', in-process bus, real Redis under a random prefix).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, registerUser, userWithRole, type Account } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { expectUserShape, restContractSpec } from './testing/specComposition.js';

let url: string;
let admin: HttpSession;
/** A fresh browser that has the CSRF cookie but no session. */
const anonymous = restContractSpec((s) => void ({ url, admin } = s));

describe('admin calls: getUsers, DELETE {id}, upgradeUser, impersonate/{id}', () => {
  let subscriber: Account;
  let author: Account;
  let suspended: Account;
  let target: Account;

  beforeAll(async () => {
    [subscriber, author, suspended, target] = await Promise.all([
      userWithRole(url, admin, 'subscriber'),
      userWithRole(url, admin, 'author'),
      userWithRole(url, admin, 'suspended'),
      registerUser(url),
    ]);
  });

  const adminCalls: Array<[string, (b: HttpSession) => Promise<{ status: number; body: any }>]> = [
    ['GET getUsers', (b) => b.get('/api/users/getUsers')],
    ['DELETE {id}', (b) => b.delete(`/api/users/${target.id}`)],
    ['POST upgradeUser', (b) => b.post('/api/users/upgradeUser', { role: 'admin', id: target.id })],
    ['POST impersonate/{id}', (b) => b.post(`/api/users/impersonate/${target.id}`)],
  ];

  describe.each(adminCalls)('%s', (_name, call) => {
    it('anonymous -> 401', async () => {
      const res = await call(anonymous());
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Not authorized, please login' });
    });
    it('subscriber -> 403', async () => {
      const res = await call(subscriber.browser);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Not authorized as an admin' });
    });
    it('author -> 403', async () => {
      const res = await call(author.browser);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Not authorized as an admin' });
    });
    it('suspended -> 401 (the session is refused)', async () => {
      const res = await call(suspended.browser);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.any(String) });
    });
  });

  it('the target was untouched by the refused calls', async () => {
    const res = await target.browser.get('/api/users/getUser');
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('subscriber');
  });

  it('getUsers answers the list of users (no secrets)', async () => {
    const res = await admin.get('/api/users/getUsers');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const ids = res.body.map((u: { _id: string }) => u._id);
    expect(ids).toEqual(expect.arrayContaining([subscriber.id, author.id, suspended.id, target.id]));
    for (const u of res.body) expectUserShape(u);
    expect(res.body.find((u: { _id: string }) => u._id === author.id).role).toBe('author');
    expect(res.body.find((u: { email: string }) => u.email === ADMIN_EMAIL).role).toBe('admin');
  });

  it('upgradeUser validates its body', async () => {
    const missing = await admin.post('/api/users/upgradeUser', { id: target.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'Please select a role' });
    expect((await admin.post('/api/users/upgradeUser', { role: 'author' })).body).toEqual({
      message: 'All fields are required',
    });
    expect((await admin.post('/api/users/upgradeUser', { role: 'superuser', id: target.id })).body).toEqual({
      message: 'Invalid role',
    });
    expect((await admin.post('/api/users/upgradeUser', { role: { $ne: 'x' }, id: target.id })).body).toEqual({
      message: 'role must be a string',
    });
    const unknown = await admin.post('/api/users/upgradeUser', { role: 'author', id: 'no-such-user' });
    expect(unknown.status).toBe(404);
  });

  it('an admin cannot change their own role (the service checks)', async () => {
    const me = await admin.get('/api/users/getUser');
    const res = await admin.post('/api/users/upgradeUser', { role: 'subscriber', id: me.body._id });
    expect([400, 403, 409]).toContain(res.status);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect((await admin.get('/api/users/getUser')).body.role).toBe('admin');
  });

  it('suspending a user refuses their open session at once, and their login', async () => {
    const victim = await registerUser(url);
    expect((await victim.browser.get('/api/users/getUser')).status).toBe(200);
    const res = await admin.post('/api/users/upgradeUser', { role: 'suspended', id: victim.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    const refused = await victim.browser.get('/api/users/getUser');
    expect(refused.status).toBe(401);
    expect((await victim.browser.get('/api/users/loginStatus')).body).toBe(false);
    const login = await victim.browser.post('/api/users/login', {
      email: victim.email,
      password: victim.password,
    });
    expect([401, 403]).toContain(login.status);
    expect(login.body.message).toMatch(/suspended/i);
  });

  it('an author promoted to admin gets admin powers from the role in the session, never from the body', async () => {
    const res = await author.browser.post('/api/users/upgradeUser', {
      role: 'author',
      id: target.id,
      callerRole: 'admin',
    });
    expect(res.status).toBe(403);
  });

  it('impersonate and exit-impersonation', async () => {
    const person = await registerUser(url, { name: 'Impersonated Person' });
    const adminSessionBefore = admin.cookie('meridian_session');
    const start = await admin.post(`/api/users/impersonate/${person.id}`);
    expect(start.status).toBe(200);
    expect(start.body.message).toEqual(expect.any(String));
    expect(admin.cookie('meridian_session')).not.toBe(adminSessionBefore);
    const asUser = await admin.get('/api/users/getUser');
    expect(asUser.body).toMatchObject({ _id: person.id, isImpersonated: true });
    // while impersonating a subscriber, admin routes are refused
    expect((await admin.get('/api/users/getUsers')).status).toBe(403);
    const exit = await admin.post('/api/users/exit-impersonation');
    expect(exit.status).toBe(200);
    expect(exit.body.message).toEqual(expect.any(String));
    const back = await admin.get('/api/users/getUser');
    expect(back.body).toMatchObject({ email: ADMIN_EMAIL, isImpersonated: false, role: 'admin' });
  });

  it('exit-impersonation without impersonating -> 400; anonymous -> 401', async () => {
    expect((await anonymous().post('/api/users/exit-impersonation')).status).toBe(401);
    const res = await subscriber.browser.post('/api/users/exit-impersonation');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: expect.any(String) });
  });

  it('DELETE {id} removes the user: their session and login are refused', async () => {
    const doomed = await registerUser(url);
    const res = await admin.delete(`/api/users/${doomed.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect((await doomed.browser.get('/api/users/getUser')).status).toBe(401);
    expect(
      (await doomed.browser.post('/api/users/login', { email: doomed.email, password: doomed.password }))
        .status,
    ).toBe(400);
    const list = await admin.get('/api/users/getUsers');
    expect(list.body.map((u: { _id: string }) => u._id)).not.toContain(doomed.id);
    expect((await admin.delete(`/api/users/${doomed.id}`)).status).toBe(404);
  });
});
