/**
 * Who may call each route of the gateway, and a valid-shaped request for it (issue 11, "Proof over every
 * route"). One row per `<method> <Express path>` of the route table (routeTable.ts): the authorization
 * matrix (authzMatrix.int.spec.ts) fails for a route without a row, and the fuzzing suite
 * (fuzz.int.spec.ts) mutates these requests.
 */
import { randomUUID } from 'node:crypto';
import { freshEmail } from './composition.js';

/**
 * - public: anyone, signed in or not, with the same answer whoever asks (a refused credential on a
 *   sign-in route is that route's own 401);
 * - user: a live session (401 anonymous or suspended); an impersonating admin acts as the user;
 * - userMoney: as user, but a money command: 403 while impersonating (maker-checker);
 * - userSelf: as user, but only the user in person (their password, their KYC documents): 403 while
 *   impersonating, with the row's `impersonatingRefusal`;
 * - admin: the admin role (401 anonymous or suspended, 403 others, impersonating included: the session
 *   carries the user's role);
 * - adminMoney: as admin, and a money command.
 */
export type Access = 'public' | 'user' | 'userMoney' | 'userSelf' | 'admin' | 'adminMoney';

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

/** A 1×1 PNG (the KYC upload's document). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const NO_SUCH_ID = 'no-such-id';

const selfId = (ctx: RouteContext) => ctx.self?.id ?? NO_SUCH_ID;
const selfEmail = (ctx: RouteContext) => ctx.self?.email ?? ctx.target.email;
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

export const ROUTE_MATRIX: Record<string, RouteRow> = {
  // ---------------------------------------------------------------- health, documents, static
  'get /healthz': { access: 'public' },
  'get /readyz': { access: 'public' },
  'get /api/openapi.json': { access: 'public' },
  'get /api/docs': { access: 'public' },
  'get /api/avatars/default.svg': { access: 'public' },
  'get /api/countries': { access: 'public' },
  'get /api/dev/mailbox': { access: 'public', request: (ctx) => ({ query: `to=${ctx.target.email}` }) },

  // ---------------------------------------------------------------- account (public)
  'post /api/users/register': {
    access: 'public',
    request: () => ({
      body: {
        name: 'Matrix User',
        email: freshEmail('matrix'),
        password: 'Passw0rd!',
        phone: '+15550100',
        country: 'Germany',
      },
    }),
  },
  'post /api/users/login': {
    access: 'public',
    request: (ctx) => ({ body: { email: ctx.target.email, password: 'Wrong-Passw0rd!' } }),
  },
  'get /api/users/logout': { access: 'public', consumesSession: true },
  'get /api/users/loginStatus': { access: 'public' },
  'patch /api/users/verifyUser/:verificationToken': {
    access: 'public',
    request: () => ({ params: { verificationToken: 'not-a-token' } }),
  },
  'patch /api/users/resetPassword/:resetToken': {
    access: 'public',
    request: () => ({ params: { resetToken: 'not-a-token' }, body: { password: 'Reset-Passw0rd!' } }),
  },
  'post /api/users/forgotPassword': {
    access: 'public',
    request: () => ({ body: { email: freshEmail('forgot') } }),
  },
  'post /api/users/sendLoginCode/:email': {
    access: 'public',
    request: () => ({ params: { email: freshEmail('code') } }),
  },
  'post /api/users/loginWithCode/:email': {
    access: 'public',
    request: () => ({ params: { email: freshEmail('code') }, body: { loginCode: '123456' } }),
  },
  'post /api/users/google/callback': {
    access: 'public',
    request: () => ({ body: { credential: 'not-a-google-token' } }),
  },
  'get /api/invest/plans': { access: 'public' },

  // ---------------------------------------------------------------- account (signed in)
  'get /api/users/getUser': { access: 'user' },
  'patch /api/users/updateUser': { access: 'user', request: () => ({ body: { bio: 'matrix' } }) },
  'post /api/users/sendVerificationEmail': { access: 'user' },
  'patch /api/users/changePassword': {
    access: 'userSelf',
    impersonatingRefusal: 'Passwords cannot be changed while impersonating',
    request: () => ({ body: { oldPassword: 'Wrong-Passw0rd!', password: 'Changed-Passw0rd!' } }),
  },
  'post /api/users/exit-impersonation': { access: 'user', consumesSession: true },
  'get /api/users/referrals': { access: 'user' },
  'post /api/sendAutomatedEmail': { access: 'user', request: (ctx) => ({ body: notice(ctx) }) },
  'post /api/users/sendAutomatedEmail': { access: 'user', request: (ctx) => ({ body: notice(ctx) }) },
  'post /api/users/uploadKycDocuments': {
    access: 'userSelf',
    impersonatingRefusal: 'KYC documents cannot be uploaded while impersonating a user',
    request: () => ({ form: kycForm }),
  },
  'get /api/users/kyc/document/:userId/:side': {
    access: 'user',
    request: (ctx) => ({ params: { userId: selfId(ctx), side: 'front' } }),
  },

  // ---------------------------------------------------------------- account (admin)
  'get /api/users/getUsers': { access: 'admin' },
  'get /api/users/userStats': { access: 'admin' },
  'get /api/admin/audit': { access: 'admin', request: () => ({ query: 'action=RoleChanged&limit=5' }) },
  'get /api/admin/queueStats': { access: 'admin' },
  'get /api/users/securityEvents': { access: 'user' },
  'post /api/users/upgradeUser': {
    access: 'admin',
    request: (ctx) => ({ body: { role: 'subscriber', id: ctx.target.id } }),
  },
  'post /api/users/impersonate/:id': {
    access: 'admin',
    consumesSession: true,
    request: (ctx) => ({ params: { id: ctx.target.id } }),
  },
  'delete /api/users/:id': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'get /api/users/kyc/pending': { access: 'admin' },
  'patch /api/users/kyc/approve/:id': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'patch /api/users/kyc/reject/:id': {
    access: 'admin',
    request: () => ({ params: { id: NO_SUCH_ID }, body: { reason: 'blurred' } }),
  },

  // ---------------------------------------------------------------- money (user)
  'post /api/payments/create': {
    access: 'userMoney',
    request: () => ({ body: { amount: '50' }, headers: idempotent() }),
  },
  'get /api/payments/viewPaymentStatus/:transactionId': {
    access: 'user',
    request: () => ({ params: { transactionId: NO_SUCH_ID } }),
  },
  'post /api/invest/start-invest': {
    access: 'userMoney',
    request: () => ({ body: { amount: '100', planName: 'Starter' }, headers: idempotent() }),
  },
  'get /api/invest/investment-history': { access: 'user' },
  'get /api/invest/investment/:id': { access: 'user', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'get /api/invest/deposit-maturity': { access: 'user' },
  'get /api/invest/getTransactionHistory': { access: 'user' },
  'get /api/users/statement': { access: 'user', request: () => ({ query: 'format=json' }) },
  'post /api/withDraw/create': {
    access: 'userMoney',
    request: () => ({ body: { amount: '60', walletAddress: WALLET }, headers: idempotent() }),
  },
  'get /api/withDraw/balance': { access: 'user' },
  'get /api/withDraw/get-withdrawal/:id': { access: 'user', request: () => ({ params: { id: NO_SUCH_ID } }) },

  // ---------------------------------------------------------------- money (admin)
  'get /api/payments/pending-deposit': { access: 'admin' },
  'patch /api/payments/confirmPayment': {
    access: 'admin',
    request: () => ({ body: { transactionId: NO_SUCH_ID, status: 'Confirmed' } }),
  },
  'patch /api/payments/rejectPayment': {
    access: 'admin',
    request: () => ({ body: { transactionId: NO_SUCH_ID } }),
  },
  'get /api/invest/adminPendingInvestment': { access: 'admin' },
  'put /api/invest/:id/approve': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'put /api/invest/:id/reject': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'get /api/withDraw/pending': { access: 'admin' },
  'put /api/withDraw/approve/:id': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  'put /api/withDraw/reject/:id': { access: 'admin', request: () => ({ params: { id: NO_SUCH_ID } }) },
  // ---------------------------------------------------------------- review claims (admin)
  'get /api/admin/claims': { access: 'admin' },
  'post /api/admin/claims': {
    access: 'admin',
    request: () => ({ body: { kind: 'deposit', id: `matrix-${randomUUID()}` } }),
  },
  'delete /api/admin/claims/:kind/:id': {
    access: 'admin',
    request: () => ({ params: { kind: 'deposit', id: NO_SUCH_ID } }),
  },
  'post /api/admin/claims/:kind/:id/takeover': {
    access: 'admin',
    request: () => ({ params: { kind: 'deposit', id: `matrix-${randomUUID()}` } }),
  },
  'put /api/users/updateDepositBalance/:id': {
    access: 'adminMoney',
    request: (ctx) => ({ params: { id: ctx.target.id }, body: { amount: '1' }, headers: idempotent() }),
  },
  'put /api/users/editDepositBalance/:id': {
    access: 'adminMoney',
    request: (ctx) => ({ params: { id: ctx.target.id }, body: { amount: '1' }, headers: idempotent() }),
  },
  'put /api/users/editinvestmentBalance/:id': {
    access: 'adminMoney',
    request: (ctx) => ({ params: { id: ctx.target.id }, body: { amount: '1' }, headers: idempotent() }),
  },
};

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
