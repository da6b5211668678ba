/**
 * The REST API as an OpenAPI 3.1 document, generated from the zod schemas that validate the requests
 * (validation.ts, moneyRoutes.ts) and type the answers (answers.ts) with zod's own JSON Schema output
 * (draft 2020-12, OpenAPI 3.1's dialect). Served at GET /api/openapi.json and, readable, at /api/docs
 * (apiDocs.ts). The route table below names every route the gateway registers;
 * gateway/src/apiContract.int.spec.ts walks the Express router and holds the two to each other, and
 * drives the real app to check that the documented answers are what the routes send.
 */
import { z } from 'zod';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/app/heldRequest/domain/makerChecker';
import { MONEY_MESSAGES as AMOUNT_MESSAGES } from '@meridian/platform/money/money';
import type { RateLimitedRoute } from '../config.js';
import {
  answerRegistry,
  countryAnswer,
  healthAnswer,
  impersonationAnswer,
  mailAnswer,
  messageAnswer,
  moneyAnswers,
  pendingKycAnswer,
  planAnswer,
  readinessAnswer,
  referralsAnswer,
  auditPageAnswer,
  securityEventsAnswer,
  userAnswer,
  userStatsAnswer,
  queueStatsAnswer,
  userWithMessageAnswer,
  balancesAnswer,
  withdrawalDetailAnswer,
  claimAnswers,
} from './answers.js';
import { CLAIM_MESSAGES } from '../live/claims.js';
import { claimSchemas } from '../live/claimsRoutes.js';
import { NOT_ADMIN, NOT_LOGGED_IN } from './auth.js';
import { SERVICE_UNAVAILABLE, SOMETHING_WENT_WRONG } from './errors.js';
import { KYC_UPLOAD_MESSAGES } from './kycRoutes.js';
import { INVALID_AUDIT_QUERY } from './auditRoutes.js';
import { STATEMENT_MESSAGES } from './statementRoutes.js';
import { INVALID_CSRF, TOO_MANY_REQUESTS } from './middleware.js';
import { MONEY_MESSAGES, amountField, moneySchemas } from './moneyRoutes.js';
import { INVALID_USERS_QUERY, NEXT_CURSOR_HEADER, NO_REFERRALS } from './usersRoutes.js';
import { ALL_FIELDS_REQUIRED, INVALID_BODY, INVALID_EMAIL, SHORT_PASSWORD, schemas } from './validation.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** Who may call: anyone, a signed-in user (session cookie or Bearer), an admin. */
export type Access = 'public' | 'user' | 'admin';

export const MALFORMED_JSON = 'Malformed JSON body';
export const BODY_TOO_LARGE = 'Request body too large';
/** Identity's own per-email and per-client budgets (behind the gateway's). */
const IDENTITY_RATE_LIMITED = 'Too many attempts. Please try again later';

interface Answer {
  description: string;
  /** A JSON answer (its component); absent for the non-JSON media below. */
  schema?: z.ZodType;
  /** Non-JSON answer media type and JSON Schema (a file, a page). */
  media?: { type: string; schema: Record<string, unknown> };
}

export interface RouteDoc {
  method: HttpMethod;
  /** The path as Express registers it (`:param`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** The JSON body schema the route parses (parseBody). */
  body?: z.ZodType;
  /** multipart/form-data file fields (streamed to a service). */
  files?: string[];
  query?: Record<string, string>;
  /** Response headers of the success answer (name -> description). */
  okHeaders?: Record<string, string>;
  rateLimit?: RateLimitedRoute;
  /** The route reads an optional Idempotency-Key header. */
  idempotencyKey?: boolean;
  /** Success status (default 200) and answer. */
  status?: number;
  ok: Answer;
  /**
   * Messages of the error answers the route sends (or passes on from its service), by HTTP status;
   * `<name>` stands for a part that varies (a plan's name, an amount).
   */
  errors?: Partial<Record<number, string[]>>;
  /** Only outside production. */
  devOnly?: boolean;
  /** Mounted only with the money services. */
  money?: boolean;
  /** Answered by the gateway alone (no service call, so no 500/503 from one). */
  local?: boolean;
}

const json = (schema: z.ZodType, description: string): Answer => ({ schema, description });
const message = (description: string): Answer => json(messageAnswer, description);
const mustBeString = (...fields: string[]) => fields.map((f) => `${f} must be a string`);

const USERS = 'Account';
const KYC = 'KYC';
const PAYMENTS = 'Deposits';
const INVEST = 'Investments';
const WITHDRAW = 'Withdrawals';
const BALANCES = 'Balance edits';
const OTHER = 'Other';
const OPS = 'Operations';
const CLAIMS = 'Review claims';

/** What a decision on a queue item answers when the caller does not hold its claim (live/claims.ts). */
const CLAIM_REFUSALS = [CLAIM_MESSAGES.notClaimed, CLAIM_MESSAGES.heldBy('<name>'), CLAIM_MESSAGES.busy];
/** A list route's paging (pages.ts): optional limit and cursor, the next page's cursor in X-Next-Cursor. */
const paged = (order: string) => ({
  description: `Without parameters: the whole list, ${order} (the spec's answer). With \`limit\` or \`cursor\`: one page of the same list (keyset paging, stable while items are added or removed), the next page's cursor in the \`${NEXT_CURSOR_HEADER}\` header (absent on the last page); the body keeps its shape.`,
  query: {
    limit: 'Page size, 1-500 (default 50 when only `cursor` is given).',
    cursor: `The \`${NEXT_CURSOR_HEADER}\` of the previous page.`,
  },
  okHeaders: {
    [NEXT_CURSOR_HEADER]: 'The cursor of the next page; absent on the last page or without paging.',
  },
  errors: { 400: [INVALID_USERS_QUERY] },
});

