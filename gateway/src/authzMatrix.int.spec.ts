/**
 * Proof over every route: the authorization matrix. Every route the gateway registers (the
 * Express router walked, testing/routeTable.ts) × {anonymous, subscriber, author, suspended, admin, admin
 * impersonating a subscriber} → the answer its row in testing/routeMatrix.ts expects, against the
 * standalone composition. A route without a row fails here, so a new route forces one.
 * MATRIX_PRINT=1 prints every answer.
 */
import { testEnv } from '../../tests/helpers/testEnv.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';
import { NOT_ADMIN } from './http/refusals.js';
import { registerUser, type TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { adminBrowser } from './testing/money.js';
import {
  CALLERS,
  ROUTE_MATRIX,
  expectedAnswer,
  type Caller,
  type Expected,
  type RouteRow,
} from './testing/routeMatrix.js';
import {
  callerFactory,
  contextFor,
  sendRoute,
  startRouteComposition,
  type SignedInCaller,
} from './testing/routeCallers.js';
import { apiRoutes, registeredRoutes, routeTableApp, SPA_FALLBACK_PATH } from './testing/routeTable.js';

const ROUTES = apiRoutes();

let t: TestComposition;
let admin: HttpSession;
let target: { id: string; email: string };
const callers = new Map<Caller, SignedInCaller>();
let fresh: ReturnType<typeof callerFactory>;

beforeAll(async () => {
  t = await startRouteComposition();
  admin = await adminBrowser(t.url);
  fresh = callerFactory(t.url, admin);
  const tgt = await registerUser(t.url, { name: 'Matrix Target' });
  target = { id: tgt.id, email: tgt.email };
  for (const caller of CALLERS) callers.set(caller, await fresh(caller));
});

afterAll(async () => {
  await t?.stop();
});

/** The message a refusal carries: the route's, not one that happens to share its status. */
function refusalMessage(row: RouteRow, caller: Caller, status: 401 | 403): string | RegExp {
  const { access } = row;
  if (status === 401) return /.+/; // not signed in, or the session refused (suspended)
  if (caller === 'impersonating' && access === 'userSelf') return row.impersonatingRefusal ?? /.+/;
  if (caller === 'impersonating' && (access === 'userMoney' || access === 'adminMoney'))
    return MAKER_CHECKER_MESSAGES.impersonating;
  return NOT_ADMIN;
}

function verdict(expected: Expected, status: number): boolean {
  if (status >= 500) return false;
  if (expected === 'open') return true;
  if (expected === 'allowed') return status !== 401 && status !== 403;
  return status === expected;
}

describe('the authorization matrix', () => {
  it('has exactly one row per registered route, and no row for a route that is gone', () => {
    // a route only the user in person may call says why to an impersonating admin
    const silent = Object.entries(ROUTE_MATRIX).filter(
      ([, row]) => row.access === 'userSelf' && !row.impersonatingRefusal,
    );
    expect(
      silent.map(([key]) => key),
      'userSelf rows without impersonatingRefusal',
    ).toEqual([]);
    const keys = ROUTES.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    const missing = keys.filter((k) => !(k in ROUTE_MATRIX));
    expect(missing, 'routes without a row in testing/routeMatrix.ts').toEqual([]);
    const stale = Object.keys(ROUTE_MATRIX).filter((k) => !keys.includes(k));
    expect(stale, 'rows for routes the gateway no longer registers').toEqual([]);
    // production registers a subset (no dev mailbox): every one of them has a row too
    const production = registeredRoutes(routeTableApp('production')).filter(
      (r) => r.path !== SPA_FALLBACK_PATH,
    );
    expect(production.filter((r) => !(r.key in ROUTE_MATRIX)).map((r) => r.key)).toEqual([]);
  });

  it.each(ROUTES.map((r) => [r.key, r] as const))('%s', async (_key, route) => {
    const row = ROUTE_MATRIX[route.key];
    expect(row, `a row for ${route.key}`).toBeDefined();
    const outcomes: string[] = [];
    const wrong: string[] = [];
    const statuses = new Set<number>();
    for (const caller of CALLERS) {
      const who = row.consumesSession ? await fresh(caller) : callers.get(caller)!;
      const request = row.request?.(contextFor(who.self, target)) ?? {};
      const res = await sendRoute(who.browser, route, request);
      const expected = expectedAnswer(row.access, caller);
      const line = `${caller}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)} (expected ${expected})`;
      outcomes.push(line);
      statuses.add(res.status);
      if (!verdict(expected, res.status)) wrong.push(line);
      else if (expected === 401 || expected === 403) {
        const message = refusalMessage(row, caller, expected);
        const actual = String((res.body as { message?: unknown })?.message);
        if (typeof message === 'string' ? actual !== message : !message.test(actual))
          wrong.push(`${line}: message ${JSON.stringify(actual)}, expected ${String(message)}`);
      }
    }
    if (testEnv().MATRIX_PRINT) console.log(`${route.key} (${row.access})\n${outcomes.join('\n')}`);
    if (row.access === 'public' && statuses.size > 1) wrong.push('a public route answered callers apart');
    expect(wrong, `${route.key} (${row.access})\n${outcomes.join('\n')}`).toEqual([]);
  });

  it('the callers are who they claim to be', async () => {
    const roleOf = async (caller: Caller) =>
      (await callers.get(caller)!.browser.get('/api/users/getUser')).body;
    expect((await roleOf('subscriber')).role).toBe('subscriber');
    expect((await roleOf('author')).role).toBe('author');
    expect((await roleOf('admin')).role).toBe('admin');
    expect(await roleOf('impersonating')).toMatchObject({
      _id: callers.get('impersonating')!.self!.id,
      isImpersonated: true,
      role: 'subscriber',
    });
    expect((await callers.get('suspended')!.browser.get('/api/users/getUser')).status).toBe(401);
  });
});
