/**
 * The REST contract of spec §7 ("Account" and "Other"), path by path, against the standalone
 * composition started in-process (SQLite ':memory:', in-process bus, real Redis under a random prefix).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  adminBrowser,
  freshEmail,
  HttpSession,
  linkWith,
  listMail,
  loginCodeOf,
  registerUser,
  signIn,
  startTestComposition,
  userWithRole,
  waitForMail,
  type Account,
  type TestComposition,
} from './testing/composition.js';
import { cookieAttributes } from './testing/httpSession.js';
import { startGateway, type RunningGateway } from './server.js';
import { createIdentityClient, createNotificationClient } from './grpcClients.js';
import { DEV_KYC_INTERNAL_TOKEN } from './config.js';
import { MISDIRECTED } from './http/origins.js';

let t: TestComposition;
let url: string;
let admin: HttpSession;

beforeAll(async () => {
  t = await startTestComposition();
  url = t.url;
  admin = await adminBrowser(url);
});

afterAll(async () => {
  await t?.stop();
});

const USER_KEYS = [
  '_id',
  'name',
  'email',
  'phone',
  'country',
  'bio',
  'photo',
  'role',
  'isVerified',
  'kycStatus',
  'balance',
  'investmentBalance',
  'totalMaturityAmount',
  'referralCode',
  'isImpersonated',
  'kyc',
  'createdAt',
].sort();

function expectUserShape(u: Record<string, unknown>) {
  expect(
    Object.keys(u)
      .filter((k) => k !== 'message')
      .sort(),
  ).toEqual(USER_KEYS);
  expect(u.kyc).toEqual({ frontDoc: expect.any(String), backDoc: expect.any(String) });
  for (const k of ['balance', 'investmentBalance', 'totalMaturityAmount']) expect(typeof u[k]).toBe('number');
  const text = JSON.stringify(u).toLowerCase();
  for (const secret of ['password', 'hash', 'token']) expect(text).not.toContain(`"${secret}`);
}

/** A fresh browser that has the CSRF cookie but no session. */
const anonymous = () => new HttpSession(url);

