/**
 * The REST contract of spec §7 ("Account" and "Other"), path by path: sign-in: the CSRF check, register,
 * login, login codes and the session (loginStatus, getUser, logout, Bearer). Against the standalone
 * composition started in-process (SQLite ':memory:', in-process bus, real Redis under a random prefix).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  freshEmail,
  type HttpSession,
  listMail,
  loginCodeOf,
  registerUser,
  waitForMail,
  type Account,
} from './testing/composition.js';
import { cookieAttributes } from './testing/httpSession.js';
import { expectUserShape, restContractSpec } from './testing/specComposition.js';

let url: string;
let admin: HttpSession;
/** A fresh browser that has the CSRF cookie but no session. */
const anonymous = restContractSpec((s) => void ({ url, admin } = s));

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
