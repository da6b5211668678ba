/**
 * Sign-in through an OpenID Connect provider (http/oidcRoutes.ts) against a REAL provider: oidc-provider on a
 * loopback port (testing/oidcProvider.ts), its own login page driven over HTTP, the gateway's callback
 * registered as the client's redirect URI. One test per rule: a session and /dashboard only for a genuine,
 * fresh, single-use flow whose ID token passes every check and whose account may sign in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPair } from 'jose';
import { freePort } from '@meridian/platform/util/freePort';
import {
  adminBrowser,
  freshEmail,
  HttpSession,
  registerUser,
  startTestComposition,
  type TestComposition,
} from './testing/composition.js';
import { startTestIdp, type TestIdp } from './testing/oidcProvider.js';
import { OIDC_BROWSER_COOKIE } from './http/oidcRoutes.js';
import { SESSION_COOKIE } from './http/cookies.js';
import { cookieAttributes } from './testing/httpSession.js';

let c: TestComposition;
let idp: TestIdp;
let appUrl: string;

beforeAll(async () => {
  // the callback URL the provider registers names the gateway's origin (APP_URL): a port known up front
  appUrl = `http://localhost:${await freePort()}`;
  idp = await startTestIdp({ redirectUris: [`${appUrl}/api/auth/oidc/test-idp/callback`] });
  c = await startTestComposition({
    env: {
      PORT: new URL(appUrl).port,
      APP_URL: appUrl,
      OIDC_PROVIDERS: JSON.stringify([
        idp.entry('test-idp', 'Test IdP'),
        { id: 'google', clientId: 'meridian.apps.googleusercontent.com' },
      ]),
    },
  });
});
afterAll(async () => {
  await c?.stop();
  await idp?.stop();
});
beforeEach(() => {
  idp.tamper = null;
  idp.signWith = null;
});

const START = '/api/auth/oidc/test-idp/start';
let logins = 0;
/** A login name at the provider whose account has a fresh email (or the given one). */
function account(overrides: { email?: string; email_verified?: boolean } = {}) {
  const login = `person-${++logins}-${Date.now().toString(36)}`;
  const email = overrides.email ?? freshEmail('oidc');
  idp.accounts.set(login, { email, email_verified: overrides.email_verified ?? true, name: 'Ida Provider' });
  return { login, email };
}

/** Starts a flow in `browser` and signs in at the provider: the callback URL it sends the browser to. */
async function callbackUrl(browser: HttpSession, login: string): Promise<URL> {
  const start = await browser.get(START);
  expect(start.status).toBe(302);
  const back = new URL(await idp.signIn(start.headers.get('location')!, login));
  expect(back.origin + back.pathname).toBe(`${appUrl}/api/auth/oidc/test-idp/callback`);
  return back;
}

const pathOf = (url: URL) => url.pathname + url.search;

/** The callback's answer: where it sends the browser and whether it set a session. */
async function finish(browser: HttpSession, url: URL) {
  const res = await browser.get(pathOf(url));
  expect(res.status).toBe(302);
  return {
    location: res.headers.get('location'),
    session: res.setCookies.some(
      (sc) => sc.startsWith(`${SESSION_COOKIE}=`) && !sc.startsWith(`${SESSION_COOKIE}=;`),
    ),
  };
}

async function signedInAs(browser: HttpSession): Promise<string | null> {
  const res = await browser.get('/api/users/getUser');
  return res.status === 200 ? (res.body as { email: string }).email : null;
}

/** A new account signed in once in a new browser: the browser, the account's login and the callback URL used. */
async function signedInOnce() {
  const browser = new HttpSession(appUrl);
  const { login } = account();
  const url = await callbackUrl(browser, login);
  expect((await finish(browser, url)).location).toBe('/dashboard');
  return { browser, login, url };
}

const refused = (reason: string) => ({ location: `/login?error=${reason}`, session: false });