describe('CSRF', () => {
  it('sets a JS-readable XSRF-TOKEN cookie (SameSite=Lax) on the first API response', async () => {
    const b = anonymous();
    const res = await b.get('/api/users/loginStatus');
    const attrs = cookieAttributes(res.setCookies, 'XSRF-TOKEN');
    expect(attrs).toBeDefined();
    expect(attrs!.httponly).toBeUndefined();
    expect(String(attrs!.samesite).toLowerCase()).toBe('lax');
    expect(b.cookie('XSRF-TOKEN')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a state-changing request without the X-XSRF-TOKEN header', async () => {
    const b = anonymous();
    await b.get('/api/users/loginStatus');
    const res = await b.post(
      '/api/users/login',
      { email: 'a@example.com', password: 'secret1' },
      { csrf: false },
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'Invalid CSRF token' });
  });

  it('refuses a header that does not match the cookie, and a header without a cookie', async () => {
    const b = anonymous();
    await b.get('/api/users/loginStatus');
    const wrong = await b.post(
      '/api/users/register',
      {},
      { csrf: false, headers: { 'x-xsrf-token': 'f'.repeat(64) } },
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe('Invalid CSRF token');
    const noCookie = await fetch(`${url}/api/users/forgotPassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-xsrf-token': 'f'.repeat(64) },
      body: JSON.stringify({ email: 'a@example.com' }),
    });
    expect(noCookie.status).toBe(403);
    expect(await noCookie.json()).toEqual({ message: 'Invalid CSRF token' });
  });

  it('applies to PATCH and DELETE too, even for an admin', async () => {
    expect((await admin.patch('/api/users/updateUser', { bio: 'x' }, { csrf: false })).status).toBe(403);
    expect((await admin.delete('/api/users/000000', { csrf: false })).status).toBe(403);
  });
});

describe('POST /api/users/register', () => {
  const valid = () => ({
    name: 'Ada',
    email: freshEmail('reg'),
    password: 'Passw0rd!',
    phone: '+15550100',
    country: 'Germany',
  });

  it.each([
    ['name', { name: undefined }],
    ['email', { email: undefined }],
    ['password', { password: undefined }],
    ['phone', { phone: undefined }],
    ['country', { country: undefined }],
    ['blank name', { name: '   ' }],
  ])('missing %s -> 400 All fields are required', async (_label, patch) => {
    const res = await anonymous().post('/api/users/register', { ...valid(), ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'All fields are required' });
  });

  it('an empty body -> 400 All fields are required', async () => {
    const res = await anonymous().post('/api/users/register');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'All fields are required' });
  });

  it.each(['plainaddress', 'a@b', 'a@b.c', 'a b@example.com', '@example.com'])(
    'malformed email %s -> 400 Please enter a valid email',
    async (email) => {
      const res = await anonymous().post('/api/users/register', { ...valid(), email });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Please enter a valid email' });
    },
  );

  it('a password under 6 characters -> 400', async () => {
    const res = await anonymous().post('/api/users/register', { ...valid(), password: '12345' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Password must be up to 6 characters' });
  });

  it('wrong types and operator objects -> 400 naming the field', async () => {
    const b = anonymous();
    const op = await b.post('/api/users/register', { ...valid(), email: { $gt: '' } });
    expect(op.status).toBe(400);
    expect(op.body).toEqual({ message: 'email must be a string' });
    const num = await b.post('/api/users/register', { ...valid(), name: 42 });
    expect(num.body).toEqual({ message: 'name must be a string' });
    const arr = await b.post('/api/users/register', { ...valid(), password: ['Passw0rd!'] });
    expect(arr.body).toEqual({ message: 'password must be a string' });
    const ref = await b.post('/api/users/register', { ...valid(), referralCode: { $ne: null } });
    expect(ref.body).toEqual({ message: 'referralCode must be a string' });
  });

  it('a body that is not a JSON object -> 400', async () => {
    const b = anonymous();
    const arr = await b.post('/api/users/register', [1, 2]);
    expect(arr.status).toBe(400);
    expect(arr.body).toEqual({ message: 'Invalid request body' });
    const broken = await b.request('POST', '/api/users/register', { rawBody: '{"name": ' });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ message: 'Malformed JSON body' });
  });

  it('an oversized body -> 413 as JSON', async () => {
    const res = await anonymous().post('/api/users/register', { ...valid(), bio: 'x'.repeat(200_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request body too large' });
  });

  it('registers: 201, the user, an httpOnly SameSite=Lax session cookie and a 1-year device cookie; logged in', async () => {
    const b = anonymous();
    const body = valid();
    const res = await b.post('/api/users/register', body);
    expect(res.status).toBe(201);
    expectUserShape(res.body);
    expect(res.body).toMatchObject({
      name: 'Ada',
      email: body.email,
      role: 'subscriber',
      isVerified: false,
      balance: 0,
      isImpersonated: false,
    });
    const session = cookieAttributes(res.setCookies, 'meridian_session');
    expect(session).toMatchObject({ httponly: true, path: '/' });
    expect(String(session!.samesite).toLowerCase()).toBe('lax');
    expect(session!.secure).toBeUndefined();
    const device = cookieAttributes(res.setCookies, 'meridian_device');
    expect(device).toMatchObject({ httponly: true });
    expect(Number(device!['max-age'])).toBe(365 * 24 * 60 * 60);
    expect((await b.get('/api/users/loginStatus')).body).toBe(true);
  });

  it('a taken email -> 409 with a message', async () => {
    const a = await registerUser(url);
    const res = await anonymous().post('/api/users/register', { ...valid(), email: a.email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: expect.any(String) });
  });

  it('an unknown referral code -> 400; a known one links referrer and referee', async () => {
    const unknown = await anonymous().post('/api/users/register', { ...valid(), referralCode: 'NOPE-NOPE' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/referral/i);

    const referrer = await registerUser(url);
    const me = await referrer.browser.get('/api/users/getUser');
    expect((await referrer.browser.get('/api/users/referrals')).body).toEqual({ message: 'No referrals' });
    const referee = await registerUser(url, { name: 'Referee', referralCode: me.body.referralCode });
    const list = await referrer.browser.get('/api/users/referrals');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      referrals: [expect.objectContaining({ _id: referee.id, name: 'Referee', email: referee.email })],
    });
  });
});

describe('POST /api/users/login', () => {
  let account: Account;
  beforeAll(async () => {
    account = await registerUser(url);
  });

  it('missing fields -> 400 All fields are required; malformed email -> 400', async () => {
    const b = anonymous();
    expect((await b.post('/api/users/login', { email: account.email })).body).toEqual({
      message: 'All fields are required',
    });
    expect((await b.post('/api/users/login', { password: 'x' })).body).toEqual({
      message: 'All fields are required',
    });
    const bad = await b.post('/api/users/login', { email: 'not-an-email', password: 'Passw0rd!' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'Please enter a valid email' });
  });

  it('operator objects never reach identity: 400', async () => {
    const b = anonymous();
    const res = await b.post('/api/users/login', { email: account.email, password: { $gt: '' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'password must be a string' });
    const res2 = await b.post('/api/users/login', { email: { $regex: '.*' }, password: 'x' });
    expect(res2.body).toEqual({ message: 'email must be a string' });
  });

  it('a wrong password -> 400 without saying which part was wrong; an unknown email answers the same', async () => {
    const wrong = await account.browser.post('/api/users/login', {
      email: account.email,
      password: 'Wrong-pass1',
    });
    const unknown = await account.browser.post('/api/users/login', {
      email: freshEmail('nobody'),
      password: 'Wrong-pass1',
    });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('from the trusted browser -> 200 and the user', async () => {
    const res = await account.browser.post('/api/users/login', {
      email: account.email,
      password: account.password,
    });
    expect(res.status).toBe(200);
    expectUserShape(res.body);
    expect(res.body._id).toBe(account.id);
  });

  it('from a new browser -> 400 New browser or device detected, no session', async () => {
    const b = anonymous();
    const res = await b.post('/api/users/login', { email: account.email, password: account.password });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('New browser or device detected');
    expect(b.cookie('meridian_session')).toBeUndefined();
    expect((await b.get('/api/users/loginStatus')).body).toBe(false);
  });
});

describe('login codes: POST sendLoginCode/{email}, POST loginWithCode/{email}', () => {
  it('validates the email in the path and the code in the body', async () => {
    const b = anonymous();
    const badEmail = await b.post('/api/users/sendLoginCode/not-an-email');
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toEqual({ message: 'Please enter a valid email' });
    const email = freshEmail();
    expect((await b.post(`/api/users/loginWithCode/${email}`, {})).body).toEqual({
      message: 'Please fill in the login code',
    });
    expect((await b.post(`/api/users/loginWithCode/${email}`, { loginCode: '123' })).body).toEqual({
      message: 'Access code must be 6 characters',
    });
    const op = await b.post(`/api/users/loginWithCode/${email}`, { loginCode: { $ne: '' } });
    expect(op.status).toBe(400);
    expect(op.body).toEqual({ message: 'loginCode must be a string' });
  });

  it('an unknown email gets the same answer as a known one (no enumeration)', async () => {
    const known = await registerUser(url);
    const a = await anonymous().post(`/api/users/sendLoginCode/${encodeURIComponent(known.email)}`);
    const b = await anonymous().post(`/api/users/sendLoginCode/${encodeURIComponent(freshEmail('ghost'))}`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('a wrong code is refused; the right code signs in, trusts the browser, and cannot be reused', async () => {
    const account = await registerUser(url);
    const b = anonymous();
    expect(
      (await b.post('/api/users/login', { email: account.email, password: account.password })).status,
    ).toBe(400);
    const known = new Set((await listMail(url, account.email)).map((m) => m.id));
    const sent = await b.post(`/api/users/sendLoginCode/${encodeURIComponent(account.email)}`);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ message: expect.any(String) });
    const mail = await waitForMail(url, account.email, (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text));
    const code = loginCodeOf(mail);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await b.post(`/api/users/loginWithCode/${encodeURIComponent(account.email)}`, {
      loginCode: wrongCode,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: expect.any(String) });

    const ok = await b.post(`/api/users/loginWithCode/${encodeURIComponent(account.email)}`, {
      loginCode: code,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ _id: account.id, email: account.email });
    expect(b.cookie('meridian_session')).toBeDefined();
    expect(b.cookie('meridian_device')).toBeDefined();
    expect((await b.get('/api/users/getUser')).body._id).toBe(account.id);

    const reuse = await anonymous().post(`/api/users/loginWithCode/${encodeURIComponent(account.email)}`, {
      loginCode: code,
    });
    expect(reuse.status).toBe(400);

    // the browser is trusted now: a password login from it passes without a code
    await b.get('/api/users/logout');
    const again = await b.post('/api/users/login', { email: account.email, password: account.password });
    expect(again.status).toBe(200);
  });
});

describe('session: loginStatus, getUser, logout, Bearer', () => {
  it('loginStatus answers false anonymously and true when signed in', async () => {
    const b = anonymous();
    expect((await b.get('/api/users/loginStatus')).body).toBe(false);
    const account = await registerUser(url);
    const res = await account.browser.get('/api/users/loginStatus');
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
  });

  it('getUser: 401 anonymous; the user with balances in dollars when signed in', async () => {
    const anon = await anonymous().get('/api/users/getUser');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: 'Not authorized, please login' });
    const account = await registerUser(url, { name: 'Grace' });
    const res = await account.browser.get('/api/users/getUser');
    expect(res.status).toBe(200);
    expectUserShape(res.body);
    expect(res.body).toMatchObject({
      _id: account.id,
      name: 'Grace',
      balance: 0,
      investmentBalance: 0,
      totalMaturityAmount: 0,
      kycStatus: expect.any(String),
    });
  });

  it('a forged or garbage session cookie -> 401 and the cookie is cleared', async () => {
    const b = anonymous();
    b.cookies.set('meridian_session', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged');
    const res = await b.get('/api/users/getUser');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect(b.cookie('meridian_session')).toBeUndefined();
  });

  it('accepts Authorization: Bearer <session token>', async () => {
    const account = await registerUser(url);
    const token = account.browser.cookie('meridian_session')!;
    const res = await fetch(`${url}/api/users/getUser`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { _id: string })._id).toBe(account.id);
  });

  it('logout clears the cookie and revokes the session at once (the old token is refused)', async () => {
    const account = await registerUser(url);
    const token = account.browser.cookie('meridian_session')!;
    const res = await account.browser.get('/api/users/logout');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    const cleared = res.setCookies.find((c) => c.startsWith('meridian_session='));
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await account.browser.get('/api/users/loginStatus')).body).toBe(false);
    const replay = await fetch(`${url}/api/users/getUser`, { headers: { authorization: `Bearer ${token}` } });
    expect(replay.status).toBe(401);
    // logging out anonymously is harmless
    expect((await anonymous().get('/api/users/logout')).status).toBe(200);
  });
});

describe('PATCH /api/users/updateUser', () => {
  it('401 anonymous', async () => {
    const res = await anonymous().patch('/api/users/updateUser', { name: 'X' });
    expect(res.status).toBe(401);
  });

  it('updates name, phone, bio, country, photo; email and role in the body are ignored', async () => {
    const account = await registerUser(url);
    const res = await account.browser.patch('/api/users/updateUser', {
      name: 'New Name',
      phone: '+4930123',
      bio: 'Investor',
      country: 'France',
      photo: 'https://res.cloudinary.com/demo/x.png',
      email: 'hijack@example.com',
      role: 'admin',
    });
    expect(res.status).toBe(200);
    expectUserShape(res.body);
    expect(res.body).toMatchObject({
      name: 'New Name',
      phone: '+4930123',
      bio: 'Investor',
      country: 'France',
      email: account.email,
      role: 'subscriber',
    });
  });

  it('wrong types -> 400', async () => {
    const account = await registerUser(url);
    const res = await account.browser.patch('/api/users/updateUser', { bio: { $set: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'bio must be a string' });
  });
});

describe('email verification: POST sendVerificationEmail, PATCH verifyUser/{token}', () => {
  it('sendVerificationEmail needs a session', async () => {
    expect((await anonymous().post('/api/users/sendVerificationEmail')).status).toBe(401);
  });

  it('the emailed link verifies once; reuse and garbage tokens are refused', async () => {
    const account = await registerUser(url);
    const sent = await account.browser.post('/api/users/sendVerificationEmail');
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ message: expect.any(String) });
    const mail = await waitForMail(url, account.email, (m) => m.links.some((l) => l.includes('/verify/')));
    const { token } = linkWith(mail, '/verify/');
    const other = anonymous(); // the link may be opened in any browser
    const ok = await other.patch(`/api/users/verifyUser/${token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    expect((await account.browser.get('/api/users/getUser')).body.isVerified).toBe(true);
    const reuse = await other.patch(`/api/users/verifyUser/${token}`);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ message: expect.any(String) });
    const garbage = await other.patch('/api/users/verifyUser/not-a-real-token');
    expect(garbage.status).toBe(400);
  });
});

describe('passwords: PATCH changePassword, POST forgotPassword, PATCH resetPassword/{token}', () => {
  it('changePassword: 401 anonymous; missing fields; short; wrong old password; success', async () => {
    expect(
      (await anonymous().patch('/api/users/changePassword', { oldPassword: 'a', password: 'b' })).status,
    ).toBe(401);
    const account = await registerUser(url);
    const b = account.browser;
    expect((await b.patch('/api/users/changePassword', { password: 'NewPassw0rd!' })).body).toEqual({
      message: 'All fields are required',
    });
    expect(
      (await b.patch('/api/users/changePassword', { oldPassword: account.password, password: '123' })).body,
    ).toEqual({
      message: 'Password must be up to 6 characters',
    });
    const op = await b.patch('/api/users/changePassword', {
      oldPassword: { $gt: '' },
      password: 'NewPassw0rd!',
    });
    expect(op.body).toEqual({ message: 'oldPassword must be a string' });
    const wrong = await b.patch('/api/users/changePassword', {
      oldPassword: 'not-my-password',
      password: 'NewPassw0rd!',
    });
    expect(wrong.status).toBe(400);
    const ok = await b.patch('/api/users/changePassword', {
      oldPassword: account.password,
      password: 'NewPassw0rd!',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    const fresh = new HttpSession(url);
    fresh.cookies.set('meridian_device', b.cookie('meridian_device')!);
    expect(
      (await fresh.post('/api/users/login', { email: account.email, password: 'NewPassw0rd!' })).status,
    ).toBe(200);
    expect(
      (await fresh.post('/api/users/login', { email: account.email, password: account.password })).status,
    ).toBe(400);
  });

  it('forgotPassword: Please enter an email; invalid email; same answer for unknown emails', async () => {
    const b = anonymous();
    expect((await b.post('/api/users/forgotPassword', {})).body).toEqual({
      message: 'Please enter an email',
    });
    expect((await b.post('/api/users/forgotPassword', { email: 'nope' })).body).toEqual({
      message: 'Please enter a valid email',
    });
    expect((await b.post('/api/users/forgotPassword', { email: { $gt: '' } })).body).toEqual({
      message: 'email must be a string',
    });
    const account = await registerUser(url);
    const known = await b.post('/api/users/forgotPassword', { email: account.email });
    const unknown = await b.post('/api/users/forgotPassword', { email: freshEmail('ghost') });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
  });

  it('resetPassword: the emailed token sets a new password once; short passwords and reuse are refused; sessions are revoked', async () => {
    const account = await registerUser(url);
    const oldSession = account.browser.cookie('meridian_session')!;
    const b = anonymous();
    expect((await b.post('/api/users/forgotPassword', { email: account.email })).status).toBe(200);
    const mail = await waitForMail(url, account.email, (m) =>
      m.links.some((l) => l.includes('/resetPassword/')),
    );
    const { token } = linkWith(mail, '/resetPassword/');
    expect((await b.patch(`/api/users/resetPassword/${token}`, { password: '123' })).body).toEqual({
      message: 'Password must be up to 6 characters',
    });
    expect((await b.patch(`/api/users/resetPassword/${token}`, {})).body).toEqual({
      message: 'All fields are required',
    });
    const ok = await b.patch(`/api/users/resetPassword/${token}`, { password: 'Reset-Passw0rd' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    const reuse = await b.patch(`/api/users/resetPassword/${token}`, { password: 'Another-Passw0rd' });
    expect(reuse.status).toBe(400);
    const replay = await fetch(`${url}/api/users/getUser`, {
      headers: { authorization: `Bearer ${oldSession}` },
    });
    expect(replay.status).toBe(401);
    const login = await account.browser.post('/api/users/login', {
      email: account.email,
      password: 'Reset-Passw0rd',
    });
    expect(login.status).toBe(200);
  });
});

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

describe('GET /api/users/referrals', () => {
  it('401 anonymous; {message: No referrals} when empty', async () => {
    expect((await anonymous().get('/api/users/referrals')).status).toBe(401);
    const account = await registerUser(url);
    const res = await account.browser.get('/api/users/referrals');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'No referrals' });
  });
});

describe('POST /api/users/google/callback', () => {
  it('needs a credential (or token), as a string', async () => {
    const b = anonymous();
    expect((await b.post('/api/users/google/callback', {})).body).toEqual({
      message: 'All fields are required',
    });
    expect((await b.post('/api/users/google/callback', { credential: { $gt: '' } })).body).toEqual({
      message: 'credential must be a string',
    });
  });

  it('with Google sign-in off (no GOOGLE_CLIENT_ID) answers a permanent 400, never 503', async () => {
    const res = await anonymous().post('/api/users/google/callback', { credential: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Google sign-in is not available' });
  });

  it('a credential that is not a valid ID token is refused (never a 500)', async () => {
    const res = await anonymous().post('/api/users/google/callback', { token: 'not.a.jwt' });
    expect([400, 401, 503]).toContain(res.status);
    expect(res.body).toEqual({ message: expect.any(String) });
  });
});

describe('GET /api/countries', () => {
  it('answers the list of {name, code}', async () => {
    const res = await anonymous().get('/api/countries');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(100);
    expect(res.body).toContainEqual({ name: 'Germany', code: 'DE' });
    for (const c of res.body.slice(0, 5)) expect(Object.keys(c).sort()).toEqual(['code', 'name']);
  });
});

describe('POST /api/sendAutomatedEmail', () => {
  it('401 anonymous; missing fields -> 400; only to the own address; allowlisted templates only', async () => {
    const body = (to: string) => ({
      subject: 'Deposit',
      send_to: to,
      reply_to: 'noreply@example.com',
      template: 'depositNotice',
      url: '/dashboard',
    });
    expect((await anonymous().post('/api/sendAutomatedEmail', body('a@example.com'))).status).toBe(401);
    const account = await registerUser(url);
    const b = account.browser;
    expect((await b.post('/api/sendAutomatedEmail', { subject: 'x' })).body).toEqual({
      message: 'All fields are required',
    });
    expect(
      (await b.post('/api/sendAutomatedEmail', { ...body(account.email), send_to: { $gt: '' } })).body,
    ).toEqual({ message: 'send_to must be a string' });
    const other = await b.post('/api/sendAutomatedEmail', body(freshEmail('victim')));
    expect(other.status).toBe(403);
    const badTemplate = await b.post('/api/sendAutomatedEmail', {
      ...body(account.email),
      template: 'resetPassword',
    });
    expect(badTemplate.status).toBe(400);
    const ok = await b.post('/api/sendAutomatedEmail', body(account.email));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    await waitForMail(url, account.email, (m) => /deposit/i.test(m.subject));
  });

  it('a reply_to that is not an address (the original client sends noreply@GreenWood), or none, is not refused', async () => {
    const account = await registerUser(url);
    for (const [subject, replyTo] of [
      ['Deposit GreenWood', 'noreply@GreenWood'],
      ['Deposit without reply', undefined],
    ] as const) {
      const sent = await account.browser.post('/api/sendAutomatedEmail', {
        subject,
        send_to: account.email,
        ...(replyTo === undefined ? {} : { reply_to: replyTo }),
        template: 'depositNotice',
        url: '/dashboard',
      });
      expect([sent.status, sent.body.message]).toEqual([200, expect.any(String)]);
      await waitForMail(url, account.email, (m) => m.subject.includes(subject));
    }
  });
});

describe('GET /api/dev/mailbox', () => {
  it('lists messages for an address, newest first, with to, subject, text, html, links, sentAt', async () => {
    const account = await registerUser(url);
    await account.browser.post('/api/users/sendVerificationEmail');
    const mails = await waitForMail(url, account.email, () => true).then(() => listMail(url, account.email));
    expect(mails.length).toBeGreaterThanOrEqual(1);
    for (const m of mails) {
      expect(m).toMatchObject({
        to: expect.stringContaining(account.email),
        subject: expect.any(String),
        text: expect.any(String),
        html: expect.any(String),
        links: expect.any(Array),
        sentAt: expect.any(String),
      });
    }
    const times = mails.map((m) => m.sentAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(await listMail(url, freshEmail('empty'))).toEqual([]);
  });

  it('refuses a malformed address', async () => {
    const res = await anonymous().get('/api/dev/mailbox?to=not-an-email');
    expect(res.status).toBe(400);
  });
});

describe('the gateway in production', () => {
  let prod: RunningGateway;
  beforeAll(async () => {
    prod = await startGateway({
      config: {
        nodeEnv: 'production',
        port: 0,
        identityGrpcUrl: t.app.identityAddress,
        notificationGrpcUrl: t.app.notificationAddress,
        webDist: '/nonexistent-web-dist',
        appUrl: 'https://meridian.example.com',
        // this spec reaches it as localhost (production answers only configured hosts)
        allowedHosts: ['localhost'],
        cookieSecure: true,
        trustProxy: 'loopback',
        kycGrpcUrl: t.app.kycAddress,
        kycHttpUrl: t.app.kycHttpUrl,
        kycInternalToken: DEV_KYC_INTERNAL_TOKEN,
        dataDir: ':memory:',
      },
      identity: createIdentityClient(t.app.identityAddress),
      notification: createNotificationClient(t.app.notificationAddress),
    });
  });
  afterAll(async () => {
    await prod?.stop();
  });

  it('has no dev mailbox route at all', async () => {
    const res = await fetch(`${prod.url}/api/dev/mailbox?to=${encodeURIComponent(ADMIN_EMAIL)}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: expect.any(String) });
  });

  it('answers only the configured hosts: a loopback address is refused (421)', async () => {
    const res = await fetch(`http://127.0.0.1:${prod.port}/api/users/loginStatus`);
    expect(res.status).toBe(421);
    expect(await res.json()).toEqual({ message: MISDIRECTED });
    expect((await fetch(`http://127.0.0.1:${prod.port}/healthz`)).status).toBe(200);
  });

  it('marks cookies Secure and sends HSTS', async () => {
    const b = new HttpSession(prod.url);
    const res = await b.get('/api/users/loginStatus');
    expect(cookieAttributes(res.setCookies, 'XSRF-TOKEN')!.secure).toBe(true);
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
  });
});

describe('SPA hosting from WEB_DIST', () => {
  let gw: RunningGateway;
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'meridian-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(
      join(dist, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>',
    );
    writeFileSync(join(dist, 'assets', 'app.js'), 'console.log("spa")');
    gw = await startGateway({
      config: {
        nodeEnv: 'test',
        port: 0,
        identityGrpcUrl: t.app.identityAddress,
        notificationGrpcUrl: t.app.notificationAddress,
        webDist: dist,
        appUrl: 'http://localhost:8080',
        cookieSecure: false,
        trustProxy: 'loopback',
        kycGrpcUrl: t.app.kycAddress,
        kycHttpUrl: t.app.kycHttpUrl,
        kycInternalToken: DEV_KYC_INTERNAL_TOKEN,
        dataDir: ':memory:',
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves assets and answers index.html for client routes (client-side routing)', async () => {
    const asset = await fetch(`${gw.url}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect(await asset.text()).toContain('spa');
    for (const route of ['/', '/dashboard', '/verify/abc.def', '/resetPassword/xyz', '/investment/42']) {
      const res = await fetch(`${gw.url}${route}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('a missing asset is a 404, and /api paths never fall back to the SPA', async () => {
    expect((await fetch(`${gw.url}/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${gw.url}/api/whatever`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ message: expect.any(String) });
  });
});

describe('cross-cutting', () => {
  it('unknown /api paths -> 404 JSON', async () => {
    const res = await anonymous().get('/api/nope/nothing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ message: expect.any(String) });
    const post = await anonymous().post('/api/users/doesNotExist', {});
    expect(post.status).toBe(404);
  });

  it('echoes x-correlation-id, or makes one', async () => {
    const res = await anonymous().get('/api/users/loginStatus', {
      headers: { 'x-correlation-id': 'test-corr-123' },
    });
    expect(res.headers.get('x-correlation-id')).toBe('test-corr-123');
    const made = await anonymous().get('/api/users/loginStatus');
    expect(made.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends security headers (CSP allowing own scripts, data: images, ws to self)', async () => {
    const res = await anonymous().get('/api/users/loginStatus');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/img-src[^;]*data:/);
    expect(csp).toMatch(/connect-src 'self'[^;]*ws:/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('never answers a stack trace', async () => {
    const res = await anonymous().request('POST', '/api/users/login', { rawBody: '{bad json' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|SyntaxError/);
  });

  it('health: /healthz is live; /readyz checks identity and notification', async () => {
    const live = await fetch(`${url}/healthz`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { identity: 'ok', notification: 'ok' },
    });
  });

  it('serves the SPA shell (or the not-built page) for client routes, never for /api', async () => {
    const res = await fetch(`${url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('make build');
  });
});

describe('sign-in helpers', () => {
  it('the admin passes the new-browser code flow (identity trusts no browser at creation)', async () => {
    const b = new HttpSession(url);
    const res = await b.post('/api/users/login', { email: ADMIN_EMAIL, password: 'Admin-Passw0rd!' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('New browser or device detected');
    await signIn(b, ADMIN_EMAIL, 'Admin-Passw0rd!');
    expect((await b.get('/api/users/getUser')).body.role).toBe('admin');
  });
});
