/**
 * CORS_ORIGINS: preflights, credentials, the allowlist, SameSite=None for a cross-site SPA, on gateways
 * beside the money composition started in-process.
 *
 * A page on another origin driving the gateway in Chromium: tests/e2e/cors.e2e.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from './config.js';
import { startGateway, type RunningGateway } from './server.js';
import { freshEmail, gatewayConfigFor, type TestComposition } from './testing/composition.js';
import { HttpSession, cookieAttributes } from './testing/httpSession.js';
import { startApiContract } from './testing/apiDocument.js';
import { sharedForSpec } from './testing/specComposition.js';

let t: TestComposition;
sharedForSpec(startApiContract, (s) => void ({ t } = s));

describe('CORS_ORIGINS', () => {
  const SPA = 'http://127.0.0.1:5999';
  let cors: RunningGateway;
  let secure: RunningGateway;
  const configFor = (over: Partial<GatewayConfig>) => gatewayConfigFor(t, over, true);
  beforeAll(async () => {
    cors = await startGateway({ config: configFor({ corsOrigins: [SPA] }) });
    secure = await startGateway({ config: configFor({ corsOrigins: [SPA], cookieSecure: true }) });
  });
  afterAll(async () => {
    await cors?.stop();
    await secure?.stop();
  });

  const preflight = (url: string, origin: string, method = 'POST') =>
    fetch(`${url}/api/users/register`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type,x-xsrf-token',
      },
    });

  it('answers a listed origin’s preflight before the CSRF check, allowing credentials and X-XSRF-TOKEN', async () => {
    const res = await preflight(cors.url, SPA, 'PATCH');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-xsrf-token');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('gives other origins, and every origin without CORS_ORIGINS, nothing', async () => {
    for (const [url, origin] of [
      [cors.url, 'http://127.0.0.1:6000'],
      [t.url, SPA],
    ] as const) {
      const res = await preflight(url, origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const get = await fetch(`${url}/api/users/loginStatus`, { headers: { origin } });
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('a listed origin reads answers with credentials, and its state-changing requests pass the origin check', async () => {
    const b = new HttpSession(cors.url);
    const reg = await b.post(
      '/api/users/register',
      {
        name: 'Cross Origin',
        email: freshEmail('cors'),
        password: 'Passw0rd!',
        phone: '+15550100',
        country: 'Germany',
      },
      { csrf: false, headers: { origin: SPA, 'sec-fetch-site': 'cross-site' } },
    );
    expect(reg.status).toBe(201);
    expect(reg.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(reg.headers.get('access-control-allow-credentials')).toBe('true');
    expect(reg.headers.get('access-control-expose-headers')).toContain('X-Correlation-ID');
    const me = await b.get('/api/users/getUser', { headers: { origin: SPA } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe(SPA);
    // another origin is refused even on the same gateway
    const other = await b.patch(
      '/api/users/updateUser',
      { bio: 'x' },
      { csrf: false, headers: { origin: 'http://127.0.0.1:6000' } },
    );
    expect(other.status).toBe(403);
  });

  it('with Secure cookies, marks them SameSite=None so a cross-site SPA is signed in; Lax without CORS_ORIGINS', async () => {
    const res = await new HttpSession(secure.url).get('/api/users/loginStatus');
    expect(cookieAttributes(res.setCookies, 'XSRF-TOKEN')).toMatchObject({ samesite: 'None', secure: true });
    const plain = await new HttpSession(cors.url).get('/api/users/loginStatus');
    expect(String(cookieAttributes(plain.setCookies, 'XSRF-TOKEN')!.samesite).toLowerCase()).toBe('lax');
  });
});