const CLAIM_RULE =
  'The caller must hold the claim on the item (POST api/admin/claims); a decision that succeeds releases it.';
const AUDIT = 'Audit';

const capitalized = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/** PUT approve / reject of a held-money request (an investment, a withdrawal): decided once. */
const heldRequestDecisions = (
  record: 'investment' | 'withdrawal',
  path: (decision: 'approve' | 'reject') => string,
  tag: string,
  answer: z.ZodType,
): RouteDoc[] =>
  (['approve', 'reject'] as const).map((decision) => ({
    method: 'put',
    path: path(decision),
    tag,
    summary: `${capitalized(decision)} ${record === 'investment' ? 'an' : 'a'} ${record}`,
    description: CLAIM_RULE,
    access: 'admin',
    money: true,
    ok: json(answer, 'Decided.'),
    errors: {
      400: [MONEY_MESSAGES.invalidId],
      403: [MAKER_CHECKER.ownDecision(record)],
      404: [`${capitalized(record)} not found`],
      409: [
        `This ${record} has already been approved`,
        `This ${record} has already been rejected`,
        `The ${record} is ${decision}d but the ledger refused to ${decision === 'approve' ? 'capture' : 'release'} its funds: <reason>. It is not complete and will be retried`,
        ...CLAIM_REFUSALS,
      ],
    },
  }));

/** What an admin's KYC decision may answer besides a bad id or reason. */
const KYC_DECISION_ERRORS = {
  403: [MAKER_CHECKER.ownDecision('KYC case')],
  404: ['No KYC submission found for this user'],
  409: [
    'This KYC request has already been approved',
    'This KYC request has already been rejected',
    ...CLAIM_REFUSALS,
  ],
};

