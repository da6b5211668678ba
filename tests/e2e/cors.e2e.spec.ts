/**
 * Another origin: pages on other loopback ports drive the gateway in headless Chromium.
 * The standalone target runs as `make start` runs it, with CORS_ORIGINS naming page A's origin only.
 *
 *  1. page A (listed) reads answers with credentials, registers and edits the profile through
 *     preflighted requests (X-XSRF-TOKEN allowed), with the cookies the gateway set;
 *  2. page F (not listed) reads nothing, its preflighted calls fail, and its simple cross-origin POST
 *     (no preflight, cookies sent) is refused by the origin check: the admin is not impersonating;
 *  3. page A and a page the gateway serves itself start and leave impersonation with fetch() and no
 *     X-XSRF-TOKEN, as the original client does (item 6).
 *
 * Skipped, with the reason printed, where Chromium is missing (scripts/ensure-system.sh installs it).
 *
 *   npx vitest run --project e2e tests/e2e/cors.e2e.spec.ts
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSession, listMail, loginCodeOf, waitForMail } from '@meridian/gateway/testing/httpSession';
import { listenOn } from '@meridian/platform/util/freePort';
import { CHROMIUM_PATH, launchChromium } from '../support/browser.js';
import { startTarget, stopTarget, type RunningTarget } from '../support/standalone.js';

const skipReason = existsSync(CHROMIUM_PATH)
  ? ''
  : `no Chromium at ${CHROMIUM_PATH} (scripts/ensure-system.sh chromium installs it; CHROMIUM_PATH points elsewhere)`;
if (skipReason) console.log(`[skip] CORS in Chromium: ${skipReason}`);

const ADMIN = { email: 'cors-admin@example.com', password: 'Cors-Admin-Passw0rd!' };

/** A plain page on 127.0.0.1:<port>: the "SPA" of another origin (the scripts run through page.evaluate). */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><head><title>elsewhere</title></head><body>another origin</body></html>');
  });
  const port = await listenOn(server, 0, '127.0.0.1');
  return { server, origin: `http://127.0.0.1:${port}` };
}

interface Answer {
  status: number;
  body: any;
}

/** fetch() in the page, cookies included; `{blocked}` when the browser refuses it (CORS). */
function call(
  page: Page,
  url: string,
  init: {
    method?: string;
    json?: unknown;
    headers?: Record<string, string>;
    xsrf?: boolean;
    noCors?: boolean;
  } = {},
): Promise<Answer | { blocked: string }> {
  return page.evaluate(
    async ({ url, init }) => {
      const headers: Record<string, string> = { ...init.headers };
      if (init.json !== undefined) headers['content-type'] = 'application/json';
      if (init.xsrf) {
        const pair = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
        headers['x-xsrf-token'] = decodeURIComponent(pair?.slice('XSRF-TOKEN='.length) ?? '');
      }
      try {
        const res = await fetch(url, {
          method: init.method ?? 'GET',
          credentials: 'include',
          mode: init.noCors ? 'no-cors' : 'cors',
          headers,
          body: init.json === undefined ? undefined : JSON.stringify(init.json),
        });
        const text = await res.text();
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : text;
        } catch {
          // not JSON
        }
        return { status: res.status, body };
      } catch (err) {
        return { blocked: String(err) };
      }
    },
    { url, init },
  );
}

const answered = (a: Answer | { blocked: string }): Answer => {
  if ('blocked' in a) throw new Error(`the browser blocked the call: ${a.blocked}`);
  return a;
};

