/**
 * Who may call each route of the gateway, and a valid-shaped request for it. One row per `<method> <Express
 * path>` the app registers (routeTable.ts here walks the Express router): the authorization matrix
 * (authzMatrix.int.spec.ts) fails for a route without a row, and the fuzzing suite (fuzz.int.spec.ts)
 * mutates these requests. Who may call a route comes from its declaration in the gateway's route table
 * (http/routeTable.ts, http/routes.ts); the sample requests are written here, by route key.
 */
import { randomUUID } from 'node:crypto';
import { freshEmail } from './composition.js';
import { testPng } from '@meridian/platform/testing/testImage';
import { routeKey, type Access } from '../http/routeTable.js';
import { TABLE_ROUTES } from '../http/routes.js';

export type { Access };

/** What a request needs to know about who sends it and whom it acts on. */
export interface RouteContext {
  /** The signed-in user the request reads as (the impersonated user while impersonating), else null. */
  self: { id: string; email: string } | null;
  /** A plain subscriber, never a caller of the matrix: the one admin commands act on. */
  target: { id: string; email: string };
  adminEmail: string;
}

export interface RouteRequest {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  /** A multipart body instead of JSON. */
  form?: () => FormData;
  headers?: Record<string, string>;
}

export interface RouteRow {
  access: Access;
  /** A valid-shaped request: an allowed caller's answer reflects the route's rules, not validation. */
  request?: (ctx: RouteContext) => RouteRequest;
  /** The request ends or replaces the caller's session (logout, impersonation): run it in a fresh one. */
  consumesSession?: true;
  /** userSelf: the message of the 403 an impersonating admin gets. */
  impersonatingRefusal?: string;
}

/** A real PNG above the kyc service's size floor (the KYC upload's document). */
export const PNG = testPng();
export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const NO_SUCH_ID = 'no-such-id';

const selfId = (ctx: RouteContext) => ctx.self?.id ?? NO_SUCH_ID;
const selfEmail = (ctx: RouteContext) => ctx.self?.email ?? ctx.target.email;
/** A message with a screenshot (the support chat's attachment). */
const attachmentForm = () => {
  const form = new FormData();
  form.set('text', 'See the screenshot');
  form.set('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'transfer.png');
  return form;
};
const kycForm = () => {
  const form = new FormData();
  form.append('front', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'front.png');
  form.append('back', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'back.png');
  return form;
};
const notice = (ctx: RouteContext) => ({
  subject: 'Deposit received',
  send_to: selfEmail(ctx),
  reply_to: 'noreply@example.com',
  template: 'depositNotice',
  url: '/dashboard',
});
const idempotent = () => ({ 'idempotency-key': `matrix-${randomUUID()}` });
/** An admin balance edit of the target user. */
const balanceEdit = (ctx: RouteContext) => ({
  params: { id: ctx.target.id },
  body: { amount: '1' },
  headers: idempotent(),
});

type Sample = NonNullable<RouteRow['request']>;

/** Sample requests of the routes declared in the route table (those without one are sent bare). */
const SAMPLES: Partial<Record<string, Sample>> = {
  'get /api/admin/audit': () => ({ query: 'action=RoleChanged&limit=5' }),
  'post /api/users/register': () => ({
    body: {
      name: 'Matrix User',
      email: freshEmail('matrix'),
      password: 'Passw0rd!',
      phone: '+15550100',
      country: 'Germany',
    },
  }),
  'post /api/users/login': (ctx) => ({ body: { email: ctx.target.email, password: 'Wrong-Passw0rd!' } }),
  'patch /api/users/updateUser': () => ({ body: { bio: 'matrix' } }),
  'patch /api/users/verifyUser/:verificationToken': () => ({ params: { verificationToken: 'not-a-token' } }),
  'patch /api/users/changePassword': () => ({
    body: { oldPassword: 'Wrong-Passw0rd!', password: 'Changed-Passw0rd!' },
  }),
  'patch /api/users/resetPassword/:resetToken': () => ({
    params: { resetToken: 'not-a-token' },
    body: { password: 'Reset-Passw0rd!' },
  }),
  'post /api/users/forgotPassword': () => ({ body: { email: freshEmail('forgot') } }),
  'post /api/users/upgradeUser': (ctx) => ({ body: { role: 'subscriber', id: ctx.target.id } }),
  'post /api/users/sendLoginCode/:email': () => ({ params: { email: freshEmail('code') } }),
  'post /api/users/loginWithCode/:email': () => ({
    params: { email: freshEmail('code') },
    body: { loginCode: '123456' },
  }),
  'post /api/users/google/callback': () => ({ body: { credential: 'not-a-google-token' } }),
  'post /api/users/impersonate/:id': (ctx) => ({ params: { id: ctx.target.id } }),
  'delete /api/users/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'get /api/dev/mailbox': (ctx) => ({ query: `to=${ctx.target.email}` }),
  'post /api/sendAutomatedEmail': (ctx) => ({ body: notice(ctx) }),
  'post /api/users/sendAutomatedEmail': (ctx) => ({ body: notice(ctx) }),
  'get /api/users/statement': () => ({ query: 'format=json' }),
  // no provider is configured here: every caller is sent to /login with the same reason
  'get /api/auth/oidc/:provider/start': () => ({ params: { provider: 'matrix' } }),
  'get /api/auth/oidc/:provider/callback': () => ({
    params: { provider: 'matrix' },
    query: 'code=not-a-code&state=not-a-state',
  }),
  'post /api/users/uploadKycDocuments': () => ({ form: kycForm }),
  'get /api/users/kyc/document/:userId/:side': (ctx) => ({ params: { userId: selfId(ctx), side: 'front' } }),
  'patch /api/users/kyc/approve/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'patch /api/users/kyc/reject/:id': () => ({ params: { id: NO_SUCH_ID }, body: { reason: 'blurred' } }),
  'post /api/payments/create': () => ({ body: { amount: '50' }, headers: idempotent() }),
  'get /api/payments/viewPaymentStatus/:transactionId': () => ({ params: { transactionId: NO_SUCH_ID } }),
  'post /api/invest/start-invest': () => ({
    body: { amount: '100', planName: 'Starter' },
    headers: idempotent(),
  }),
  'get /api/invest/investment/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/withDraw/create': () => ({
    body: { amount: '60', walletAddress: WALLET },
    headers: idempotent(),
  }),
  'get /api/withDraw/get-withdrawal/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'patch /api/payments/confirmPayment': () => ({ body: { transactionId: NO_SUCH_ID, status: 'Confirmed' } }),
  'patch /api/payments/rejectPayment': () => ({ body: { transactionId: NO_SUCH_ID } }),
  'put /api/invest/:id/approve': () => ({ params: { id: NO_SUCH_ID } }),
  'put /api/invest/:id/reject': () => ({ params: { id: NO_SUCH_ID } }),
  'put /api/withDraw/approve/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'put /api/withDraw/reject/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/admin/claims': () => ({ body: { kind: 'deposit', id: `matrix-${randomUUID()}` } }),
  'delete /api/admin/claims/:kind/:id': () => ({ params: { kind: 'deposit', id: NO_SUCH_ID } }),
  'post /api/admin/claims/:kind/:id/takeover': () => ({
    params: { kind: 'deposit', id: `matrix-${randomUUID()}` },
  }),
  'put /api/users/updateDepositBalance/:id': (ctx) => balanceEdit(ctx),
  'put /api/users/editDepositBalance/:id': (ctx) => balanceEdit(ctx),
  'put /api/users/editinvestmentBalance/:id': (ctx) => balanceEdit(ctx),
  'post /api/support/conversations/visitor': () => ({
    body: { name: 'Matrix Visitor', email: freshEmail('visitor'), text: 'Hello' },
  }),
  // a token that opens nothing: the same 401 whoever sends it
  'post /api/support/conversations/visitor/resume': () => ({
    body: { token: 'no-such-conversation.not-a-secret' },
  }),
  'post /api/support/conversations/mine/messages': () => ({ body: { text: 'Hello support' } }),
  'post /api/support/conversations/mine/attachments': () => ({ form: attachmentForm }),
  'get /api/support/attachments/:attachmentId': () => ({ params: { attachmentId: NO_SUCH_ID } }),
  'get /api/support/conversations': () => ({ query: 'status=open&assigned=any' }),
  'get /api/support/conversations/:id': () => ({ params: { id: NO_SUCH_ID } }),
  'get /api/support/conversations/:id/summary': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/support/conversations/:id/messages': () => ({
    params: { id: `matrix-${randomUUID()}` },
    body: { text: 'Hello' },
  }),
  'post /api/support/conversations/:id/attachments': () => ({
    params: { id: `matrix-${randomUUID()}` },
    form: attachmentForm,
  }),
  'post /api/support/conversations/:id/deposit-address': () => ({
    params: { id: `matrix-${randomUUID()}` },
    body: { addressId: NO_SUCH_ID },
  }),
  'post /api/support/conversations/:id/assign': () => ({ params: { id: NO_SUCH_ID }, body: {} }),
  'post /api/support/conversations/:id/close': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/support/conversations/:id/reopen': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/support/conversations/:id/block': () => ({ params: { id: NO_SUCH_ID } }),
  'post /api/admin/deposit-addresses': () => ({
    body: { network: 'ethereum', label: 'Matrix ETH', address: WALLET },
  }),
  'post /api/admin/deposit-addresses/:id/retire': () => ({ params: { id: NO_SUCH_ID } }),
};

