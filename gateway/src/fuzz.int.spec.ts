/**
 * Proof over every route: fuzzing. Every route of the gateway's route table, as a signed-in
 * subscriber and as an admin, gets requests built from its valid-shaped request (testing/routeMatrix.ts)
 * with fast-check: wrong types, huge and deeply nested bodies, unicode, operator objects ({"$gt": ""}),
 * `__proto__`/`constructor` keys, malformed JSON and content types, bad path params, query strings,
 * headers and session cookies. Nothing may answer 5xx, the process keeps serving, and a refused
 * request (4xx) changes no state: the users as an admin reads them and the ledger's books are the same
 * before and after.
 *
 * Bounded for `make test` (FUZZ_RUNS runs per route and caller, default 3); `make fuzz` raises it.
 * FUZZ_TRACE=1 prints every request and answer. A failure prints the seed: replay with `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npx vitest run gateway/src/fuzz.int.spec.ts`.
 */
import { testEnv } from '../../tests/helpers/testEnv.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from './http/cookies.js';
import type { TestComposition } from './testing/composition.js';
import type { HttpResult, HttpSession } from './testing/httpSession.js';
import { onOneConnection, type RawAnswer } from './testing/keepAlive.js';
import { adminBrowser } from './testing/money.js';
import { ROUTE_MATRIX, type Caller, type RouteRequest } from './testing/routeMatrix.js';
import {
  callerFactory,
  contextFor,
  promotedAdmin,
  sendRoute,
  startRouteComposition,
  type SignedInCaller,
} from './testing/routeCallers.js';
import { apiRoutes, paramsOf, type RegisteredRoute } from './testing/routeTable.js';

const RUNS = testEnv().FUZZ_RUNS;
const SEED = testEnv().FUZZ_SEED ?? Date.now() % 2 ** 31;
const ROUTES = apiRoutes();
/** Who sends the fuzzed requests (the first admin only audits). */
const FUZZ_CALLERS: readonly Caller[] = ['subscriber', 'admin'];

let t: TestComposition;
let auditor: HttpSession;
let target: { id: string; email: string };
let fresh: ReturnType<typeof callerFactory>;
const callers = new Map<Caller, SignedInCaller>();

beforeAll(async () => {
  t = await startRouteComposition();
  auditor = await adminBrowser(t.url);
  fresh = callerFactory(t.url, auditor);
  const tgt = await fresh('subscriber');
  target = tgt.self!;
  callers.set('subscriber', await fresh('subscriber'));
  // a second admin fuzzes: whatever it does, the auditor's own session and role stay as they are
  callers.set('admin', await adminSession());
}, 120_000);

afterAll(async () => {
  await t?.stop();
});

/** A signed-in admin other than the auditor (fresh for the routes that end or replace a session). */
async function adminSession(): Promise<SignedInCaller> {
  const a = await promotedAdmin(t.url, auditor);
  return { caller: 'admin', browser: a.browser, self: { id: a.id, email: a.email } };
}

// ---------------------------------------------------------------- state checksum
const DERIVED = new Set(['balance', 'investmentBalance', 'totalMaturityAmount', 'kycStatus', 'kyc']);

/**
 * What a refused request must not change: every user as the admin list shows them (their balances and
 * KYC status arrive later through events, so the ledger's own books stand for them), and the ledger's
 * event log position and balances.
 */
async function checksum(): Promise<string> {
  const started = Date.now();
  await t.app.money.flushOutboxes();
  if (testEnv().FUZZ_TRACE) console.log(`checksum flush ${Date.now() - started} ms`);
  const users = await auditor.get('/api/users/getUsers');
  expect(users.status, 'the auditor reads the users').toBe(200);
  const people = (users.body as Array<Record<string, unknown>>)
    .map((u) => Object.fromEntries(Object.entries(u).filter(([k]) => !DERIVED.has(k))))
    .sort((a, b) => String(a._id).localeCompare(String(b._id)));
  const store = t.app.money.ledgerStore;
  const balances = (await store.find<Record<string, unknown>>('balances')).sort((a, b) =>
    JSON.stringify(a).localeCompare(JSON.stringify(b)),
  );
  return JSON.stringify({ people, ledger: { position: await store.lastPosition(), balances } });
}

