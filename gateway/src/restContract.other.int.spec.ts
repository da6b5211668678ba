/**
 * The REST contract of spec §7 ("Account" and "Other"), path by path: "Other": countries,
 * sendAutomatedEmail, the dev mailbox, the gateway in production, SPA hosting, the cross-cutting answers
 * and the sign-in helpers. Against the standalone composition started in-process (SQLite ':memory:',
 * in-process bus, real Redis under a random prefix).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  freshEmail,
  gatewayConfigFor,
  HttpSession,
  listMail,
  registerUser,
  signIn,
  waitForMail,
  type TestComposition,
} from './testing/composition.js';
import { cookieAttributes } from './testing/httpSession.js';
import { restContractSpec } from './testing/specComposition.js';
import { startGateway, type RunningGateway } from './server.js';
import { createIdentityClient, createNotificationClient } from './grpcClients.js';
import { MISDIRECTED } from './http/origins.js';

let t: TestComposition;
let url: string;
/** A fresh browser that has the CSRF cookie but no session. */
const anonymous = restContractSpec((s) => void ({ t, url } = s));

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
      config: gatewayConfigFor(t, {
        nodeEnv: 'production',
        appUrl: 'https://meridian.example.com',
        // this spec reaches it as localhost (production answers only configured hosts)
        allowedHosts: ['localhost'],
        cookieSecure: true,
      }),

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
      config: gatewayConfigFor(t, { webDist: dist }),
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
    const b = anonymous();
    const res = await b.post('/api/users/login', { email: ADMIN_EMAIL, password: 'Admin-Passw0rd!' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('New browser or device detected');
    await signIn(b, ADMIN_EMAIL, 'Admin-Passw0rd!');
    expect((await b.get('/api/users/getUser')).body.role).toBe('admin');
  });
});