/** Every route's row: the table's routes, access from their declaration. */
export const ROUTE_MATRIX: Record<string, RouteRow> = matrixOf();

function matrixOf(): Record<string, RouteRow> {
  const rows: Record<string, RouteRow> = {};
  for (const route of TABLE_ROUTES) {
    const key = routeKey(route);
    if (key in rows) throw new Error(`${key} is declared twice`);
    const request = SAMPLES[key];
    rows[key] = {
      access: route.access,
      ...(request ? { request } : {}),
      ...(route.consumesSession ? { consumesSession: route.consumesSession } : {}),
      ...(route.impersonatingRefusal ? { impersonatingRefusal: route.impersonatingRefusal } : {}),
    };
  }
  const stale = Object.keys(SAMPLES).filter((key) => !(key in rows));
  if (stale.length > 0) throw new Error(`samples of routes not in the route table: ${stale.join(', ')}`);
  return rows;
}

export type Caller = 'anonymous' | 'subscriber' | 'author' | 'suspended' | 'admin' | 'impersonating';
export const CALLERS: readonly Caller[] = [
  'anonymous',
  'subscriber',
  'author',
  'suspended',
  'admin',
  'impersonating',
];

/**
 * open: any answer but 5xx, the same status for every caller; allowed: anything but 401/403 (a
 * 400/404/409 is the route's own rule) and never 5xx; 401/403: refused with that status.
 */
export type Expected = 'open' | 'allowed' | 401 | 403;

export function expectedAnswer(access: Access, caller: Caller): Expected {
  if (access === 'public') return 'open';
  if (caller === 'anonymous' || caller === 'suspended') return 401;
  if (access === 'user') return 'allowed';
  if (access === 'userMoney' || access === 'userSelf') return caller === 'impersonating' ? 403 : 'allowed';
  return caller === 'admin' ? 'allowed' : 403;
}