// ---------------------------------------------------------------- arbitraries
const OPERATORS = [
  { $gt: '' },
  { $ne: null },
  { $where: 'sleep(1000)' },
  { $regex: '.*' },
  { $in: ['admin'] },
  { $exists: true },
];
const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e308',
  'NaN',
  'Infinity',
  '0x10',
  '..',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\u202e\u0041',
  '𝕸𝖊𝖗𝖎𝖉𝖎𝖆𝖓',
  '"><script>alert(1)</script>',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  'prototype',
  '$gt',
  'null',
  'undefined',
  '[object Object]',
);
const text = fc.oneof(
  nasty,
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 200, maxLength: 5_000 }),
);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e21, 0.1, -100),
  fc.boolean(),
  fc.constant(null),
);
/** A JSON value: scalars, arrays, objects, operator objects. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constantFrom(...OPERATORS),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, nasty), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A JSON text with an own `__proto__` / `constructor` key (JSON.stringify never writes one). */
const pollutedJson = (base: unknown) =>
  fc
    .tuple(
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.constantFrom(
        '{"role":"admin","isAdmin":true,"polluted":1}',
        '{"prototype":{"role":"admin"}}',
        '"admin"',
        'null',
        '[1,2]',
      ),
    )
    .map(([key, value]) => {
      const body = JSON.stringify(base && typeof base === 'object' && !Array.isArray(base) ? base : {});
      return body === '{}' ? `{"${key}":${value}}` : `{"${key}":${value},${body.slice(1)}`;
    });

const deepNesting = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([n, open]) => open.repeat(n) + '1' + (open === '[' ? ']' : '}').repeat(n));

const hugeBody = fc
  .integer({ min: 90_000, max: 300_000 })
  .map((n) => JSON.stringify({ amount: '1', name: 'x'.repeat(n) }));

/** The valid body with one field replaced, or one field added, by any JSON value. */
const mutatedBody = (base: unknown) => {
  const fields = base && typeof base === 'object' ? Object.keys(base) : [];
  const key = fields.length
    ? fc.oneof(fc.constantFrom(...fields), text)
    : text.filter((k) => k !== '__proto__');
  return fc.tuple(key, jsonValue).map(([k, v]) => {
    const out: Record<string, unknown> = { ...(base as object) };
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return JSON.stringify(out);
  });
};

type BodyShape = { kind: 'valid' } | { kind: 'raw'; raw: string; contentType?: string } | { kind: 'none' };

const bodyFor = (base: unknown): fc.Arbitrary<BodyShape> =>
  fc.oneof(
    { arbitrary: fc.constant<BodyShape>({ kind: 'valid' }), weight: 1 },
    { arbitrary: fc.constant<BodyShape>({ kind: 'none' }), weight: 1 },
    { arbitrary: mutatedBody(base).map((raw): BodyShape => ({ kind: 'raw', raw })), weight: 6 },
    {
      arbitrary: jsonValue.map((v): BodyShape => ({ kind: 'raw', raw: JSON.stringify(v) ?? 'null' })),
      weight: 3,
    },
    { arbitrary: pollutedJson(base).map((raw): BodyShape => ({ kind: 'raw', raw })), weight: 2 },
    { arbitrary: deepNesting.map((raw): BodyShape => ({ kind: 'raw', raw })), weight: 1 },
    { arbitrary: hugeBody.map((raw): BodyShape => ({ kind: 'raw', raw })), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          fc.oneof(text, fc.constantFrom('{"email":', '{"a":1}}', '\ufeff{}', 'true', '"x"')),
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-16',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=xyz',
            'application/xml',
            'application/vnd.api+json',
          ),
        )
        .map(([raw, contentType]): BodyShape => ({ kind: 'raw', raw, contentType })),
      weight: 3,
    },
  );