/** Every route the gateway registers (the contract test checks this against the Express router). */
export const ROUTES: RouteDoc[] = [
  // ---------------------------------------------------------------- account
  {
    method: 'post',
    path: '/api/users/register',
    tag: USERS,
    summary: 'Register',
    description:
      'Creates the account, signs in (session cookie) and trusts this browser (device cookie). A verification email is sent.',
    access: 'public',
    body: schemas.register,
    rateLimit: 'register',
    status: 201,
    ok: json(userAnswer, 'Registered and signed in.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        INVALID_EMAIL,
        SHORT_PASSWORD,
        'Invalid referral code',
        ...mustBeString('name', 'email', 'password', 'phone', 'country', 'referralCode'),
      ],
      409: ['Email is already registered'],
    },
  },
  {
    method: 'post',
    path: '/api/users/login',
    tag: USERS,
    summary: 'Log in',
    description:
      "From a browser identity does not trust yet the answer is 400 'New browser or device detected': sign in with a login code (sendLoginCode, loginWithCode).",
    access: 'public',
    body: schemas.login,
    rateLimit: 'login',
    ok: json(userAnswer, 'Signed in (session cookie).'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        INVALID_EMAIL,
        'Invalid email or password',
        'New browser or device detected',
        ...mustBeString('email', 'password'),
      ],
      403: ['Your account has been suspended. Please contact support'],
    },
  },
  {
    method: 'get',
    path: '/api/users/logout',
    tag: USERS,
    summary: 'Log out',
    description:
      'Revokes the session and clears its cookie; harmless when signed out. Refused when the request comes from another site (Sec-Fetch-Site: cross-site, or a foreign Origin or Referer).',
    access: 'public',
    ok: message('Logged out.'),
    errors: { 403: ['Cross-site request refused'] },
  },
  {
    method: 'get',
    path: '/api/users/loginStatus',
    tag: USERS,
    summary: 'Whether this browser is signed in',
    access: 'public',
    ok: json(z.boolean(), '`true` or `false`.'),
  },
  {
    method: 'get',
    path: '/api/users/getUser',
    tag: USERS,
    summary: 'The signed-in user',
    access: 'user',
    ok: json(userAnswer, 'The user, balances in dollars.'),
  },
  {
    method: 'patch',
    path: '/api/users/updateUser',
    tag: USERS,
    summary: 'Update the profile',
    description: 'Only name, phone, bio, country and photo are changed; other keys are ignored.',
    access: 'user',
    body: schemas.updateUser,
    ok: json(userAnswer, 'The updated user.'),
    errors: {
      400: [
        'Name cannot be empty',
        'Photo must be a valid http(s) address',
        ...mustBeString('name', 'phone', 'bio', 'country', 'photo'),
      ],
    },
  },
  {
    method: 'post',
    path: '/api/users/sendVerificationEmail',
    tag: USERS,
    summary: 'Send the verification email again',
    access: 'user',
    ok: message('Sent.'),
    errors: { 400: ['Account already verified'], 429: [IDENTITY_RATE_LIMITED] },
  },
  {
    method: 'patch',
    path: '/api/users/verifyUser/:verificationToken',
    tag: USERS,
    summary: 'Verify the email with the emailed token',
    access: 'public',
    ok: message('Verified.'),
    errors: { 400: ['Invalid or expired token', 'Invalid or expired verification link'] },
  },
  {
    method: 'patch',
    path: '/api/users/changePassword',
    tag: USERS,
    summary: 'Change the password',
    description: 'Revokes the other sessions; the user is emailed about the change.',
    access: 'user',
    body: schemas.changePassword,
    ok: message('Changed.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        SHORT_PASSWORD,
        'Incorrect old password',
        ...mustBeString('oldPassword', 'password'),
      ],
    },
  },
  {
    method: 'patch',
    path: '/api/users/resetPassword/:resetToken',
    tag: USERS,
    summary: 'Set a new password with the emailed reset token',
    description: "Answers 'Password Reset Successful, please login'; every session of the user is revoked.",
    access: 'public',
    body: schemas.resetPassword,
    rateLimit: 'resetPassword',
    ok: message('Reset.'),
    errors: {
      400: [
        SHORT_PASSWORD,
        ALL_FIELDS_REQUIRED,
        'Invalid or expired token',
        'Invalid or expired reset link',
        ...mustBeString('password'),
      ],
    },
  },
  {
    method: 'post',
    path: '/api/users/forgotPassword',
    tag: USERS,
    summary: 'Email a password reset link',
    description: 'The same answer whether or not the email is registered.',
    access: 'public',
    body: schemas.forgotPassword,
    rateLimit: 'forgotPassword',
    ok: message('Sent when registered.'),
    errors: { 400: ['Please enter an email', INVALID_EMAIL, ...mustBeString('email')] },
  },
  {
    method: 'get',
    path: '/api/users/getUsers',
    tag: USERS,
    summary: 'Every user, or a page of them',
    description: `Without parameters: every user, newest first (the spec's answer). With \`limit\`, \`cursor\` or \`q\`: one page of the same list (keyset paging, stable while users are added or removed), the next page's cursor in the \`${NEXT_CURSOR_HEADER}\` header (absent on the last page); the body is a list of users either way.`,
    access: 'admin',
    query: {
      limit: 'Page size, 1-500 (default 50 when `cursor` or `q` is given).',
      cursor: `The \`${NEXT_CURSOR_HEADER}\` of the previous page.`,
      q: 'Only users whose name or email starts with this (any case).',
      id: 'Only this user (an admin screen about one user opened by its address): a list of that user, or an empty list; not with `limit`, `cursor` or `q`.',
    },
    okHeaders: {
      [NEXT_CURSOR_HEADER]: 'The cursor of the next page; absent on the last page or without paging.',
    },
    ok: json(z.array(userAnswer), 'The users.'),
    errors: { 400: [INVALID_USERS_QUERY] },
  },
  {
    method: 'get',
    path: '/api/users/userStats',
    tag: USERS,
    summary: 'User statistics',
    description: 'Total, verified, unverified and suspended users, from counters the user projection keeps.',
    access: 'admin',
    ok: json(userStatsAnswer, 'The statistics.'),
  },
  {
    method: 'delete',
    path: '/api/users/:id',
    tag: USERS,
    summary: 'Delete a user',
    access: 'admin',
    ok: message('Deleted.'),
    errors: {
      400: ['Invalid user id'],
      403: ['You cannot delete your own account'],
      404: ['User not found'],
    },
  },
  {
    method: 'post',
    path: '/api/users/upgradeUser',
    tag: USERS,
    summary: "Change a user's role",
    description: 'Roles: subscriber, author, admin, suspended. The user is emailed about the change.',
    access: 'admin',
    body: schemas.upgradeUser,
    ok: message('Changed.'),
    errors: {
      400: [
        'Please select a role',
        'Invalid role',
        ALL_FIELDS_REQUIRED,
        'The last admin cannot be demoted',
        ...mustBeString('role', 'id'),
      ],
      403: ['You cannot change your own role'],
      404: ['User not found'],
    },
  },
  {
    method: 'post',
    path: '/api/users/sendLoginCode/:email',
    tag: USERS,
    summary: 'Email a 6-digit login code',
    description: 'The same answer whether or not the email is registered.',
    access: 'public',
    rateLimit: 'sendLoginCode',
    ok: message('Sent when registered.'),
    errors: { 400: [INVALID_EMAIL, ALL_FIELDS_REQUIRED], 429: [IDENTITY_RATE_LIMITED] },
  },
  {
    method: 'post',
    path: '/api/users/loginWithCode/:email',
    tag: USERS,
    summary: 'Log in with the emailed code',
    description: 'Signs in and trusts this browser (device cookie).',
    access: 'public',
    body: schemas.loginWithCode,
    rateLimit: 'loginWithCode',
    ok: json(userWithMessageAnswer, 'Signed in.'),
    errors: {
      400: [
        'Please fill in the login code',
        'Access code must be 6 characters',
        'Invalid or expired login code',
        INVALID_EMAIL,
        ...mustBeString('loginCode'),
      ],
      429: [IDENTITY_RATE_LIMITED],
    },
  },
  {
    method: 'post',
    path: '/api/users/google/callback',
    tag: USERS,
    summary: 'Sign in with a Google ID token',
    description: '`credential` (or `token`): the OpenID Connect ID token Google sign-in returned.',
    access: 'public',
    body: schemas.google,
    rateLimit: 'google',
    ok: json(userAnswer, 'Signed in.'),
    errors: {
      400: [ALL_FIELDS_REQUIRED, ...mustBeString('credential', 'token'), 'Google sign-in is not available'],
      401: ['Google sign-in failed: invalid credential'],
    },
  },
  {
    method: 'post',
    path: '/api/users/impersonate/:id',
    tag: USERS,
    summary: 'Act as a user',
    description:
      'The session cookie becomes the impersonation session. Accepted without X-XSRF-TOKEN when the Origin header names our own origin.',
    access: 'admin',
    ok: json(impersonationAnswer, 'Impersonating.'),
    errors: {
      400: ['Invalid user id'],
      403: ['Admins cannot be impersonated', 'You cannot impersonate yourself'],
      404: ['User not found'],
    },
  },
  {
    method: 'post',
    path: '/api/users/exit-impersonation',
    tag: USERS,
    summary: "Back to the admin's own session",
    access: 'user',
    ok: json(impersonationAnswer, 'Back to the admin.'),
    errors: { 400: ['You are not impersonating anyone'] },
  },
  {
    method: 'get',
    path: '/api/admin/audit',
    tag: AUDIT,
    summary: 'The audit trail',
    description:
      'Every admin action and every action taken while impersonating, from every service, newest first. `format=csv` answers the same filters (every page, at most 10,000 rows) as a CSV attachment whose cells never start like a formula.',
    access: 'admin',
    query: {
      admin: 'The admin (id or email).',
      user: 'The user acted on or impersonated (id or email).',
      action: 'The action (event type), e.g. `DepositConfirmed`.',
      from: 'ISO-8601 start of the period (inclusive).',
      to: 'ISO-8601 end of the period (exclusive).',
      limit: '1-500, default 50.',
      cursor: 'The `nextCursor` of the previous page.',
      format: '`json` (default) or `csv`.',
    },
    ok: json(auditPageAnswer, 'A page of the trail.'),
    errors: { 400: [INVALID_AUDIT_QUERY, 'Invalid period', 'Invalid <name> filter'] },
  },
  {
    method: 'get',
    path: '/api/admin/queueStats',
    tag: AUDIT,
    summary: 'Admin queue sizes',
    description:
      'How many deposits, investments, withdrawals and KYC cases wait for a decision, from the counters each service keeps in its read model (one call; the dashboard keeps it live from the queue pushes).',
    access: 'admin',
    money: true,
    ok: json(queueStatsAnswer, 'The size of every queue.'),
  },
  {
    method: 'get',
    path: '/api/users/securityEvents',
    tag: USERS,
    summary: "The user's own security events",
    access: 'user',
    ok: json(securityEventsAnswer, 'Sign-ins, new browsers and password changes.'),
  },
  {
    method: 'get',
    path: '/api/users/referrals',
    tag: USERS,
    summary: 'The people the user referred',
    description: `\`{referrals: [...]}\`, or \`{message: '${NO_REFERRALS}'}\` when there are none.`,
    access: 'user',
    ok: json(referralsAnswer, 'The referrals.'),
  },
  ...(['/api/sendAutomatedEmail', '/api/users/sendAutomatedEmail'] as const).map((path): RouteDoc => ({
    method: 'post',
    path,
    tag: OTHER,
    summary: path.includes('/users/')
      ? 'Send an automated notice (the same, under /users)'
      : 'Send an automated notice',
    description:
      'Allowlisted templates (depositNotice, investmentNotice, withdrawalNotice), to the caller’s own address only. ' +
      'changePassword and changeRole are answered as sent without a second email: the services email those events themselves.',
    access: 'user',
    body: schemas.sendAutomatedEmail,
    ok: message('Sent.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        INVALID_EMAIL,
        'This email template is not allowed. Allowed: investmentNotice, depositNotice, withdrawalNotice',
        'The link must point to this site',
        ...mustBeString('subject', 'send_to', 'reply_to', 'template', 'url'),
      ],
      403: ['You can only send emails to your own address'],
      429: ['Too many emails, please try again later'],
    },
  })),

  // ---------------------------------------------------------------- KYC
  {
    method: 'post',
    path: '/api/users/uploadKycDocuments',
    tag: KYC,
    summary: 'Upload the identity documents',
    description:
      'multipart/form-data with files `front` and `back` (≤ 10 MB each; jpeg, png, gif, webp, bmp, heic or pdf), streamed to the kyc service. Another content type is refused (400), and so is a Content-Length over two documents (413), before the body is read. Refused while an admin impersonates the user.',
    access: 'user',
    files: ['front', 'back'],
    rateLimit: 'kycUpload',
    ok: message('Uploaded; pending review.'),
    errors: {
      400: [
        KYC_UPLOAD_MESSAGES.bothSides,
        KYC_UPLOAD_MESSAGES.tooLarge,
        'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
        'Please verify your email before uploading documents',
      ],
      403: [KYC_UPLOAD_MESSAGES.impersonating],
      409: ['Your documents are already under review', 'Your identity is already verified'],
      413: [KYC_UPLOAD_MESSAGES.tooLarge],
    },
  },
  {
    method: 'get',
    path: '/api/users/kyc/document/:userId/:side',
    tag: KYC,
    summary: 'One uploaded document (front or back)',
    description: 'To its owner or an admin; sent with nosniff and no-store.',
    access: 'user',
    ok: {
      description: 'The document bytes.',
      media: {
        type: 'application/octet-stream',
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    },
    errors: { 403: ['Not authorized to view this document'], 404: ['Document not found'] },
  },
  {
    method: 'get',
    path: '/api/users/kyc/pending',
    tag: KYC,
    summary: 'Submissions waiting for review, oldest first',
    ...paged('oldest first'),
    access: 'admin',
    ok: json(pendingKycAnswer, 'The pending submissions.'),
  },
  {
    method: 'patch',
    path: '/api/users/kyc/approve/:id',
    tag: KYC,
    summary: 'Approve a submission',
    description: CLAIM_RULE,
    access: 'admin',
    ok: message("'KYC approved successfully!'"),
    errors: {
      400: ['Invalid user id'],
      ...KYC_DECISION_ERRORS,
    },
  },
  {
    method: 'patch',
    path: '/api/users/kyc/reject/:id',
    tag: KYC,
    summary: 'Reject a submission',
    description: `An optional \`reason\` is shown to the user. ${CLAIM_RULE}`,
    access: 'admin',
    body: schemas.kycReject,
    ok: message("'KYC rejected successfully!'"),
    errors: {
      400: ['Invalid user id', 'reason must be at most 500 characters', ...mustBeString('reason')],
      ...KYC_DECISION_ERRORS,
    },
  },

  // ---------------------------------------------------------------- deposits
  {
    method: 'post',
    path: '/api/payments/create',
    tag: PAYMENTS,
    summary: 'Request a deposit',
    access: 'user',
    money: true,
    body: moneySchemas.deposit,
    idempotencyKey: true,
    status: 201,
    ok: json(moneyAnswers.depositCreated, 'Requested; pending confirmation.'),
    errors: {
      400: [
        MONEY_MESSAGES.amountRequired,
        MONEY_MESSAGES.amountType,
        'Please verify your email before making a deposit',
        'Deposit amount must be greater than zero',
        'The maximum deposit is $1,000,000',
        ...Object.values(AMOUNT_MESSAGES),
      ],
    },
  },
  {
    method: 'get',
    path: '/api/payments/viewPaymentStatus/:transactionId',
    tag: PAYMENTS,
    summary: 'One deposit',
    description: 'To its owner or an admin.',
    access: 'user',
    money: true,
    ok: json(moneyAnswers.paymentStatus, 'The deposit.'),
    errors: { 400: ['Transaction ID is missing!'], 404: ['Deposit not found'] },
  },
  {
    method: 'get',
    path: '/api/payments/pending-deposit',
    tag: PAYMENTS,
    summary: 'Deposits waiting for confirmation, oldest first',
    ...paged('oldest first'),
    access: 'admin',
    money: true,
    ok: json(moneyAnswers.pendingDeposits, 'The pending deposits.'),
  },
  ...(['confirm', 'reject'] as const).map((decision): RouteDoc => ({
    method: 'patch',
    path: `/api/payments/${decision}Payment`,
    tag: PAYMENTS,
    summary: decision === 'confirm' ? 'Confirm a deposit' : 'Reject a deposit',
    description: `\`status\`, when sent, must name this decision (Confirmed / Rejected); \`notes\` are optional. ${CLAIM_RULE}`,
    access: 'admin',
    money: true,
    body: moneySchemas.decidePayment,
    ok: json(moneyAnswers.paymentDecision, 'Decided.'),
    errors: {
      400: [ALL_FIELDS_REQUIRED, MONEY_MESSAGES.statusMismatch, MONEY_MESSAGES.invalidId],
      403: [MAKER_CHECKER.ownDecision('deposit')],
      404: ['Deposit not found'],
      409: [
        'This deposit has already been confirmed',
        'This deposit has already been rejected',
        ...CLAIM_REFUSALS,
      ],
    },
  })),

  // ---------------------------------------------------------------- investments
  {
    method: 'get',
    path: '/api/invest/plans',
    tag: INVEST,
    summary: 'The investment plans in force',
    description: 'The bare list (not wrapped in an object).',
    access: 'public',
    money: true,
    ok: json(z.array(planAnswer), 'The plans.'),
  },
  {
    method: 'post',
    path: '/api/invest/start-invest',
    tag: INVEST,
    summary: 'Request an investment',
    description: 'The amount is held from the Deposit Balance until an admin decides.',
    access: 'user',
    money: true,
    body: moneySchemas.startInvest,
    idempotencyKey: true,
    status: 201,
    ok: json(moneyAnswers.investmentOutcome, 'Requested; pending approval.'),
    errors: {
      400: [
        'Please select an investment plan.',
        MONEY_MESSAGES.amountRequired,
        MONEY_MESSAGES.amountType,
        'The selected investment plan does not exist',
        'The <plan> plan accepts amounts from <min> to <max>',
        'Please verify your email before investing',
        'Insufficient balance',
        ...Object.values(AMOUNT_MESSAGES),
      ],
    },
  },
  {
    method: 'get',
    path: '/api/invest/investment-history',
    tag: INVEST,
    summary: "The caller's investments",
    ...paged('newest first'),
    access: 'user',
    money: true,
    ok: json(moneyAnswers.investmentHistory, 'The investments.'),
  },
  {
    method: 'get',
    path: '/api/invest/investment/:id',
    tag: INVEST,
    summary: 'One investment',
    description: 'To its owner or an admin.',
    access: 'user',
    money: true,
    ok: json(moneyAnswers.investmentDetail, 'The investment.'),
    errors: { 400: [MONEY_MESSAGES.invalidId], 404: ['Investment not found'] },
  },
  {
    method: 'get',
    path: '/api/invest/adminPendingInvestment',
    tag: INVEST,
    summary: 'Investments waiting for approval',
    ...paged('oldest first'),
    access: 'admin',
    money: true,
    ok: json(
      moneyAnswers.pendingInvestments,
      'The pending investments, each with its projected maturityAmount.',
    ),
  },
  ...heldRequestDecisions(
    'investment',
    (d) => `/api/invest/:id/${d}`,
    INVEST,
    moneyAnswers.investmentOutcome,
  ),
  {
    method: 'get',
    path: '/api/invest/deposit-maturity',
    tag: INVEST,
    summary: "Settle the caller's matured investments",
    description: 'Runs when the dashboard loads; idempotent.',
    access: 'user',
    money: true,
    ok: json(moneyAnswers.depositMaturity, 'What was settled.'),
  },
  {
    method: 'get',
    path: '/api/users/statement',
    tag: USERS,
    summary: "The caller's verifiable account statement for a period",
    description:
      'Opening and closing balances per account, every ledger transaction of the period with its link in the ' +
      "user's hash chain (SHA-256, docs/statements.md), the chain head. `format=json` (default) is the " +
      '`meridian-statement/1` file that `npx meridian-verify` checks; `csv` one row per ledger entry; `pdf` for ' +
      'people. An attachment `meridian-statement-<from>-<to>.<format>`. Admins may add `userId`.',
    access: 'user',
    money: true,
    query: {
      from: 'A date (`2026-11-01`) or ISO-8601 date-time; default the first day of the current month (UTC).',
      to: 'A date (the whole day) or ISO-8601 date-time; default now. At most 366 days after `from`.',
      format: '`json` (default), `csv` or `pdf`.',
      userId: "Admins: another user's statement.",
    },
    ok: {
      description: 'The statement file.',
      media: { type: 'application/json', schema: { type: 'object' } },
    },
    errors: {
      400: Object.values(STATEMENT_MESSAGES),
      403: ['Not authorized'],
    },
  },
  {
    method: 'get',
    path: '/api/invest/getTransactionHistory',
    tag: INVEST,
    summary: "The caller's deposits, investments and withdrawals, newest first",
    ...paged('newest first (a page merges the three lists by request time)'),
    access: 'user',
    money: true,
    ok: json(moneyAnswers.transactionHistory, 'The history.'),
  },

  // ---------------------------------------------------------------- withdrawals
  {
    method: 'post',
    path: '/api/withDraw/create',
    tag: WITHDRAW,
    summary: 'Request a withdrawal',
    description: 'Needs a verified email and approved KYC; the amount is held until an admin decides.',
    access: 'user',
    money: true,
    body: moneySchemas.withdraw,
    idempotencyKey: true,
    status: 201,
    ok: json(moneyAnswers.withdrawalOutcome, 'Requested; pending approval.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        MONEY_MESSAGES.amountRequired,
        MONEY_MESSAGES.amountType,
        'Please verify your email before requesting a withdrawal',
        'Your KYC verification must be approved before you can withdraw',
        'Minimum withdrawal amount is $50',
        'Insufficient balance',
        'Please enter a valid wallet address',
        ...Object.values(AMOUNT_MESSAGES),
      ],
    },
  },
  {
    method: 'get',
    path: '/api/withDraw/balance',
    tag: WITHDRAW,
    summary: "The caller's balances",
    description: '`totalMaturityAmount` is what can be withdrawn.',
    access: 'user',
    money: true,
    ok: json(balancesAnswer, 'The balances.'),
  },
  {
    method: 'get',
    path: '/api/withDraw/pending',
    tag: WITHDRAW,
    summary: 'Withdrawals waiting for approval',
    ...paged('oldest first'),
    access: 'admin',
    money: true,
    ok: json(moneyAnswers.pendingWithdrawals, 'The pending withdrawals.'),
  },
  {
    method: 'get',
    path: '/api/withDraw/get-withdrawal/:id',
    tag: WITHDRAW,
    summary: 'One withdrawal',
    description: 'To its owner or an admin.',
    access: 'user',
    money: true,
    ok: json(withdrawalDetailAnswer, 'The withdrawal.'),
    errors: { 400: [MONEY_MESSAGES.invalidId], 404: ['Withdrawal not found'] },
  },
  ...heldRequestDecisions(
    'withdrawal',
    (d) => `/api/withDraw/${d}/:id`,
    WITHDRAW,
    moneyAnswers.withdrawalOutcome,
  ),

  // ---------------------------------------------------------------- review claims (live/claims.ts)
  {
    method: 'get',
    path: '/api/admin/claims',
    tag: CLAIMS,
    summary: 'Every pending item an admin is reviewing now',
    description:
      'Changes are pushed to admin sockets as `claims/changed`; fetch this list after (re)connecting.',
    access: 'admin',
    ok: json(claimAnswers.list, 'The live claims.'),
  },
  {
    method: 'post',
    path: '/api/admin/claims',
    tag: CLAIMS,
    summary: 'Claim a pending item (or renew your own claim)',
    description:
      'Opening an item claims it for 5 minutes; claiming it again renews that (the SPA does so every minute while the admin uses the open item). Other admins see who reviews it and cannot decide it.',
    access: 'admin',
    body: claimSchemas.claim,
    ok: json(claimAnswers.outcome, "'Claimed'"),
    errors: {
      400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId, ...mustBeString('kind', 'id')],
      409: [CLAIM_MESSAGES.heldBy('<name>'), CLAIM_MESSAGES.busy],
    },
  },
  {
    method: 'delete',
    path: '/api/admin/claims/:kind/:id',
    tag: CLAIMS,
    summary: 'Release your claim (leaving the item)',
    access: 'admin',
    ok: json(claimAnswers.released, "'Released'"),
    errors: { 400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId], 409: [CLAIM_MESSAGES.busy] },
  },
  {
    method: 'post',
    path: '/api/admin/claims/:kind/:id/takeover',
    tag: CLAIMS,
    summary: "Take an item over from the admin reviewing it (recorded in the claim's history)",
    access: 'admin',
    ok: json(claimAnswers.outcome, "'Taken over'"),
    errors: {
      400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId],
      409: [CLAIM_MESSAGES.deciding('<name>'), CLAIM_MESSAGES.busy],
    },
  },

  // ---------------------------------------------------------------- admin balance edits
  ...(
    [
      ['updateDepositBalance', 'Total Profit (totalMaturityAmount)'],
      ['editDepositBalance', 'Deposit Balance (balance)'],
      ['editinvestmentBalance', 'Total Investment (investmentBalance)'],
    ] as const
  ).map(([name, account]): RouteDoc => ({
    method: 'put',
    path: `/api/users/${name}/:id`,
    tag: BALANCES,
    summary: `Add to or deduct from a user's ${account}`,
    access: 'admin',
    money: true,
    body: moneySchemas.adjust,
    idempotencyKey: true,
    ok: json(moneyAnswers.balanceEdit, "The user's balances after the edit."),
    errors: {
      400: [
        MONEY_MESSAGES.operation,
        MONEY_MESSAGES.amountRequired,
        MONEY_MESSAGES.amountType,
        'Invalid user id',
        'Insufficient balance for this deduction',
        ...Object.values(AMOUNT_MESSAGES),
      ],
      403: [MAKER_CHECKER.ownBalances],
      404: ['User not found'],
    },
  })),

  // ---------------------------------------------------------------- other
  {
    method: 'get',
    path: '/api/countries',
    tag: OTHER,
    summary: 'Countries',
    access: 'public',
    ok: json(z.array(countryAnswer), 'Every country, `{name, code}`.'),
  },
  {
    method: 'get',
    path: '/api/dev/mailbox',
    tag: OTHER,
    summary: 'Emails sent (development only)',
    description:
      'Every email the product sent to one address, newest first; answered to a client on the same machine only (404 to anyone else), and the route does not exist in production.',
    access: 'public',
    devOnly: true,
    query: { to: 'The address whose emails to list (required).' },
    ok: json(z.array(mailAnswer), 'The emails.'),
    errors: { 400: [INVALID_EMAIL] },
  },
  {
    method: 'get',
    path: '/api/avatars/default.svg',
    tag: OTHER,
    summary: 'The default avatar',
    description: 'The `photo` of every user and referral who set no picture (an absolute URL to this path).',
    access: 'public',
    local: true,
    ok: {
      description: 'An SVG image.',
      media: { type: 'image/svg+xml', schema: { type: 'string' } },
    },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: OTHER,
    summary: 'This document',
    access: 'public',
    local: true,
    ok: {
      description: 'The OpenAPI 3.1 document.',
      media: { type: 'application/json', schema: { type: 'object' } },
    },
  },
  {
    method: 'get',
    path: '/api/docs',
    tag: OTHER,
    summary: 'This document, readable',
    access: 'public',
    local: true,
    ok: { description: 'An HTML page.', media: { type: 'text/html', schema: { type: 'string' } } },
  },
  {
    method: 'get',
    path: '/healthz',
    tag: OPS,
    summary: 'Liveness',
    access: 'public',
    local: true,
    ok: json(healthAnswer, 'The process is up.'),
  },
  {
    method: 'get',
    path: '/readyz',
    tag: OPS,
    summary: 'Readiness: identity, notification and kyc answer their health checks',
    access: 'public',
    local: true,
    ok: json(readinessAnswer, 'Ready.'),
    errors: { 503: [] },
  },
];

