/**
 * The answers the original client relies on, against the standalone composition
 * started in-process (money services with PLANS_JSON):
 *
 *  - items 1-7: the answers the original client and its server agree on (plans, maturityAmount,
 *    referrals, api/users/sendAutomatedEmail, the reset message, the Origin check, the default avatar);
 *  - the OpenAPI 3.1 document: every route the gateway registers (the Express router walked) is in it
 *    and nothing else, and the documented answers (status, fields, messages) are what the routes send;
 *  - CORS_ORIGINS: preflights, credentials, the allowlist, SameSite=None for a cross-site SPA.
 *
 * A page on another origin driving the gateway in Chromium: tests/e2e/cors.e2e.spec.ts.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_KYC_INTERNAL_TOKEN, type GatewayConfig } from './config.js';
import { buildOpenApiDocument, openApiPath } from './http/openapi.js';
import { startGateway, type RunningGateway } from './server.js';
import {
  ADMIN_EMAIL,
  freshEmail,
  linkWith,
  listMail,
  registerUser,
  waitForMail,
  type TestComposition,
} from './testing/composition.js';
import {
  HttpSession,
  cookieAttributes,
  type HttpResult,
  type RequestOptions,
} from './testing/httpSession.js';
import {
  adminBrowser,
  fundedInvestor,
  startMoneyComposition,
  verifiedUser,
  waitFor,
} from './testing/money.js';
import { registeredRoutes, routeTableApp, SPA_FALLBACK_PATH } from './testing/routeTable.js';

let t: TestComposition;
let admin: HttpSession;
let doc: any;

beforeAll(async () => {
  t = await startMoneyComposition();
  admin = await adminBrowser(t.url);
  doc = await (await fetch(`${t.url}/api/openapi.json`)).json();
});

afterAll(async () => {
  await t?.stop();
});

const anonymous = () => new HttpSession(t.url);
const put = (b: HttpSession, path: string, body?: unknown) => b.request('PUT', path, { body });

// ---------------------------------------------------------------- the document as a validator
const DOC_ID = 'https://meridian.invalid/openapi.json';
let ajv: Ajv2020;
const pointer = (...parts: string[]) =>
  '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Ajv holding the served document, so `#/components/...` references resolve inside it. */
function documentAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...doc, $id: DOC_ID });
  }
  return ajv;
}

function validatorOf(path: string, method: string, status: number) {
  const ref = `${DOC_ID}${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
  const validate = documentAjv().getSchema(ref);
  if (!validate) throw new Error(`no schema at ${ref}`);
  return validate;
}

/** A documented message as a pattern: `<name>` stands for a part that varies. */
const documentedMessage = (m: string) =>
  new RegExp(
    `^${m
      .split(/<[a-z]+>/i)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );

/** The answer is documented for this operation: its status, its JSON fields, and (errors) its message. */
function expectDocumented(method: string, template: string, res: HttpResult): void {
  const path = openApiPath(template);
  const op = doc.paths[path]?.[method];
  expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  const answer = op.responses[String(res.status)];
  const what = `${method.toUpperCase()} ${path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
  expect(answer, `${what}: status documented`).toBeDefined();
  const json = answer.content?.['application/json'];
  if (json) {
    expect(res.headers.get('content-type'), what).toContain('application/json');
    const validate = validatorOf(path, method, res.status);
    const ok = validate(res.body);
    expect(ok, `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    const messages = Object.values(json.examples ?? {}).map((e: any) => e.value.message);
    if (res.status >= 400 && messages.length > 0)
      expect(
        messages.some((m) => documentedMessage(m).test(res.body.message)),
        `${what}: message documented among ${JSON.stringify(messages)}`,
      ).toBe(true);
  } else {
    const media = Object.keys(answer.content ?? {})[0];
    if (media && media !== 'application/octet-stream')
      expect(res.headers.get('content-type'), what).toContain(media);
  }
}

/** A request through a browser, checked against the document. */
async function call(
  browser: HttpSession,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  template: string,
  options: RequestOptions & { path?: string } = {},
): Promise<HttpResult> {
  const res = await browser.request(method.toUpperCase(), options.path ?? template, options);
  expectDocumented(method, template, res);
  return res;
}

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
    const approved = await put(admin, `/api/invest/${id}/approve`);
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

// ---------------------------------------------------------------- the OpenAPI document
type Route = `${string} ${string}`;

