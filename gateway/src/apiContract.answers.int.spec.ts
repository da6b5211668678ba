/**
 * The answers the original client relies on (items 1-7: the answers the original client and its server agree
 * on: plans, maturityAmount, referrals, api/users/sendAutomatedEmail, the reset message, the Origin check, the
 * default avatar), against the money composition started in-process (money services with PLANS_JSON); each
 * answer is also checked against the served OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  freshEmail,
  linkWith,
  listMail,
  registerUser,
  waitForMail,
  type TestComposition,
} from './testing/composition.js';
import type { HttpSession, RequestOptions } from './testing/httpSession.js';
import { fundedInvestor } from './testing/money.js';
import { apiContractSpec } from './testing/apiDocument.js';

let t: TestComposition;
let admin: HttpSession;
const { expectDocumented, call, anonymous } = apiContractSpec((s) => void ({ t, admin } = s));

// ---------------------------------------------------------------- items 1-7
describe('answers the original client relies on', () => {
  it('1. GET api/invest/plans answers the bare array of plans', async () => {
    const res = await call(anonymous(), 'get', '/api/invest/plans');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toEqual([
      expect.objectContaining({ _id: 'Starter', name: 'Starter', minAmount: 100, maxAmount: 500 }),
      expect.objectContaining({ _id: 'Bronze', name: 'Bronze', minAmount: 500, maxAmount: 1500 }),
    ]);
  });

  it('2. maturityAmount is the projected amount from the request on, on every screen, and stays at approval', async () => {
    const investor = await fundedInvestor(t.url, admin, 400);
    const started = await call(investor.browser, 'post', '/api/invest/start-invest', {
      body: { amount: '200', planName: 'Starter' },
    });
    expect(started.status).toBe(201);
    const id = started.body.investment._id as string;
    // Starter: 12 % over the term -> 200 + 24
    expect(started.body.investment).toMatchObject({ status: 'pending', amount: 200, maturityAmount: 224 });
    const detail = await call(investor.browser, 'get', '/api/invest/investment/:id', {
      path: `/api/invest/investment/${id}`,
    });
    expect(detail.body.investment.maturityAmount).toBe(224);
    const history = await call(investor.browser, 'get', '/api/invest/investment-history');
    expect(history.body.investments.find((i: { _id: string }) => i._id === id).maturityAmount).toBe(224);
    const pending = await call(admin, 'get', '/api/invest/adminPendingInvestment');
    const item = pending.body.pendingInvestments.find((i: { _id: string }) => i._id === id);
    expect(item).toMatchObject({ maturityAmount: 224, user: { balance: 200 } });
    const approved = await admin.put(`/api/invest/${id}/approve`);
    expectDocumented('put', '/api/invest/:id/approve', approved);
    expect(approved.body.investment).toMatchObject({ status: 'Active', maturityAmount: 224 });
  });

  it("3. GET api/users/referrals answers {referrals: [...]}, or {message: 'No referrals'}", async () => {
    const referrer = await registerUser(t.url);
    const none = await call(referrer.browser, 'get', '/api/users/referrals');
    expect(none.body).toEqual({ message: 'No referrals' });
    const code = (await referrer.browser.get('/api/users/getUser')).body.referralCode as string;
    const referee = await registerUser(t.url, { name: 'Rosa Referee', referralCode: code });
    const list = await call(referrer.browser, 'get', '/api/users/referrals');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      referrals: [
        {
          _id: referee.id,
          name: 'Rosa Referee',
          email: referee.email,
          photo: `${t.url}/api/avatars/default.svg`,
          createdAt: expect.any(String),
        },
      ],
    });
  });

  it('4. POST api/users/sendAutomatedEmail is served too; the change-password and change-role notices are not sent twice', async () => {
    const user = await registerUser(t.url);
    const notice = (template: string, sendTo: string, subject = 'Deposit received') => ({
      subject,
      send_to: sendTo,
      reply_to: 'noreply@example.com',
      template,
      url: '/dashboard',
    });
    // the same route as api/sendAutomatedEmail: session, validation, own address, allowlist
    expect(
      (await anonymous().post('/api/users/sendAutomatedEmail', notice('depositNotice', user.email))).status,
    ).toBe(401);
    const missing = await call(user.browser, 'post', '/api/users/sendAutomatedEmail', {
      body: { subject: 'x' },
    });
    expect(missing.body).toEqual({ message: 'All fields are required' });
    const foreign = await call(user.browser, 'post', '/api/users/sendAutomatedEmail', {
      body: notice('depositNotice', freshEmail('victim')),
    });
    expect(foreign.status).toBe(403);

    // change password: identity emails the change itself; the client's notice answers as sent, sends nothing
    const changed = await user.browser.patch('/api/users/changePassword', {
      oldPassword: user.password,
      password: 'Changed-Passw0rd!',
    });
    expect(changed.status).toBe(200);
    const pw = await call(user.browser, 'post', '/api/users/sendAutomatedEmail', {
      body: notice('changePassword', user.email, 'Password Changed'),
    });
    expect(pw.status).toBe(200);
    expect(pw.body).toEqual({ message: 'Email sent successfully' });

    // change role: the admin's client sends the notice to the user's address (not the admin's own)
    const role = await admin.post('/api/users/upgradeUser', { role: 'author', id: user.id });
    expect(role.status).toBe(200);
    const roleNotice = await call(admin, 'post', '/api/users/sendAutomatedEmail', {
      body: notice('changeRole', user.email, 'Account Role Changed'),
    });
    expect(roleNotice.status).toBe(200);
    expect(roleNotice.body).toEqual({ message: 'Email sent successfully' });

    // a notice sent after both arrives: the event emails before it are there, once each
    const marker = `marker ${Date.now()}`;
    const sent = await call(user.browser, 'post', '/api/users/sendAutomatedEmail', {
      body: notice('depositNotice', user.email, marker),
    });
    expect(sent.status).toBe(200);
    await waitForMail(t.url, user.email, (m) => m.subject.includes(marker));
    await waitForMail(t.url, user.email, (m) => m.subject === 'Your Meridian role was changed');
    const mails = await listMail(t.url, user.email);
    expect(mails.filter((m) => m.subject === 'Your Meridian password was changed')).toHaveLength(1);
    expect(mails.filter((m) => m.subject === 'Your Meridian role was changed')).toHaveLength(1);
    expect(mails.filter((m) => /password changed|role changed/i.test(m.subject))).toHaveLength(0);
  });

  it("5. a password reset answers 'Password Reset Successful, please login'", async () => {
    const user = await registerUser(t.url);
    const b = anonymous();
    await call(b, 'post', '/api/users/forgotPassword', { body: { email: user.email } });
    const mail = await waitForMail(t.url, user.email, (m) =>
      m.links.some((l) => l.includes('/resetPassword/')),
    );
    const { token } = linkWith(mail, '/resetPassword/');
    const res = await call(b, 'patch', '/api/users/resetPassword/:resetToken', {
      path: `/api/users/resetPassword/${token}`,
      body: { password: 'Reset-Passw0rd!' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Password Reset Successful, please login' });
    expect(res.body.message).toContain('Reset Successful'); // what the original client looks for
  });

  describe('6. CSRF: the Origin (or Referer) check beside the double-submit token', () => {
    const noToken = (headers: Record<string, string>): RequestOptions => ({ csrf: false, headers });

    it('impersonate and exit-impersonation without X-XSRF-TOKEN pass when Origin names our own origin', async () => {
      const person = await registerUser(t.url, { name: 'Origin Checked' });
      // fetch() from a page the gateway serves: Origin is the host the request was sent to
      const start = await call(admin, 'post', '/api/users/impersonate/:id', {
        path: `/api/users/impersonate/${person.id}`,
        ...noToken({ origin: t.url, 'sec-fetch-site': 'same-origin' }),
      });
      expect(start.status).toBe(200);
      expect((await admin.get('/api/users/getUser')).body).toMatchObject({
        _id: person.id,
        isImpersonated: true,
      });
      // APP_URL's origin is ours too (the composition's APP_URL is its default, http://localhost:8080)
      const exit = await call(
        admin,
        'post',
        '/api/users/exit-impersonation',
        noToken({ origin: 'http://localhost:8080' }),
      );
      expect(exit.status).toBe(200);
      expect((await admin.get('/api/users/getUser')).body).toMatchObject({
        email: ADMIN_EMAIL,
        isImpersonated: false,
      });
    });

    it('a Referer on our origin passes when the Origin header is absent', async () => {
      const person = await registerUser(t.url);
      const res = await admin.post(
        `/api/users/impersonate/${person.id}`,
        undefined,
        noToken({ referer: `${t.url}/profile` }),
      );
      expect(res.status).toBe(200);
      expect((await admin.post('/api/users/exit-impersonation')).status).toBe(200);
    });

    it('a foreign or null Origin, a foreign Referer, and Sec-Fetch-Site: cross-site are refused, token or not', async () => {
      const person = await registerUser(t.url);
      const path = `/api/users/impersonate/${person.id}`;
      const refused: Array<Record<string, string>> = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { referer: 'https://evil.example/page' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of refused) {
        const without = await admin.post(path, undefined, noToken(headers));
        expect(without.status, JSON.stringify(headers)).toBe(403);
        expect(without.body).toEqual({ message: 'Invalid CSRF token' });
        const withToken = await admin.post(path, undefined, { headers });
        expect(withToken.status, `${JSON.stringify(headers)} with the token`).toBe(403);
      }
      expect((await admin.get('/api/users/getUser')).body).toMatchObject({
        email: ADMIN_EMAIL,
        isImpersonated: false,
      });
    });

    it('without Origin or Referer the double-submit token still decides', async () => {
      const b = await registerUser(t.url);
      expect((await b.browser.patch('/api/users/updateUser', { bio: 'a' }, { csrf: false })).status).toBe(
        403,
      );
      expect((await b.browser.patch('/api/users/updateUser', { bio: 'a' })).status).toBe(200);
      const sameSite = await b.browser.patch(
        '/api/users/updateUser',
        { bio: 'b' },
        { headers: { 'sec-fetch-site': 'same-site' } },
      );
      expect(sameSite.status).toBe(200);
    });

    it('our host under the other scheme (a TLS proxy not in TRUST_PROXY) is left to the token', async () => {
      const b = await registerUser(t.url);
      const origin = t.url.replace(/^http:/, 'https:');
      const without = await b.browser.patch('/api/users/updateUser', { bio: 'c' }, noToken({ origin }));
      expect(without.status).toBe(403);
      const withToken = await b.browser.patch('/api/users/updateUser', { bio: 'c' }, { headers: { origin } });
      expect(withToken.status).toBe(200);
    });
  });

  it('7. a user without a picture gets the default avatar, served here to any origin', async () => {
    const user = await registerUser(t.url);
    const me = await call(user.browser, 'get', '/api/users/getUser');
    const avatar = `${t.url}/api/avatars/default.svg`;
    expect(me.body.photo).toBe(avatar);
    const list = await call(admin, 'get', '/api/users/getUsers');
    expect(list.body.find((u: { _id: string }) => u._id === user.id).photo).toBe(avatar);
    const image = await fetch(avatar, { headers: { origin: 'https://elsewhere.example' } });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toContain('image/svg+xml');
    expect(image.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(await image.text()).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // a picture of their own replaces it
    const own = 'https://res.cloudinary.com/demo/own.png';
    const updated = await call(user.browser, 'patch', '/api/users/updateUser', { body: { photo: own } });
    expect(updated.body.photo).toBe(own);
  });
});
