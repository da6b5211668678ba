/**
 * The gateway's security rules: forwarded headers only from trusted proxies, frame protection on every
 * HTML answer, the dev mailbox for loopback clients and one address only, no cross-site GET logout, a
 * demoted admin's sockets, and the `photo` field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { loopbackOnly } from './http/otherRoutes.js';
import { HttpError } from './http/errors.js';
import { createOriginPolicy, MISDIRECTED } from './http/origins.js';
import { parseBody, PHOTO_MAX_CHARS, PHOTO_REFUSED, schemas } from './http/validation.js';
import { ADMINS_ROOM } from './realtime.js';
import {
  adminBrowser,
  freshEmail,
  HttpSession,
  registerUser,
  signIn,
  startTestComposition,
  userWithRole,
  type TestComposition,
} from './testing/composition.js';

const MAX = 3;
const rule = { max: MAX, windowMs: 60_000 };
const webDist = mkdtempSync(join(tmpdir(), 'meridian-spa-'));
writeFileSync(join(webDist, 'index.html'), '<!doctype html><html><body>SPA</body></html>');

/** Generous rate limits (journeys); strict: login limited, TRUST_PROXY unset; trusting: the same with one hop. */
let t: TestComposition;
let strict: TestComposition;
let trusting: TestComposition;
const sockets: Socket[] = [];

beforeAll(async () => {
  [t, strict, trusting] = await Promise.all([
    startTestComposition({ env: { WEB_DIST: webDist } }),
    startTestComposition({ gateway: { rateLimits: { login: rule } } }),
    startTestComposition({ gateway: { rateLimits: { login: rule }, trustProxy: '1' } }),
  ]);
});

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await Promise.all([t?.stop(), strict?.stop(), trusting?.stop()]);
  rmSync(webDist, { recursive: true, force: true });
});

const login = (url: string, forwardedFor: string) =>
  new HttpSession(url).post(
    '/api/users/login',
    { email: freshEmail(), password: 'Passw0rd!' },
    { headers: { 'x-forwarded-for': forwardedFor } },
  );

describe('4. rate limits count the client, forwarded headers only from trusted proxies', () => {
  it('by default (TRUST_PROXY unset) a forged X-Forwarded-For does not rotate the bucket', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= MAX; i++) statuses.push((await login(strict.url, `198.51.100.${i + 1}`)).status);
    expect(statuses.slice(0, MAX)).not.toContain(429);
    expect(statuses[MAX]).toBe(429);
  });

  it('with TRUST_PROXY=1, two clients behind the proxy get separate buckets', async () => {
    for (let i = 0; i < MAX; i++) expect((await login(trusting.url, '203.0.113.7')).status).not.toBe(429);
    expect((await login(trusting.url, '203.0.113.7')).status).toBe(429);
    // another client behind the same proxy still has its own budget
    expect((await login(trusting.url, '203.0.113.8')).status).not.toBe(429);
    // a forged entry before the proxy's own one does not help: one hop deep, the proxy's entry counts
    expect((await login(trusting.url, '10.9.9.9, 203.0.113.7')).status).toBe(429);
  });
});

describe('8. every HTML answer forbids framing', () => {
  const expectFrameProtection = (headers: Headers) => {
    expect(headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(headers.get('x-frame-options')).toBe('DENY');
  };

  it('the SPA at /, at a client-side route and index.html', async () => {
    for (const path of ['/', '/dashboard/admin', '/index.html']) {
      const res = await fetch(new URL(path, t.url));
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/html');
      expectFrameProtection(res.headers);
    }
  });

  it('the "not built yet" page and the API docs', async () => {
    const res = await fetch(new URL('/', trusting.url)); // WEB_DIST does not exist there
    expect(await res.text()).toContain('not built yet');
    expectFrameProtection(res.headers);
    const docs = await fetch(new URL('/api/docs', t.url));
    expect(docs.headers.get('content-type')).toContain('text/html');
    expectFrameProtection(docs.headers);
  });
});

describe('3. the dev mailbox', () => {
  /** Runs the guard on a fake request; resolves with what it passed to next(). */
  const guard = (req: { remoteAddress: string; ip?: string; headers?: Record<string, string> }): unknown => {
    let passed: unknown = 'not called';
    const fake = {
      socket: { remoteAddress: req.remoteAddress },
      ip: req.ip ?? req.remoteAddress,
      get: (name: string) => req.headers?.[name.toLowerCase()],
    } as unknown as Request;
    loopbackOnly(fake, {} as Response, (err?: unknown) => {
      passed = err;
    });
    return passed;
  };

  it('answers loopback clients only', () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(guard({ remoteAddress }), remoteAddress).toBeUndefined();
    for (const remoteAddress of ['203.0.113.5', '::ffff:192.168.1.20', '10.0.0.2', 'fe80::1']) {
      const err = guard({ remoteAddress });
      expect(err, remoteAddress).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(404);
    }
    // a proxy on this machine forwarding someone else
    expect(
      guard({ remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.5' } }),
    ).toBeInstanceOf(HttpError);
    expect(guard({ remoteAddress: '127.0.0.1', ip: '203.0.113.5' })).toBeInstanceOf(HttpError);
  });

  it('a forwarded request reaching the real gateway from loopback is refused', async () => {
    const res = await fetch(new URL('/api/dev/mailbox?to=a%40example.com', t.url), {
      headers: { 'x-forwarded-for': '203.0.113.5' },
    });
    expect(res.status).toBe(404);
  });

  it('lists one address only: an empty or missing `to` is refused', async () => {
    for (const path of ['/api/dev/mailbox', '/api/dev/mailbox?to=', '/api/dev/mailbox?to=%20']) {
      const res = await fetch(new URL(path, t.url));
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ message: 'Please enter a valid email' });
    }
  });
});