/** ByteString header values (fetch refuses others): printable latin1, sometimes long. */
const headerValue = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 120,
  }),
  fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'a'.repeat(n)),
  fc.constantFrom('', 'null', 'capture:W1', 'deposit:1', '$gt', '__proto__', '../x'),
);
const headersArb = fc.dictionary(
  fc.constantFrom(
    'idempotency-key',
    'authorization',
    'x-forwarded-for',
    'forwarded',
    'x-correlation-id',
    'accept',
    'accept-language',
    'origin',
    'referer',
    'sec-fetch-site',
    'x-xsrf-token',
    'x-user-id',
    'x-user-role',
    'x-internal-token',
    'x-http-method-override',
  ),
  headerValue,
  { maxKeys: 3 },
);

type CookieChange = 'keep' | 'drop' | 'garbage' | 'truncate' | 'append';
const cookieArb = fc.oneof(
  { arbitrary: fc.constant<CookieChange>('keep'), weight: 6 },
  { arbitrary: fc.constantFrom<CookieChange>('drop', 'garbage', 'truncate', 'append'), weight: 1 },
);
const tamper = (change: CookieChange) => (jar: Map<string, string>) => {
  const v = jar.get(SESSION_COOKIE);
  if (change === 'keep' || v === undefined) return;
  if (change === 'drop') jar.delete(SESSION_COOKIE);
  else if (change === 'garbage') jar.set(SESSION_COOKIE, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.');
  else if (change === 'truncate') jar.set(SESSION_COOKIE, v.slice(0, Math.floor(v.length / 2)));
  else jar.set(SESSION_COOKIE, `${v}x`);
};

const queryArb = fc.option(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom('to', 'to[$gt]', '__proto__[x]', 'constructor', 'page', 'limit'), text),
        fc.oneof(text, fc.constant('')),
      ),
      { maxLength: 3 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  { nil: undefined },
);

interface FuzzCase {
  params: Record<string, string>;
  body: BodyShape;
  query: string | undefined;
  headers: Record<string, string>;
  cookie: CookieChange;
}

function caseFor(route: RegisteredRoute, valid: RouteRequest): fc.Arbitrary<FuzzCase> {
  const names = paramsOf(route.path);
  const params = fc
    .tuple(
      ...names.map((n) =>
        fc.oneof(
          fc.constant(valid.params?.[n] ?? 'x'),
          text.filter((s) => s !== ''),
        ),
      ),
    )
    .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]!])));
  const hasBody = route.method !== 'get';
  return fc.record({
    params: names.length ? params : fc.constant({}),
    body: hasBody ? bodyFor(valid.body ?? {}) : fc.constant<BodyShape>({ kind: 'none' }),
    query: queryArb,
    headers: headersArb,
    cookie: cookieArb,
  });
}

async function send(who: SignedInCaller, route: RegisteredRoute, valid: RouteRequest, c: FuzzCase) {
  const request: RouteRequest = {
    ...valid,
    params: { ...valid.params, ...c.params },
    query: [valid.query, c.query].filter(Boolean).join('&') || undefined,
    headers: { ...valid.headers, ...c.headers },
  };
  if (c.body.kind !== 'valid') {
    delete request.body;
    delete request.form;
  }
  return sendRoute(who.browser, route, request, {
    rawBody: c.body.kind === 'raw' ? c.body.raw : undefined,
    headers: {
      ...request.headers,
      ...(c.body.kind === 'raw' && c.body.contentType ? { 'content-type': c.body.contentType } : {}),
    },
    cookies: tamper(c.cookie),
  });
}

/** A request the server never answered (the connection reset): status 0. */
const noAnswer = (err: unknown): HttpResult => ({
  status: 0,
  body: `no answer: ${String((err as Error)?.cause ?? err)}`,
  headers: new Headers(),
  setCookies: [],
});

/** A counterexample for the eye: long strings shortened to their length and first characters. */
const brief = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'string' && v.length > 200 ? `<${v.length} chars: ${v.slice(0, 60)}…>` : v,
  );

const show = (res: HttpResult) =>
  `${res.status} ${(typeof res.body === 'string' ? res.body : JSON.stringify(res.body)).slice(0, 200)}`;

// ---------------------------------------------------------------- findings of the fuzzing, fixed
const UPLOAD_PATH = '/api/users/uploadKycDocuments';

