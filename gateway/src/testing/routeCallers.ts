/**
 * The callers of the authorization matrix and the fuzzing suite, each a signed-in browser of the test
 * composition, and the one way both send a route's request (in a copy of the caller's browser, so a
 * cookie the answer sets never changes the caller).
 */
import { createServer } from 'node:http';
import { listenOn } from '@meridian/platform/util/freePort';
import {
  ADMIN_EMAIL,
  adminBrowser,
  signIn,
  userWithRole,
  verifiedUser,
  type Account,
  type TestComposition,
} from './composition.js';
import { startMoneyComposition } from './money.js';
import { HttpSession, type HttpResult } from './httpSession.js';
import type { Caller, RouteContext, RouteRequest } from './routeMatrix.js';
import { fillPath, type RegisteredRoute } from './routeTable.js';

export interface SignedInCaller {
  caller: Caller;
  browser: HttpSession;
  /** Whom the session reads as (the impersonated user while impersonating). */
  self: { id: string; email: string } | null;
}

/**
 * The money composition with Google sign-in switched on against a local issuer whose key set is empty
 * (every credential is refused by identity, no request leaves the machine): google/callback answers
 * by its own rules, as in a deployment that offers Google sign-in.
 */
export async function startRouteComposition(): Promise<TestComposition> {
  const jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
  });
  const port = await listenOn(jwks, 0, '127.0.0.1');
  const jwksUrl = `http://127.0.0.1:${port}/jwks`;
  try {
    const t = await startMoneyComposition({
      GOOGLE_CLIENT_ID: 'routes.apps.googleusercontent.com',
      OIDC_ISSUER: 'https://accounts.google.com',
      OIDC_JWKS_URL: jwksUrl,
    });
    return {
      ...t,
      async stop() {
        await t.stop();
        await new Promise<void>((resolve) => jwks.close(() => resolve()));
      },
    };
  } catch (err) {
    jwks.close();
    throw err;
  }
}

const ok = (what: string, res: HttpResult) => {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
};

/** A second admin, signed in again after the promotion (the first admin promoted them). */
export async function promotedAdmin(url: string, admin: HttpSession): Promise<Account> {
  const account = await userWithRole(url, admin, 'admin');
  await signIn(account.browser, account.email, account.password);
  return account;
}

/** Builds a fresh session of any caller; `admin` is the first admin's browser (never handed out). */
export function callerFactory(url: string, admin: HttpSession) {
  const account = (a: Account) => ({ id: a.id, email: a.email });
  return async function fresh(caller: Caller): Promise<SignedInCaller> {
    switch (caller) {
      case 'anonymous':
        return { caller, browser: new HttpSession(url), self: null };
      case 'subscriber':
      case 'author':
      case 'suspended': {
        // verified, so the money routes answer by their own rules rather than "verify your email first"
        const a = await verifiedUser(url);
        if (caller !== 'subscriber')
          ok('upgradeUser', await admin.post('/api/users/upgradeUser', { role: caller, id: a.id }));
        return { caller, browser: a.browser, self: account(a) };
      }
      case 'admin': {
        const browser = await adminBrowser(url);
        const me = await browser.get('/api/users/getUser');
        ok('admin getUser', me);
        return { caller, browser, self: { id: me.body._id as string, email: ADMIN_EMAIL } };
      }
      case 'impersonating': {
        const impersonator = await promotedAdmin(url, admin);
        const victim = await verifiedUser(url);
        ok('impersonate', await impersonator.browser.post(`/api/users/impersonate/${victim.id}`));
        return { caller, browser: impersonator.browser, self: account(victim) };
      }
    }
  };
}

/** A copy of a browser: the same cookies, its own jar from now on. */
export function copyOf(browser: HttpSession): HttpSession {
  const copy = new HttpSession(browser.baseUrl);
  for (const [k, v] of browser.cookies) copy.cookies.set(k, v);
  return copy;
}

/** The route's request (path filled, query, body or form, headers) sent from a copy of `browser`. */
export function sendRoute(
  browser: HttpSession,
  route: RegisteredRoute,
  request: RouteRequest,
  options: {
    rawBody?: string;
    headers?: Record<string, string>;
    csrf?: boolean;
    /** Changes the copy's cookies before sending (a tampered session cookie). */
    cookies?: (jar: Map<string, string>) => void;
  } = {},
): Promise<HttpResult> {
  const path = fillPath(route.path, request.params ?? {}) + (request.query ? `?${request.query}` : '');
  const copy = copyOf(browser);
  options.cookies?.(copy.cookies);
  return copy.request(route.method.toUpperCase(), path, {
    body: request.body,
    form: request.form?.(),
    rawBody: options.rawBody,
    headers: { ...request.headers, ...options.headers },
    csrf: options.csrf,
  });
}

export const contextFor = (
  self: SignedInCaller['self'],
  target: { id: string; email: string },
): RouteContext => ({ self, target, adminEmail: ADMIN_EMAIL });