describe('10. GET logout triggered cross-site is refused', () => {
  it('refuses Sec-Fetch-Site: cross-site and a foreign Origin; the session stays', async () => {
    const user = await registerUser(t.url);
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' } as Record<string, string>,
      { origin: 'https://evil.example.com' },
      { origin: 'null' },
    ]) {
      const res = await user.browser.get('/api/users/logout', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await user.browser.get('/api/users/loginStatus')).body).toBe(true);
  });

  it('works from our own pages (same-origin, our Origin, or no such header)', async () => {
    for (const headers of [
      { 'sec-fetch-site': 'same-origin', origin: t.url } as Record<string, string>,
      { 'sec-fetch-site': 'none' },
      {},
    ]) {
      const user = await registerUser(t.url);
      const res = await user.browser.get('/api/users/logout', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect((await user.browser.get('/api/users/loginStatus')).body).toBe(false);
    }
  });
});

describe('10. a demoted admin stops receiving admin pushes at once', () => {
  function open(cookie: string): Promise<Socket> {
    const socket = connect(t.url, {
      path: '/socket.io',
      transports: ['websocket'],
      extraHeaders: { cookie },
      reconnection: false,
    });
    sockets.push(socket);
    return new Promise((resolve, reject) => {
      socket.on('ready', () => resolve(socket));
      socket.on('connect_error', reject);
    });
  }

  it('leaves the admins room on RoleChanged, long before the 60 s revalidation', async () => {
    const admin = await adminBrowser(t.url);
    const second = await userWithRole(t.url, admin, 'admin');
    const browser = new HttpSession(t.url);
    await signIn(browser, second.email, second.password);
    const socket = await open(browser.cookieHeader());
    const rooms = () => t.app.gateway.realtime.io.of('/').adapter.rooms.get(ADMINS_ROOM);
    const serverSocketIds = () => [...t.app.gateway.realtime.io.of('/').sockets.keys()];
    await waitFor(() => serverSocketIds().length > 0);
    const inAdmins = () =>
      [...(rooms() ?? [])].some((id) => serverSocketIds().includes(id) && id === socket.id);
    await waitFor(inAdmins, 'the new admin socket is in the admins room');

    expect((await admin.post('/api/users/upgradeUser', { role: 'subscriber', id: second.id })).status).toBe(
      200,
    );
    await waitFor(() => !inAdmins(), {
      timeoutMs: 10_000,
      message: 'the demoted socket left the admins room',
    });

    const got: unknown[] = [];
    socket.on('queue/itemAdded', (p) => got.push(p));
    t.app.gateway.pushToAdmins('queue/itemAdded', { queue: 'kyc' });
    const marker = new Promise((resolve) => socket.once('marker', resolve));
    t.app.gateway.pushToUser(second.id, 'marker', {});
    await marker;
    expect(got).toEqual([]);
    expect(socket.connected).toBe(true);
  });
});

