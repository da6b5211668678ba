/**
 * The OpenAPI 3.1 document: every route the gateway registers (the Express router walked) is in it and
 * nothing else, and the documented answers (status, fields, messages) are what the routes send, against the
 * money composition started in-process (money services with PLANS_JSON).
 */
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, openApiPath } from './http/openapi.js';
import { ADMIN_EMAIL, freshEmail, type TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { verifiedUser, waitFor } from './testing/money.js';
import { registeredRoutes, routeTableApp, SPA_FALLBACK_PATH } from './testing/routeTable.js';
import { DOC_ID, apiContractSpec, pointer } from './testing/apiDocument.js';

let t: TestComposition;
let admin: HttpSession;
let doc: any;
const { documentAjv, call, anonymous } = apiContractSpec((s) => void ({ t, admin, doc } = s));

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