const PARAMS: Record<string, string> = {
  verificationToken: 'The token of the emailed verification link.',
  resetToken: 'The token of the emailed reset link.',
  email: 'The account’s email address.',
  id: 'The id of the user, investment or withdrawal (a claim: of the deposit, investment, withdrawal, or for kyc the user).',
  kind: 'What is claimed: `deposit`, `investment`, `withdrawal` or `kyc`.',
  userId: 'The owner’s user id.',
  side: '`front` or `back`.',
  transactionId: 'The deposit id.',
};

/** `/a/:b/c` -> `/a/{b}/c`. */
export const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const UNSAFE: ReadonlySet<HttpMethod> = new Set(['post', 'put', 'patch', 'delete']);

export interface DocumentOptions {
  /** Production leaves out the routes that exist only in development. */
  production: boolean;
  /** Whether the money routes are mounted. */
  money: boolean;
}

/** The routes mounted with these options. */
export function routesFor(options: DocumentOptions): RouteDoc[] {
  return ROUTES.filter((r) => !(r.devOnly && options.production) && !(r.money && !options.money));
}

/** Error answers and their documented messages of one route, by status (its own plus the cross-cutting ones). */
export function errorMessagesOf(route: RouteDoc): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const add = (status: number, ...messages: string[]) =>
    out.set(status, [...new Set([...(out.get(status) ?? []), ...messages])]);
  for (const [status, messages] of Object.entries(route.errors ?? {}))
    add(Number(status), ...(messages ?? []));
  if (route.body) add(400, INVALID_BODY, MALFORMED_JSON);
  if (route.body) add(413, BODY_TOO_LARGE);
  // the money commands (deposit, invest, withdraw, balance edits) take an Idempotency-Key, and are refused
  // while an admin impersonates a user
  if (route.idempotencyKey) add(400, MONEY_MESSAGES.idempotencyKey);
  if (route.idempotencyKey) add(403, MAKER_CHECKER.impersonating);
  if (route.access !== 'public') add(401, NOT_LOGGED_IN);
  if (route.access === 'admin') add(403, NOT_ADMIN);
  if (UNSAFE.has(route.method)) add(403, INVALID_CSRF);
  if (route.rateLimit) add(429, TOO_MANY_REQUESTS);
  if (!route.local) {
    add(500, SOMETHING_WENT_WRONG);
    add(503, SERVICE_UNAVAILABLE);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Refused: the request is not valid.',
  401: 'Not signed in, or the session ended.',
  403: 'Not allowed (role, owner, or the CSRF check).',
  404: 'Not found.',
  409: 'Already decided, already exists, or the review claim of the item is not the caller’s.',
  413: 'The body is too large: JSON over 100 kb, a KYC upload over two documents.',
  429: 'Over a rate limit; see Retry-After.',
  500: 'An unexpected error (never a stack trace).',
  503: 'A service the route needs is not answering.',
};

