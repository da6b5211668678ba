/**
 * The REST contract of spec §7 ("Account" and "Other"), path by path: the account: updateUser, email
 * verification, passwords, referrals, Google sign-in. Against the standalone composition started in-process
 * (SQLite ':memory:', in-process bus, real Redis under a random prefix).
 */
import { describe, expect, it } from 'vitest';
import { freshEmail, linkWith, registerUser, waitForMail } from './testing/composition.js';
import { expectUserShape, restContractSpec } from './testing/specComposition.js';

let url: string;
/** A fresh browser that has the CSRF cookie but no session. */
const anonymous = restContractSpec((s) => void ({ url } = s));

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
    const fresh = anonymous();
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
