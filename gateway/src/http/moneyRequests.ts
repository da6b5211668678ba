/**
 * What the money routes (paymentRoutes.ts, investRoutes.ts, withdrawRoutes.ts, gathered in moneyRoutes.ts)
 * share: their refusal messages, body schemas, the Idempotency-Key of a money command, and the context their
 * handlers run with (the caller as the services see it, identity's view of the user, a deposit address
 * support gave them).
 *
 * Amounts: the browser's text or number goes to the owning service as text, which applies the money
 * rules (> 0, at most 2 decimals, bounds); anything else (objects such as {"$gt": ""}, arrays, booleans)
 * is a 400 here and never reaches a service. Answers speak dollars (cents / 100).
 */
import type { Request, Response } from 'express';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/domain/makerChecker';
import { MONEY_MESSAGES as AMOUNT_MESSAGES } from '@meridian/platform/money/money';
import { sha256Hex } from '@meridian/platform/crypto';
import { z } from 'zod';
import { QueuePageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import type { GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import type { ClaimKind, Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import { sessionOf, type Auth, type Session } from './auth.js';
import { HttpError, toHttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { optionalString, parseTokenParam, requiredString } from './validation.js';
import { ALL_FIELDS_REQUIRED } from './refusals.js';
import { json, route, type Answer, type AnswerOf, type RequestCall, type Route } from './routeTable.js';
import { CLAIM_REFUSALS, CLAIM_RULE, paged } from './routeDocs.js';
import { pageParams, setNextCursor } from './pages.js';

export interface MoneyRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  money: MoneyClients;
  auth: Auth;
  /** A decision needs the deciding admin's claim on the item (live/claims.ts). */
  claims: Claims;
  /** Checks a declaration's deposit address was given to the user by support (absent: none can be named). */
  support?: sp.SupportServiceClient;
}

export const MONEY_MESSAGES = {
  amountRequired: 'Please enter an amount',
  amountType: 'amount must be a number',
  depositCreated:
    'Deposit request submitted successfully. Your balance will be updated once it is confirmed.',
  paymentConfirmed: 'Payment confirmed successfully',
  paymentRejected: 'Payment rejected successfully',
  pendingDeposits: 'Pending deposits fetched successfully!',
  pendingWithdrawals: 'Pending withdrawals fetched successfully',
  statusMismatch: 'The status does not match this action',
  operation: 'Operation must be add or deduct',
  balanceUpdated: 'Balance updated successfully',
  invalidId: 'Invalid id',
  idempotencyKey: 'Idempotency-Key must be 1-100 letters, digits or . _ : -',
  addressNotGiven: 'This deposit address was not given to you in your support conversation',
} as const;

/**
 * An amount as typed: a string, or a finite JSON number (sent on as its shortest decimal text, so 0.1
 * stays "0.1" and 1.005 stays "1.005", which the service refuses for its 3 decimals).
 */
export const amountField = z
  .unknown()
  .refine((v) => v !== undefined && v !== null && v !== '', MONEY_MESSAGES.amountRequired)
  .refine(
    (v) =>
      v === undefined ||
      v === null ||
      v === '' ||
      typeof v === 'string' ||
      (typeof v === 'number' && Number.isFinite(v)),
    MONEY_MESSAGES.amountType,
  )
  .transform((v) => (typeof v === 'number' ? String(v) : String(v).trim()))
  .refine((v) => v.length > 0 && v.length <= 32, MONEY_MESSAGES.amountRequired);

/**
 * The 400s of a money command with an amount, in the order the document lists them: the route's own
 * `before` the amount's presence and type, then `after` them, then the money rules the service applies.
 */
export const amountRefusals = (before: string[], after: string[]): string[] => [
  ...before,
  MONEY_MESSAGES.amountRequired,
  MONEY_MESSAGES.amountType,
  ...after,
  ...Object.values(AMOUNT_MESSAGES),
];

/** Body schemas of the money routes (also the request bodies of the OpenAPI document). */
export const moneySchemas = {
  deposit: z.object({ amount: amountField, addressId: optionalString(100) }),
  decidePayment: z.object({
    transactionId: requiredString(ALL_FIELDS_REQUIRED, 100),
    status: optionalString(20),
    notes: optionalString(500),
  }),
  startInvest: z.object({
    amount: amountField,
    planName: requiredString('Please select an investment plan.', 100),
  }),
  withdraw: z.object({ amount: amountField, walletAddress: requiredString(ALL_FIELDS_REQUIRED, 200) }),
  adjust: z.object({
    operation: optionalString(10)
      .transform((v) => (v === undefined || v === '' ? 'add' : v.toLowerCase()))
      .refine((v) => v === 'add' || v === 'deduct', MONEY_MESSAGES.operation),
    amount: amountField,
    reason: optionalString(500),
  }),
};

/** A money record's id (a path parameter, or a body field naming one): else 400 'Invalid id'. */
export const moneyId = (v: unknown) => parseTokenParam(v, MONEY_MESSAGES.invalidId);

/** The money commands a user's Idempotency-Key is namespaced by. */
type KeyedOperation = 'deposit' | 'invest' | 'withdraw' | 'adjust';

/**
 * Optional `Idempotency-Key` header: a retry with the same key and payload has one effect. The key is the
 * caller's own, so it never reaches a service as typed: it becomes `user.<operation>.<sha256 of user,
 * operation and key>`, which can never be one of the ledger's own keys
 * (`capture:<id>`, `deposit:<id>`…), another operation's or another user's request id, and is a valid id
 * in the paths (letters, digits and dots; 78 characters at most).
 */
export function idempotencyKeyOf(req: Request, res: Response, operation: KeyedOperation): string {
  const key = req.get('idempotency-key');
  if (key === undefined || key === '') return '';
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(key)) throw new HttpError(400, MONEY_MESSAGES.idempotencyKey);
  const userId = sessionOf(res).caller.userId;
  return `user.${operation}.${sha256Hex(JSON.stringify([userId, operation, key]))}`;
}

/** What the money routes' handlers run with, prepared once per app. */
export function moneyContext({ config, identity, money, auth, claims, support }: MoneyRouteDeps) {
  const ctx = ctxOf(config);
  const caller = (res: Response) => {
    const s: Session = sessionOf(res);
    return { caller: s.caller, callerRole: s.principal.role };
  };
  /** Verified email and KYC status for the money rules: identity's user view, never the request. */
  const userFacts = async (req: Request, res: Response) =>
    callUnary(
      identity,
      'getUser',
      id.GetUserRequest.fromPartial({ caller: sessionOf(res).caller }),
      ctx(req),
    );
  /** A deposit address support gave the caller in their conversation (else 400: the declaration is refused). */
  const givenAddress = async (req: Request, res: Response, addressId: string) => {
    if (!support || !/^[A-Za-z0-9._:-]{1,100}$/.test(addressId))
      throw new HttpError(400, MONEY_MESSAGES.addressNotGiven);
    try {
      const a = await callUnary(
        support,
        'getGivenAddress',
        sp.GetGivenAddressRequest.fromPartial({ userId: sessionOf(res).caller.userId, addressId }),
        ctx(req),
      );
      return { network: a.network, address: a.address, addressId: a.addressId };
    } catch (err) {
      if (toHttpError(err).status === 404) throw new HttpError(400, MONEY_MESSAGES.addressNotGiven);
      throw err;
    }
  };
  /** The caller's balances as the ledger answers them. */
  const ownBalances = (req: Request, res: Response) =>
    callUnary(
      money.ledger,
      'getBalances',
      lg.GetBalancesRequest.fromPartial({ ...caller(res), userId: sessionOf(res).caller?.userId ?? '' }),
      ctx(req),
    );
  /**
   * An admin's decision on a held item: made under the deciding admin's claim on it (409 when another
   * admin holds it), with the service call of the decision.
   */
  const decide = <T>(res: Response, kind: ClaimKind, itemId: string, call: () => Promise<T>) =>
    claims.decide(kind, itemId, claimAdminOf(res), call);
  return { auth, money, ctx, caller, userFacts, givenAddress, ownBalances, decide };
}

export type MoneyContext = ReturnType<typeof moneyContext>;

const capitalized = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/**
 * GET of an admin queue (deposits, investments, withdrawals waiting for a decision), paged oldest first:
 * `list` asks the owning service for `page` (the request every admin queue takes: the admin as the caller,
 * the page's limit and cursor) with the request's `call`, the next page's cursor goes in X-Next-Cursor, and
 * `answer` is the body.
 */
export const pendingQueue = <Out extends { nextCursor: string }>(
  doc: Pick<Route<MoneyContext>, 'path' | 'tag' | 'summary' | 'ok'>,
  list: (c: MoneyContext, page: QueuePageRequest, call: RequestCall) => Promise<Out>,
  answer: (out: Out, c: MoneyContext, call: RequestCall, res: Response) => unknown,
): Route<MoneyContext> =>
  route({
    method: 'get',
    ...doc,
    ...paged('oldest first'),
    access: 'admin',
    money: true,
    handler: async (c, { call }, req, res) => {
      const out = await list(c, QueuePageRequest.fromPartial({ ...c.caller(res), ...pageParams(req) }), call);
      setNextCursor(res, out.nextCursor);
      res.json(await answer(out, c, call, res));
    },
  });

/** A record's read by the caller: what `caller` of the money context answers, the parsed path, the call. */
type RecordRead<P, Out> = (
  c: MoneyContext,
  caller: ReturnType<MoneyContext['caller']>,
  params: P,
  call: RequestCall,
) => Promise<Out>;

/**
 * GET of one money record (a deposit, an investment, a withdrawal) by the id in its path, to its owner or
 * an admin: `params` parses the path, `read` asks the owning service for the record as the caller with the
 * request's `call`, and `answer` is the body, sent through the route's `ok` schema.
 */
export const ownedRecord = <P, O extends Answer, Out>(
  doc: Pick<Route<MoneyContext>, 'path' | 'tag' | 'summary' | 'errors'> & {
    ok: O;
    params: (raw: Request['params']) => P;
  },
  read: RecordRead<P, Out>,
  answer: (out: Out) => AnswerOf<O>,
): Route<MoneyContext> =>
  route({
    method: 'get',
    ...doc,
    description: 'To its owner or an admin.',
    access: 'user',
    money: true,
    handler: async (c, { params, call }, _req, res) => answer(await read(c, c.caller(res), params, call)),
  });

/**
 * GET of one held-money request (an investment, a withdrawal) by the id in its path (`:id`), to its owner or
 * an admin (ownedRecord); `read` gets the id.
 */
export const heldRecord = <O extends Answer, Out>(
  record: 'investment' | 'withdrawal',
  doc: Pick<Route<MoneyContext>, 'path' | 'tag' | 'summary'> & { ok: O },
  read: RecordRead<string, Out>,
  answer: (out: Out) => AnswerOf<O>,
): Route<MoneyContext> =>
  ownedRecord(
    {
      ...doc,
      errors: { 400: [MONEY_MESSAGES.invalidId], 404: [`${capitalized(record)} not found`] },
      params: (p) => moneyId(p.id),
    },
    read,
    answer,
  );

/**
 * POST of a held-money request (an investment, a withdrawal) by its user: the body (parsed by the table),
 * identity's facts about the user (never the request's), the Idempotency-Key as the request's id; `command`
 * is the service's command (made with the request's `call`), the answer (201) its message and the record
 * (`view`) under the record's name.
 */
export const heldRequestCreate = <S extends z.ZodType, Out extends { message: string }>(
  record: 'investment' | 'withdrawal',
  doc: Pick<Route<MoneyContext>, 'path' | 'tag' | 'summary' | 'description' | 'ok' | 'errors'> & {
    body: S;
  },
  command: (
    c: MoneyContext,
    body: z.output<S>,
    user: { isVerified: boolean; kycStatus: string },
    requestId: string,
    call: RequestCall,
    res: Response,
  ) => Promise<Out>,
  view: (out: Out) => unknown,
): Route<MoneyContext> =>
  route({
    method: 'post',
    ...doc,
    access: 'userMoney',
    money: true,
    idempotencyKey: true,
    status: 201,
    handler: async (c, { body, call }, req, res) => {
      const user = await c.userFacts(req, res);
      const requestId = idempotencyKeyOf(req, res, record === 'investment' ? 'invest' : 'withdraw');
      const out = await command(c, body, user, requestId, call, res);
      res.status(201).json({ message: out.message, [record]: view(out) });
    },
  });

/**
 * PUT approve / reject of a held-money request (an investment, a withdrawal): decided once, under the
 * deciding admin's claim on it (the id in the path parsed by the table). `command` is the service's decision
 * (made with the request's `call`); the answer is its message and the record (`view`) under the record's name.
 */
export const heldRequestDecisions = <Out extends { message: string }>(
  record: 'investment' | 'withdrawal',
  path: (decision: 'approve' | 'reject') => string,
  tag: string,
  answer: z.ZodType,
  command: (
    c: MoneyContext,
    decision: 'approve' | 'reject',
    itemId: string,
    call: RequestCall,
    res: Response,
  ) => Promise<Out>,
  view: (out: Out) => unknown,
): Route<MoneyContext>[] =>
  (['approve', 'reject'] as const).map((decision) =>
    route({
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
      params: (p) => moneyId(p.id),
      handler: async (c, { params: itemId, call }, _req, res) => {
        const out = await c.decide(res, record, itemId, () => command(c, decision, itemId, call, res));
        res.json({ message: out.message, [record]: view(out) });
      },
    }),
  );