type JsonSchema = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;

/** JSON Schemas of a registry, each as an OpenAPI component (cross references between them kept). */
function componentsOf(registry: typeof answerRegistry, io: 'input' | 'output') {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: REF,
    // the amount is checked by code (a string, or a finite JSON number): say so
    override: (ctx) => {
      if (ctx.zodSchema === amountField)
        Object.assign(ctx.jsonSchema, { anyOf: [{ type: 'string' }, { type: 'number' }] });
      const description = registry.get(ctx.zodSchema)?.description;
      if (description) ctx.jsonSchema.description = description;
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => {
      const { $schema: _s, $id: _i, ...rest } = s as JsonSchema;
      return [id, rest];
    }),
  );
}

/** `/api/users/verifyUser/:verificationToken` -> `UsersVerifyUserVerificationToken`. */
const pathName = (route: RouteDoc) =>
  route.path
    .replace(/^\/api\//, '')
    .split(/[/:.-]+/)
    .filter(Boolean)
    .map(capitalized)
    .join('');

/** Body components are named after the schemas' own names: `register` -> `RegisterBody`. */
const BODY_NAMES = new Map<z.ZodType, string>(
  Object.entries({ ...schemas, ...moneySchemas, ...claimSchemas }).map(([name, schema]) => [
    schema as z.ZodType,
    `${capitalized(name)}Body`,
  ]),
);

/** The OpenAPI 3.1 document of the routes mounted with `options`. */
export function buildOpenApiDocument(options: DocumentOptions): Record<string, unknown> {
  const routes = routesFor(options);
  // Request bodies: one component per schema (validation.ts `schemas`, moneyRoutes.ts `moneySchemas`).
  const bodies = z.registry<{ id: string; description?: string }>();
  bodies.add(amountField, {
    id: 'Amount',
    description: 'Dollars as text or a JSON number, at most 2 decimals ("250", "99.95", 250).',
  });
  for (const r of routes) {
    if (!r.body || bodies.has(r.body)) continue;
    const id = BODY_NAMES.get(r.body);
    if (!id) throw new Error(`the body of ${r.method} ${r.path} is not one of the named request schemas`);
    bodies.add(r.body, { id });
  }
  // Answers: the named ones (answers.ts), and any other a route answers with, inline.
  const components: Record<string, JsonSchema> = {
    ...componentsOf(answerRegistry, 'output'),
    ...componentsOf(bodies, 'input'),
  };
  const answerSchema = (schema: z.ZodType): JsonSchema => {
    const id = answerRegistry.get(schema)?.id;
    if (id) return { $ref: REF(id) };
    const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'output',
      unrepresentable: 'any',
      metadata: answerRegistry,
      reused: 'inline',
    }) as JsonSchema;
    return rewriteDefs(rest);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      description: PARAMS[m[1]!] ?? m[1],
      schema: { type: 'string' },
    }));
    for (const [name, description] of Object.entries(route.query ?? {}))
      params.push({ name, in: 'query', required: false, description, schema: { type: 'string' } });
    const headers: unknown[] = [];
    if (route.idempotencyKey)
      headers.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          "A retry with the same key and payload has one effect (1-100 letters, digits or . _ : -). The key is the caller's own: it never names another user's or another operation's request.",
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' },
      });
    if (UNSAFE.has(route.method))
      headers.push({
        name: 'X-XSRF-TOKEN',
        in: 'header',
        required: false,
        description:
          'The XSRF-TOKEN cookie’s value. Needed when the request carries neither an Origin nor a Referer naming one of our origins.',
        schema: { type: 'string' },
      });

    const ok = route.ok;
    const responses: Record<string, unknown> = {
      [String(route.status ?? 200)]: {
        description: ok.description,
        ...(route.okHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(route.okHeaders).map(([name, description]) => [
                  name,
                  { description, schema: { type: 'string' } },
                ]),
              ),
            }
          : {}),
        content: ok.media
          ? { [ok.media.type]: { schema: ok.media.schema } }
          : { 'application/json': { schema: answerSchema(ok.schema!) } },
      },
    };
    for (const [status, messages] of errorMessagesOf(route)) {
      if (status === 503 && route.path === '/readyz') {
        responses['503'] = {
          description: 'Not ready: a service does not answer.',
          content: { 'application/json': { schema: { $ref: REF('Readiness') } } },
        };
        continue;
      }
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error.',
        ...(status === 429
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        content: {
          'application/json': {
            schema: { $ref: REF('Message') },
            examples: Object.fromEntries(messages.map((m, i) => [`e${i + 1}`, { value: { message: m } }])),
          },
        },
      };
    }

    const operation: Record<string, unknown> = {
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      operationId: `${route.method}${pathName(route)}`,
      ...(params.length + headers.length > 0 ? { parameters: [...params, ...headers] } : {}),
      ...(route.access === 'public' ? { security: [] } : { security: [{ session: [] }, { bearer: [] }] }),
      'x-access': route.access,
      ...(route.rateLimit ? { 'x-rate-limit': route.rateLimit } : {}),
      responses,
    };
    if (route.body)
      operation.requestBody = {
        required: false,
        content: { 'application/json': { schema: { $ref: REF(bodies.get(route.body)!.id) } } },
      };
    if (route.files)
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: route.files,
              properties: Object.fromEntries(
                route.files.map((f) => [f, { type: 'string', contentMediaType: 'application/octet-stream' }]),
              ),
            },
          },
        },
      };
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Meridian API',
      version: '1.0.0',
      description: [
        'The REST API of the Meridian gateway. Money is in dollars (JSON numbers, at most 2 decimals); every error',
        'answer is `{ "message": ... }`. Sessions are the `meridian_session` cookie (or `Authorization: Bearer`).',
        'State-changing requests (POST, PUT, PATCH, DELETE) pass the CSRF check when their Origin (or Referer)',
        'names one of our origins, or when they send `X-XSRF-TOKEN` equal to the `XSRF-TOKEN` cookie; a request',
        'marked `Sec-Fetch-Site: cross-site` or from a foreign origin is refused. CORS (with credentials) is',
        'open to the origins of CORS_ORIGINS only.',
      ].join(' '),
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'meridian_session' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The session token.' },
      },
    },
  };
}

/** Inline conversions keep named schemas as `#/$defs/<id>`: point them at the components instead. */
function rewriteDefs(schema: JsonSchema): JsonSchema {
  const { $defs: _defs, ...rest } = schema;
  return JSON.parse(
    JSON.stringify(rest).replace(/"#\/\$defs\/([^"]+)"/g, (_m, id: string) => `"${REF(id)}"`),
  );
}