describe('findings of the fuzzing', () => {
  it('POST api/users/uploadKycDocuments refuses a JSON body (400) and one announced over two documents (413) unread, and the connection stays usable', async () => {
    const browser = callers.get('subscriber')!.browser;
    const json = (size: number) => ({
      contentType: 'application/json',
      body: JSON.stringify({ name: 'x'.repeat(size) }),
    });
    const answers: string[] = [];
    for (const size of [300_000, 300_000, 300_000, 1_000_000]) {
      // each on a connection of its own, then a GET on that same connection
      answers.push(await uploadThenGet(browser, json(size)));
    }
    const refused = '400 Please upload both front and back documents. (kept) then 200';
    expect(answers).toEqual([refused, refused, refused, refused]);
    // 30 MB announced, 64 KB sent: answered at once, and that connection ends (Connection: close)
    const tooLarge = await uploadThenGet(browser, {
      contentType: 'multipart/form-data; boundary=xyz',
      body: 'x'.repeat(65_536),
      announced: 30 * 1024 * 1024,
    });
    expect(tooLarge).toBe('413 File size must be less than 10MB. (closed) then 200');
  });
});

/**
 * POSTs a body to the KYC upload, then GETs /healthz on the same keep-alive connection:
 * `<upload status> <message> (kept|closed) then <GET status>`.
 */
async function uploadThenGet(
  browser: HttpSession,
  upload: { contentType: string; body: string; announced?: number },
): Promise<string> {
  const cookie = browser.cookieHeader();
  const { answers, sockets } = await onOneConnection(t.url, [
    {
      method: 'POST',
      path: UPLOAD_PATH,
      headers: {
        cookie,
        'content-type': upload.contentType,
        'x-xsrf-token': decodeURIComponent(browser.cookie('XSRF-TOKEN') ?? ''),
      },
      body: upload.body,
      announced: upload.announced,
    },
    { method: 'GET', path: '/healthz', headers: { cookie } },
  ]);
  const [first, second] = answers as [RawAnswer, RawAnswer];
  return `${first.status} ${first.message} (${sockets === 1 ? 'kept' : 'closed'}) then ${second.status}`;
}

// ---------------------------------------------------------------- the properties
describe(`fuzzing every route (${RUNS} runs per route and caller, seed ${SEED})`, () => {
  it('covers every registered route', () => {
    expect(ROUTES.filter((r) => !(r.key in ROUTE_MATRIX)).map((r) => r.key)).toEqual([]);
  });

  it.each(ROUTES.map((r) => [r.key, r] as const))(
    '%s',
    async (_key, route) => {
      const row = ROUTE_MATRIX[route.key]!;
      for (const caller of FUZZ_CALLERS) {
        const fixed = callers.get(caller)!;
        let baseline = await checksum();
        const property = fc.asyncProperty(
          caseFor(route, row.request?.(contextFor(fixed.self, target)) ?? {}),
          async (c) => {
            let who = fixed;
            if (row.consumesSession) {
              who = caller === 'admin' ? await adminSession() : await fresh(caller);
              baseline = await checksum();
            }
            const valid = row.request?.(contextFor(who.self, target)) ?? {};
            const started = Date.now();
            const res = await send(who, route, valid, c).catch(noAnswer);
            if (testEnv().FUZZ_TRACE)
              console.log(`${Date.now() - started} ms ${caller} ${route.key} ${brief(c)} -> ${show(res)}`);
            const what = `${caller} ${route.key} -> ${show(res)}`;
            expect(res.status, what).toBeGreaterThan(0);
            expect(res.status, what).toBeLessThan(500);
            if (res.status >= 400)
              expect(await checksum(), `${what}: a refused request changed state`).toBe(baseline);
            else baseline = await checksum();
          },
        );
        const out = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
        if (out.failed)
          throw new Error(
            `fuzz failure on ${caller} ${route.key}: seed ${out.seed}, path ${out.counterexamplePath}\n` +
              `replay: FUZZ_SEED=${out.seed} FUZZ_RUNS=${RUNS} npx vitest run gateway/src/fuzz.int.spec.ts\n` +
              `counterexample: ${brief(out.counterexample)}\n` +
              String((out.errorInstance as Error)?.message ?? out.errorInstance),
          );
      }
      // the process still serves
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    },
    30_000 + RUNS * 4_000,
  );
});