describe('OpenID Connect sign-in', () => {
  it('lists the configured providers, and starts a flow: PKCE S256, state and nonce, a browser-bound cookie', async () => {
    const browser = new HttpSession(appUrl);
    expect((await browser.get('/api/auth/providers')).body).toEqual([
      { id: 'test-idp', name: 'Test IdP' },
      { id: 'google', name: 'Google' },
    ]);
    const start = await browser.get(START);
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: 'code',
      redirect_uri: `${appUrl}/api/auth/oidc/test-idp/callback`,
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    for (const p of ['state', 'nonce', 'code_challenge'])
      expect(to.searchParams.get(p)).toMatch(/^[\w-]{32,}$/);
    expect(cookieAttributes(start.setCookies, OIDC_BROWSER_COOKIE)).toMatchObject({
      httponly: true,
      samesite: 'Lax',
      path: '/api/auth/oidc',
    });
  });

  it('signs a new person in: a verified account, the session cookie, /dashboard, a security event naming the provider', async () => {
    const browser = new HttpSession(appUrl);
    const { login, email } = account();
    expect(await finish(browser, await callbackUrl(browser, login))).toEqual({
      location: '/dashboard',
      session: true,
    });
    const me = await browser.get('/api/users/getUser');
    expect(me.body).toMatchObject({ email, name: 'Ida Provider', isVerified: true });
    const events = (await browser.get('/api/users/securityEvents')).body as {
      events: { kind: string; method: string }[];
    };
    expect(events.events).toEqual([expect.objectContaining({ kind: 'new_device', method: 'oidc:Test IdP' })]);

    // the same person again: the same account, from a browser it now trusts
    expect(await finish(browser, await callbackUrl(browser, login))).toMatchObject({
      location: '/dashboard',
    });
    expect((await browser.get('/api/users/getUser')).body._id).toBe(me.body._id);
  });

  it('refuses a tampered state, a state started in another browser, and one started for another provider', async () => {
    const browser = new HttpSession(appUrl);
    const { login } = account();
    const url = await callbackUrl(browser, login);
    const tampered = new URL(url);
    tampered.searchParams.set('state', `${url.searchParams.get('state')!.slice(0, -2)}xy`);
    expect(await finish(browser, tampered)).toEqual(refused('invalid_state'));

    const other = await callbackUrl(browser, login);
    const stranger = new HttpSession(appUrl); // has no cookie of the browser that started the flow
    expect(await finish(stranger, other)).toEqual(refused('invalid_state'));
    expect(await signedInAs(stranger)).toBeNull();

    const elsewhere = await callbackUrl(browser, login);
    elsewhere.pathname = '/api/auth/oidc/google/callback';
    expect(await finish(browser, elsewhere)).toEqual(refused('invalid_state'));
    expect(await signedInAs(browser)).toBeNull();
  });

  it('refuses a replayed state (the whole callback URL again)', async () => {
    const { browser, url } = await signedInOnce();
    const again = new HttpSession(appUrl);
    again.cookies.set(OIDC_BROWSER_COOKIE, browser.cookie(OIDC_BROWSER_COOKIE)!);
    expect(await finish(again, url)).toEqual(refused('invalid_state'));
    expect(await signedInAs(again)).toBeNull();
  });

  it('refuses a replayed code (an used code in a fresh flow)', async () => {
    const { login, url: first } = await signedInOnce();
    const attacker = new HttpSession(appUrl);
    const second = await callbackUrl(attacker, login);
    second.searchParams.set('code', first.searchParams.get('code')!);
    expect(await finish(attacker, second)).toEqual(refused('code_refused'));
    expect(await signedInAs(attacker)).toBeNull();
  });

  describe('refuses an ID token that fails a check', () => {
    const now = () => Math.floor(Date.now() / 1000);
    it.each([
      ['a wrong nonce', () => (idp.tamper = (claims) => ({ ...claims, nonce: 'not-the-flows-nonce' }))],
      ['a wrong audience', () => (idp.tamper = (claims) => ({ ...claims, aud: 'another-client' }))],
      [
        'a wrong issuer',
        () => (idp.tamper = (claims) => ({ ...claims, iss: 'https://issuer.evil.example' })),
      ],
      [
        'an expired token',
        () => (idp.tamper = (claims) => ({ ...claims, iat: now() - 7200, exp: now() - 3600 })),
      ],
      [
        'a signature by another key',
        async () => {
          idp.tamper = (claims) => claims;
          idp.signWith = (await generateKeyPair('RS256')).privateKey;
        },
      ],
    ])('%s', async (_fault, arrange) => {
      const browser = new HttpSession(appUrl);
      const { login } = account();
      const url = await callbackUrl(browser, login);
      await arrange();
      expect(await finish(browser, url)).toEqual(refused('invalid_token'));
      expect(await signedInAs(browser)).toBeNull();
    });
  });

  it('refuses an email address the provider has not verified, and creates no account', async () => {
    const browser = new HttpSession(appUrl);
    const { login, email } = account({ email_verified: false });
    expect(await finish(browser, await callbackUrl(browser, login))).toEqual(refused('email_not_verified'));
    // the address is still free: registering it works
    expect((await registerUser(appUrl, { email })).email).toBe(email);
  });

  it('refuses an ID token without an email address', async () => {
    const browser = new HttpSession(appUrl);
    const { login } = account({ email: '' });
    expect(await finish(browser, await callbackUrl(browser, login))).toEqual(refused('email_missing'));
  });

  it('refuses an unknown provider id, at the start and at the callback', async () => {
    const browser = new HttpSession(appUrl);
    const start = await browser.get('/api/auth/oidc/nobody/start');
    expect([start.status, start.headers.get('location')]).toEqual([302, '/login?error=unknown_provider']);
    const { login } = account();
    const url = await callbackUrl(browser, login);
    expect(await finish(browser, new URL(pathOf(url).replace('/test-idp/', '/nobody/'), appUrl))).toEqual(
      refused('unknown_provider'),
    );
  });

  it('refuses a suspended account', async () => {
    const browser = new HttpSession(appUrl);
    const { login } = account();
    expect((await finish(browser, await callbackUrl(browser, login))).location).toBe('/dashboard');
    const id = (await browser.get('/api/users/getUser')).body._id as string;
    const admin = await adminBrowser(appUrl);
    expect((await admin.post('/api/users/upgradeUser', { role: 'suspended', id })).status).toBe(200);
    const later = new HttpSession(appUrl);
    expect(await finish(later, await callbackUrl(later, login))).toEqual(refused('account_suspended'));
    expect(await signedInAs(later)).toBeNull();
  });

  it("never hands a never-verified local account to its registrant: linking ends the registrant's sessions", async () => {
    const email = freshEmail('squatter');
    const registrant = await registerUser(appUrl, { email });
    expect(await signedInAs(registrant.browser)).toBe(email);

    const owner = new HttpSession(appUrl);
    const { login } = account({ email });
    expect((await finish(owner, await callbackUrl(owner, login))).location).toBe('/dashboard');
    expect((await owner.get('/api/users/getUser')).body).toMatchObject({
      _id: registrant.id,
      isVerified: true,
    });
    // the registrant's cookie and password open nothing any more
    expect(await signedInAs(registrant.browser)).toBeNull();
    const retry = await new HttpSession(appUrl).post('/api/users/login', {
      email,
      password: registrant.password,
    });
    expect(retry.status).toBe(400);
  });

  it('refuses the flow when the person cancels at the provider', async () => {
    const browser = new HttpSession(appUrl);
    const start = await browser.get(START);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const url = new URL(`${appUrl}/api/auth/oidc/test-idp/callback`);
    url.search = new URLSearchParams({ error: 'access_denied', state, iss: idp.issuer }).toString();
    expect(await finish(browser, url)).toEqual(refused('provider_refused'));
  });
});