/** Every (method, path) the app registers (testing/routeTable.ts), paths as OpenAPI writes them. */
const registeredOpenApiRoutes = (app: Express): Route[] =>
  registeredRoutes(app).map((r): Route => `${r.method} ${openApiPath(r.path)}`);

const documentedRoutes = (d: any): Route[] =>
  Object.entries(d.paths).flatMap(([path, ops]) =>
    Object.keys(ops as object).map((m): Route => `${m} ${path}`),
  );

/** The SPA's client-side-routing fallback (spa.ts): every other GET, never part of the API. */
const SPA_FALLBACK: Route = `get ${openApiPath(SPA_FALLBACK_PATH)}`;

describe('the OpenAPI 3.1 document', () => {
  it.each([
    ['development', 'test', true],
    ['production', 'production', true],
    ['without the money services', 'test', false],
  ] as const)('names exactly the routes the gateway registers (%s)', (_label, nodeEnv, money) => {
    const registered = registeredOpenApiRoutes(routeTableApp(nodeEnv, money));
    expect(registered).toContain(SPA_FALLBACK);
    const api = registered.filter((r) => r !== SPA_FALLBACK);
    expect(new Set(api).size).toBe(api.length);
    const documented = documentedRoutes(
      buildOpenApiDocument({ production: nodeEnv === 'production', money }),
    );
    expect([...documented].sort()).toEqual([...api].sort());
    expect(documented.includes('get /api/dev/mailbox')).toBe(nodeEnv !== 'production');
    expect(documented.includes('get /api/invest/plans')).toBe(money);
  });

  it('is served at /api/openapi.json as OpenAPI 3.1 for the running gateway, every schema valid JSON Schema 2020-12', async () => {
    const res = await fetch(`${t.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).toEqual(buildOpenApiDocument({ production: false, money: true }));
    expect(doc.paths['/api/users/register'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RegisterBody',
    });
    // generated from the request schemas: constraints of validation.ts appear as they are
    expect(doc.components.schemas.RegisterBody).toMatchObject({
      required: ['name', 'email', 'password', 'phone', 'country'],
      properties: { password: { type: 'string', minLength: 6 }, referralCode: { type: 'string' } },
    });
    for (const name of Object.keys(doc.components.schemas))
      expect(
        documentAjv().getSchema(`${DOC_ID}${pointer('components', 'schemas', name)}`),
        name,
      ).toBeDefined();
    // every reference resolves
    for (const ref of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(doc.components.schemas, ref[1]).toHaveProperty(ref[1]!);
  });

  it('documents what the routes send: statuses, fields and messages, through the real app', async () => {
    const b = anonymous();
    // anonymous
    expect((await call(b, 'get', '/api/users/loginStatus')).body).toBe(false);
    expect((await call(b, 'get', '/api/users/getUser')).status).toBe(401);
    expect((await call(b, 'post', '/api/users/register', { body: { email: freshEmail() } })).status).toBe(
      400,
    );
    expect(
      (await call(b, 'post', '/api/users/login', { body: { email: 'a@example.com', password: 7 } })).body,
    ).toEqual({ message: 'password must be a string' });
    expect((await call(b, 'post', '/api/users/login', { rawBody: '{"email":' })).status).toBe(400);
    expect((await call(b, 'post', '/api/users/forgotPassword', { body: {}, csrf: false })).status).toBe(403);
    expect(
      (await call(b, 'post', '/api/users/sendLoginCode/:email', { path: '/api/users/sendLoginCode/nope' }))
        .status,
    ).toBe(400);
    expect((await call(b, 'post', '/api/users/google/callback', { body: {} })).status).toBe(400);
    expect((await call(b, 'get', '/api/countries')).status).toBe(200);
    expect((await call(b, 'get', '/api/users/logout')).status).toBe(200);
    expect(
      (
        await call(b, 'get', '/api/dev/mailbox', {
          path: `/api/dev/mailbox?to=${encodeURIComponent(ADMIN_EMAIL)}`,
        })
      ).status,
    ).toBe(200);
    expect((await call(b, 'get', '/api/dev/mailbox', { path: '/api/dev/mailbox?to=bad' })).status).toBe(400);
    for (const path of ['/healthz', '/readyz', '/api/openapi.json', '/api/docs', '/api/avatars/default.svg'])
      expect((await call(b, 'get', path)).status).toBe(200);

    // a registered user
    const email = freshEmail('doc');
    const reg = await call(b, 'post', '/api/users/register', {
      body: { name: 'Doc User', email, password: 'Passw0rd!', phone: '+15550100', country: 'Germany' },
    });
    expect(reg.status).toBe(201);
    expect(
      (await call(b, 'post', '/api/users/register', { body: { ...reg.body, email, password: 'Passw0rd!' } }))
        .status,
    ).toBe(409);
    expect((await call(b, 'get', '/api/users/getUser')).status).toBe(200);
    expect((await call(b, 'patch', '/api/users/updateUser', { body: { bio: 'Documented' } })).status).toBe(
      200,
    );
    expect((await call(b, 'patch', '/api/users/updateUser', { body: { bio: ['x'] } })).status).toBe(400);
    expect((await call(b, 'post', '/api/users/sendVerificationEmail')).status).toBe(200);
    expect(
      (
        await call(b, 'patch', '/api/users/changePassword', {
          body: { oldPassword: 'wrong-one', password: 'Passw0rd!2' },
        })
      ).status,
    ).toBe(400);
    expect((await call(b, 'get', '/api/users/getUsers')).status).toBe(403);
    expect((await call(b, 'post', '/api/users/exit-impersonation')).status).toBe(400);
    expect(
      (
        await call(b, 'patch', '/api/users/verifyUser/:verificationToken', {
          path: '/api/users/verifyUser/not-a-token',
        })
      ).status,
    ).toBe(400);
    expect((await call(b, 'get', '/api/users/kyc/pending')).status).toBe(403);
    expect((await call(b, 'post', '/api/payments/create', { body: { amount: 50 } })).status).toBe(400); // not verified
    expect((await call(b, 'post', '/api/payments/create', { body: { amount: { $gt: 0 } } })).body).toEqual({
      message: 'amount must be a number',
    });
    expect((await call(b, 'post', '/api/invest/start-invest', { body: { amount: '100' } })).status).toBe(400);
    expect((await call(b, 'post', '/api/withDraw/create', { body: { amount: '60' } })).status).toBe(400);
    expect((await call(b, 'get', '/api/withDraw/balance')).status).toBe(200);
    expect((await call(b, 'get', '/api/invest/investment-history')).status).toBe(200);
    expect((await call(b, 'get', '/api/invest/deposit-maturity')).status).toBe(200);
    expect((await call(b, 'get', '/api/invest/getTransactionHistory')).status).toBe(200);
    expect(
      (await call(b, 'get', '/api/invest/investment/:id', { path: '/api/invest/investment/nope' })).status,
    ).toBe(404);
    expect(
      (
        await call(b, 'get', '/api/withDraw/get-withdrawal/:id', {
          path: '/api/withDraw/get-withdrawal/nope',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(b, 'get', '/api/payments/viewPaymentStatus/:transactionId', {
          path: '/api/payments/viewPaymentStatus/nope',
        })
      ).status,
    ).toBe(404);

    // money through a verified investor and the admin
    const investor = await verifiedUser(t.url);
    const deposit = await call(investor.browser, 'post', '/api/payments/create', {
      body: { amount: '300' },
      headers: { 'idempotency-key': `doc-${Date.now()}` },
    });
    expect(deposit.status).toBe(201);
    const txId = deposit.body.transactionId as string;
    expect(
      (
        await call(investor.browser, 'get', '/api/payments/viewPaymentStatus/:transactionId', {
          path: `/api/payments/viewPaymentStatus/${txId}`,
        })
      ).status,
    ).toBe(200);
    expect((await call(admin, 'get', '/api/payments/pending-deposit')).status).toBe(200);
    expect(
      (
        await call(admin, 'patch', '/api/payments/rejectPayment', {
          body: { transactionId: txId, status: 'Confirmed' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await call(admin, 'patch', '/api/payments/confirmPayment', { body: { transactionId: txId } })).status,
    ).toBe(200);
    expect(
      (await call(admin, 'patch', '/api/payments/rejectPayment', { body: { transactionId: txId } })).status,
    ).toBe(409);
    await waitFor(
      async () => (await investor.browser.get('/api/users/getUser')).body.balance === 300,
      'balance 300',
    );
    const inv = await call(investor.browser, 'post', '/api/invest/start-invest', {
      body: { amount: 100, planName: 'Bronze' },
    });
    expect(inv.status).toBe(400); // under Bronze's minimum
    const ok = await call(investor.browser, 'post', '/api/invest/start-invest', {
      body: { amount: 150, planName: 'Starter' },
    });
    expect(ok.status).toBe(201);
    const invId = ok.body.investment._id as string;
    expect((await call(admin, 'get', '/api/invest/adminPendingInvestment')).status).toBe(200);
    expect(
      (await call(admin, 'put', '/api/invest/:id/reject', { path: `/api/invest/${invId}/reject` })).status,
    ).toBe(200);
    expect(
      (await call(admin, 'put', '/api/invest/:id/approve', { path: `/api/invest/${invId}/approve` })).status,
    ).toBe(409);
    expect(
      (
        await call(investor.browser, 'post', '/api/withDraw/create', {
          body: { amount: '60', walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
        })
      ).status,
    ).toBe(400); // no KYC
    expect(
      (await call(investor.browser, 'get', '/api/invest/getTransactionHistory')).body.history.length,
    ).toBeGreaterThanOrEqual(2);

    // admin
    expect((await call(admin, 'get', '/api/users/getUsers')).status).toBe(200);
    expect((await call(admin, 'get', '/api/users/kyc/pending')).status).toBe(200);
    expect((await call(admin, 'get', '/api/withDraw/pending')).status).toBe(200);
    expect(
      (await call(admin, 'post', '/api/users/upgradeUser', { body: { role: 'root', id: investor.id } }))
        .status,
    ).toBe(400);
    expect(
      (
        await call(admin, 'put', '/api/users/editDepositBalance/:id', {
          path: `/api/users/editDepositBalance/${investor.id}`,
          body: { operation: 'double', amount: 1 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(admin, 'put', '/api/users/updateDepositBalance/:id', {
          path: `/api/users/updateDepositBalance/${investor.id}`,
          body: { amount: '5' },
        })
      ).status,
    ).toBe(200);
    expect((await call(admin, 'delete', '/api/users/:id', { path: '/api/users/no-such-user' })).status).toBe(
      404,
    );
    expect(
      (
        await call(admin, 'patch', '/api/users/kyc/approve/:id', {
          path: `/api/users/kyc/approve/${investor.id}`,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(admin, 'patch', '/api/users/kyc/reject/:id', {
          path: `/api/users/kyc/reject/${investor.id}`,
          body: { reason: 7 },
        })
      ).status,
    ).toBe(400);
    const imp = await call(admin, 'post', '/api/users/impersonate/:id', {
      path: `/api/users/impersonate/${investor.id}`,
    });
    expect(imp.status).toBe(200);
    expect((await call(admin, 'post', '/api/users/exit-impersonation')).status).toBe(200);
    expect(
      (
        await call(admin, 'post', '/api/users/impersonate/:id', {
          path: `/api/users/impersonate/${(await admin.get('/api/users/getUser')).body._id}`,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call(admin, 'post', '/api/sendAutomatedEmail', {
          body: { subject: 's', send_to: ADMIN_EMAIL, reply_to: ADMIN_EMAIL, template: 'verifyEmail' },
        })
      ).status,
    ).toBe(400);
  });

  it('/api/docs is a readable page of the whole document that needs nothing from elsewhere', async () => {
    const res = await fetch(`${t.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    for (const path of Object.keys(doc.paths)) expect(html).toContain(path.replace(/&/g, '&amp;'));
    for (const name of Object.keys(doc.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
    expect(html).toContain('Password must be up to 6 characters');
    expect(html).not.toMatch(/<script|<link[^>]+stylesheet|(src|href)="(https?:)?\/\//i);
  });
});

// ---------------------------------------------------------------- CORS_ORIGINS
describe('CORS_ORIGINS', () => {
  const SPA = 'http://127.0.0.1:5999';
  let cors: RunningGateway;
  let secure: RunningGateway;
  const configFor = (over: Partial<GatewayConfig>): GatewayConfig => ({
    nodeEnv: 'test',
    port: 0,
    identityGrpcUrl: t.app.identityAddress,
    notificationGrpcUrl: t.app.notificationAddress,
    webDist: '/nonexistent-web-dist',
    appUrl: 'http://localhost:8080',
    cookieSecure: false,
    trustProxy: 'loopback',
    kycGrpcUrl: t.app.kycAddress,
    kycHttpUrl: t.app.kycHttpUrl,
    kycInternalToken: DEV_KYC_INTERNAL_TOKEN,
    ledgerGrpcUrl: t.app.money.ledger.grpcAddress,
    investmentGrpcUrl: t.app.money.investment.grpcAddress,
    withdrawalGrpcUrl: t.app.money.withdrawal.grpcAddress,
    dataDir: ':memory:',
    ...over,
  });
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