describe.skipIf(Boolean(skipReason))(
  'a page on another origin against the gateway (CORS_ORIGINS) in Chromium',
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meridian-cors-'));
    let target: RunningTarget | undefined;
    let browser: Browser | undefined;
    let context: BrowserContext;
    let listed: { server: Server; origin: string };
    let foreign: { server: Server; origin: string };
    let gateway = '';
    let pageA: Page;
    let pageF: Page;

    beforeAll(async () => {
      listed = await pageServer();
      foreign = await pageServer();
      target = await startTarget({
        dataDir,
        adminEmail: ADMIN.email,
        adminPassword: ADMIN.password,
        env: { CORS_ORIGINS: listed.origin },
      });
      // the pages and the gateway share the host 127.0.0.1 (same site, other ports: other origins)
      gateway = target.url.replace('//localhost:', '//127.0.0.1:');
      browser = await launchChromium();
      context = await browser.newContext();
      pageA = await context.newPage();
      await pageA.goto(listed.origin);
      pageF = await context.newPage();
      await pageF.goto(foreign.origin);
    });

    afterAll(async () => {
      await browser?.close();
      if (target) await stopTarget(target);
      await new Promise((r) => listed?.server.close(r));
      await new Promise((r) => foreign?.server.close(r));
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('1. the listed origin reads with credentials and changes state through preflighted requests', async () => {
      // readable at all: the gateway allowed this origin with credentials (else fetch() rejects)
      const status = answered(await call(pageA, `${gateway}/api/users/loginStatus`));
      expect(status).toEqual({ status: 200, body: false });

      const email = `cors.${Date.now()}@example.com`;
      // JSON: a preflighted request; no X-XSRF-TOKEN: the origin check accepts a CORS_ORIGINS origin
      const reg = answered(
        await call(pageA, `${gateway}/api/users/register`, {
          method: 'POST',
          json: {
            name: 'Cora Cross',
            email,
            password: 'Cora-Passw0rd!',
            phone: '+15550100',
            country: 'Germany',
          },
        }),
      );
      expect(reg.status).toBe(201);
      const me = answered(await call(pageA, `${gateway}/api/users/getUser`));
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ email, photo: `${gateway}/api/avatars/default.svg` });

      // X-XSRF-TOKEN allowed by the preflight (the cookie is readable: same host, another port)
      const patched = answered(
        await call(pageA, `${gateway}/api/users/updateUser`, {
          method: 'PATCH',
          json: { bio: 'From A' },
          xsrf: true,
        }),
      );
      expect(patched.status).toBe(200);
      expect(patched.body.bio).toBe('From A');

      // the default avatar loads into an <img> of the other origin
      const loaded = await pageA.evaluate(
        (src) =>
          new Promise<boolean>((resolve) => {
            const img = new Image();
            img.onload = () => resolve(img.naturalWidth > 0);
            img.onerror = () => resolve(false);
            img.src = src;
          }),
        me.body.photo as string,
      );
      expect(loaded).toBe(true);
    });

    it('2. an origin not listed reads nothing and changes nothing', async () => {
      const read = await call(pageF, `${gateway}/api/users/getUser`);
      expect(read).toMatchObject({ blocked: expect.stringMatching(/TypeError|Failed to fetch/) });
      const preflighted = await call(pageF, `${gateway}/api/users/updateUser`, {
        method: 'PATCH',
        json: { bio: 'From F' },
        xsrf: true,
      });
      expect(preflighted).toMatchObject({ blocked: expect.any(String) });
      const me = answered(await call(pageA, `${gateway}/api/users/getUser`));
      expect(me.body.bio).toBe('From A');
    });

    it('3. impersonation with fetch() and no X-XSRF-TOKEN: refused from the foreign origin, accepted from ours', async () => {
      const person = new HttpSession(gateway);
      const registered = await person.post('/api/users/register', {
        name: 'Ivo Impersonated',
        email: `ivo.${Date.now()}@example.com`,
        password: 'Ivo-Passw0rd!',
        phone: '+15550100',
        country: 'Germany',
      });
      expect(registered.status).toBe(201);
      const personId = registered.body._id as string;

      // the admin signs in on page A: a new browser, so through the emailed code
      const first = answered(
        await call(pageA, `${gateway}/api/users/login`, { method: 'POST', json: ADMIN }),
      );
      expect(first.status).toBe(400);
      expect(first.body.message).toContain('New browser');
      const known = new Set((await listMail(gateway, ADMIN.email)).map((m) => m.id));
      const enc = encodeURIComponent(ADMIN.email);
      expect(
        answered(await call(pageA, `${gateway}/api/users/sendLoginCode/${enc}`, { method: 'POST' })).status,
      ).toBe(200);
      const mail = await waitForMail(
        gateway,
        ADMIN.email,
        (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text),
      );
      const signedIn = answered(
        await call(pageA, `${gateway}/api/users/loginWithCode/${enc}`, {
          method: 'POST',
          json: { loginCode: loginCodeOf(mail) },
        }),
      );
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.role).toBe('admin');

      // a simple POST (no preflight, the admin's cookies sent) settles once the gateway answered it: opaque,
      // or a network error when Chromium withholds the answer (Cross-Origin-Resource-Policy: same-origin)
      const simplePost = (page: Page) =>
        call(page, `${gateway}/api/users/impersonate/${personId}`, { method: 'POST', noCors: true });
      const me = async () => answered(await call(pageA, `${gateway}/api/users/getUser`)).body;
      // page F: refused by the origin check
      await simplePost(pageF);
      expect(await me()).toMatchObject({ email: ADMIN.email, isImpersonated: false });
      // page A, the same request: accepted (so F's did reach the gateway, and was refused)
      await simplePost(pageA);
      expect(await me()).toMatchObject({ _id: personId, isImpersonated: true });
      // and in cors mode, with the answers readable
      const exitA = answered(
        await call(pageA, `${gateway}/api/users/exit-impersonation`, { method: 'POST' }),
      );
      expect(exitA.body.user).toMatchObject({ email: ADMIN.email, isImpersonated: false });
      const start = answered(
        await call(pageA, `${gateway}/api/users/impersonate/${personId}`, { method: 'POST' }),
      );
      expect(start.status).toBe(200);
      expect(start.body.user).toMatchObject({ _id: personId, isImpersonated: true });

      // a page the gateway serves itself (same origin, like the original client): leave and start again
      const own = await context.newPage();
      await own.goto(`${gateway}/api/docs`);
      const exit = answered(await call(own, '/api/users/exit-impersonation', { method: 'POST' }));
      expect(exit.status).toBe(200);
      expect(exit.body.user).toMatchObject({ email: ADMIN.email, isImpersonated: false });
      const again = answered(await call(own, `/api/users/impersonate/${personId}`, { method: 'POST' }));
      expect(again.status).toBe(200);
      expect(again.body.user).toMatchObject({ _id: personId, isImpersonated: true });
      expect(answered(await call(own, '/api/users/exit-impersonation', { method: 'POST' })).status).toBe(200);
      await own.close();
    });
  },
);