describe('10. photo: our own uploads or https URLs of allowed hosts only', () => {
  it('refuses any other address, with a clear message', async () => {
    const user = await registerUser(t.url);
    for (const photo of [
      'http://169.254.169.254/latest/meta-data/',
      'https://attacker.example/track.png',
      'https://res.cloudinary.com.attacker.example/x.png',
      'http://res.cloudinary.com/demo/x.png',
      'javascript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      'data:text/html;base64,PGgxPmhpPC9oMT4=',
      `data:image/png;base64,${'A'.repeat(90_000)}`,
    ]) {
      const res = await user.browser.patch('/api/users/updateUser', { photo });
      expect(res.status, photo.slice(0, 60)).toBe(400);
      expect(res.body.message, photo.slice(0, 60)).toBe(PHOTO_REFUSED);
    }
    const me = await user.browser.get('/api/users/getUser');
    expect(me.body.photo).toBe(`${t.url}/api/avatars/default.svg`);
  });

  it('accepts an empty value, our default avatar and an allowed https host', async () => {
    const user = await registerUser(t.url);
    const ok = async (photo: string) => {
      const res = await user.browser.patch('/api/users/updateUser', { photo });
      expect(res.status, `${photo.slice(0, 60)}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
      return res.body.photo as string;
    };
    expect(await ok('https://res.cloudinary.com/demo/own.png')).toBe(
      'https://res.cloudinary.com/demo/own.png',
    );
    expect(await ok(`${t.url}/api/avatars/default.svg`)).toBe(`${t.url}/api/avatars/default.svg`);
    expect(await ok('')).toBe(`${t.url}/api/avatars/default.svg`);
  });

  it('the inline image of the SPA profile screen is stored (png, jpeg; spec §5: no other type), under the cap', async () => {
    const user = await registerUser(t.url);
    for (const type of ['png', 'jpeg']) {
      const photo = `data:image/${type};base64,${Buffer.from('pixels').toString('base64')}`;
      const res = await user.browser.patch('/api/users/updateUser', { photo });
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBe(200);
      expect(res.body.photo).toBe(photo);
    }
    const webp = `data:image/webp;base64,${Buffer.from('pixels').toString('base64')}`;
    expect(() => parseBody(schemas.updateUser, { photo: webp })).toThrow(PHOTO_REFUSED);
    const big = `data:image/jpeg;base64,${'A'.repeat(PHOTO_MAX_CHARS)}`;
    expect(() => parseBody(schemas.updateUser, { photo: big })).toThrow(PHOTO_REFUSED);
  });
});

/** A request to the gateway naming `host` in its Host header (what a page on a rebound name sends). */
function withHost(
  url: string,
  path: string,
  host: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, url),
      {
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          host,
          ...(options.body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('Host: only the hosts configuration names (DNS rebinding)', () => {
  const port = () => new URL(t.url).port;

  it('refuses a page on a rebound name before any route (421, a clear message), the dev mailbox and a reset included', async () => {
    const rebound = `evil.example:${port()}`;
    const origin = `http://${rebound}`;
    const user = await registerUser(t.url);
    for (const [method, path, body] of [
      ['GET', '/api/users/loginStatus', undefined],
      ['GET', `/api/dev/mailbox?to=${encodeURIComponent(user.email)}`, undefined],
      ['POST', '/api/users/forgotPassword', JSON.stringify({ email: user.email })],
      ['GET', '/', undefined],
    ] as const) {
      const res = await withHost(t.url, path, rebound, { method, body, headers: { origin } });
      expect(res.status, `${method} ${path}`).toBe(421);
      expect(JSON.parse(res.body), `${method} ${path}`).toEqual({ message: MISDIRECTED });
    }
  });

  it('refuses the socket.io handshake on a rebound name', async () => {
    const res = await withHost(t.url, '/socket.io/?EIO=4&transport=polling', `evil.example:${port()}`);
    expect(res.status).toBe(403);
    const ok = await withHost(t.url, '/socket.io/?EIO=4&transport=polling', `localhost:${port()}`);
    expect(ok.status).toBe(200);
  });

  it('the origin check trusts configuration, never the Host the request brought', async () => {
    const user = await registerUser(t.url);
    const other = `localhost:${Number(port()) + 1}`;
    // a loopback name on another port is not ours: neither as Host nor as Origin
    expect((await withHost(t.url, '/api/users/loginStatus', other)).status).toBe(421);
    const res = await user.browser.post(
      '/api/users/sendVerificationEmail',
      {},
      { headers: { origin: `http://${other}` } },
    );
    expect(res.status).toBe(403);
  });

  it('answers APP_URL’s host, and outside production localhost, 127.0.0.1 and [::1] on its port', async () => {
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`, 'localhost:8080']) {
      const res = await withHost(t.url, '/api/users/loginStatus', host);
      expect(res.status, host).toBe(200);
    }
  });

  it('keeps the probes open to any Host (Kubernetes sends the pod IP)', async () => {
    expect((await withHost(t.url, '/healthz', `10.1.2.3:${port()}`)).status).toBe(200);
    expect((await withHost(t.url, '/readyz', `10.1.2.3:${port()}`)).status).toBe(200);
  });
});

describe('Host policy (origins.ts): APP_URL, ALLOWED_HOSTS, loopback only outside production', () => {
  it('in production: APP_URL’s host and ALLOWED_HOSTS only', () => {
    const p = createOriginPolicy({
      appUrl: 'https://meridian.example.com',
      allowedHosts: ['api.example.com', 'admin.example.com:8443'],
      nodeEnv: 'production',
    });
    expect(p.hostAllowed('meridian.example.com', 8080)).toBe(true);
    expect(p.hostAllowed('MERIDIAN.example.com', 8080)).toBe(true);
    expect(p.hostAllowed('api.example.com:9000', 8080)).toBe(true);
    expect(p.hostAllowed('admin.example.com:8443', 8080)).toBe(true);
    expect(p.hostAllowed('admin.example.com', 8080)).toBe(false);
    expect(p.hostAllowed('localhost:8080', 8080)).toBe(false);
    expect(p.hostAllowed('evil.example', 8080)).toBe(false);
    expect(p.hostAllowed(undefined, 8080)).toBe(false);
    expect(p.isOwn('https://meridian.example.com', 8080)).toBe(true);
    expect(p.isOwn('http://meridian.example.com', 8080)).toBe(false);
    expect(p.isOwn('https://evil.example', 8080)).toBe(false);
  });
});
