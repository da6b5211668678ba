/**
 * The deposit paths of spec §7, api/payments/* (the ledger's deposits), declared in the route table
 * (routeTable.ts): a user's deposit request and its status, and the admins' pending list and decisions.
 */
import type { Request, Response } from 'express';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/domain/makerChecker';
import type { z } from 'zod';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import { moneyAnswers } from './answers.js';
import { HttpError } from './errors.js';
import { depositJson } from './moneyViews.js';
import { parseTokenParam } from './validation.js';
import { ALL_FIELDS_REQUIRED } from './refusals.js';
import { TAGS, json, route, type Route, type RouteInput } from './routeTable.js';
import { CLAIM_REFUSALS, CLAIM_RULE } from './routeDocs.js';
import {
  MONEY_MESSAGES,
  amountRefusals,
  idempotencyKeyOf,
  moneyId,
  moneySchemas,
  ownedRecord,
  pendingQueue,
  type MoneyContext,
} from './moneyRequests.js';

const decidePayment =
  (decision: 'confirm' | 'reject') =>
  async (
    { money, caller, decide }: MoneyContext,
    { body, call }: RouteInput<z.output<typeof moneySchemas.decidePayment>, undefined>,
    _req: Request,
    res: Response,
  ) => {
    const expected = decision === 'confirm' ? 'Confirmed' : 'Rejected';
    if (body.status && body.status !== expected) throw new HttpError(400, MONEY_MESSAGES.statusMismatch);
    const request = lg.DecideDepositRequest.fromPartial({
      ...caller(res),
      depositId: moneyId(body.transactionId),
      notes: body.notes ?? '',
    });
    const d = await decide(res, 'deposit', request.depositId, () =>
      decision === 'confirm'
        ? call(money.ledger, 'confirmDeposit', request)
        : call(money.ledger, 'rejectDeposit', request),
    );
    res.json({
      message: decision === 'confirm' ? MONEY_MESSAGES.paymentConfirmed : MONEY_MESSAGES.paymentRejected,
      transaction: depositJson(d),
    });
  };

export const PAYMENT_ROUTES: Route<MoneyContext>[] = [
  route({
    method: 'post',
    path: '/api/payments/create',
    tag: TAGS.deposits,
    summary: 'Request a deposit',
    access: 'userMoney',
    money: true,
    body: moneySchemas.deposit,
    idempotencyKey: true,
    status: 201,
    ok: json(moneyAnswers.depositCreated, 'Requested; pending confirmation.'),
    errors: {
      400: amountRefusals(
        [],
        [
          'Please verify your email before making a deposit',
          'Deposit amount must be greater than zero',
          'The maximum deposit is $1,000,000',
        ],
      ),
    },
    handler: async ({ money, caller, userFacts, givenAddress }, { body, call }, req, res) => {
      const user = await userFacts(req, res);
      const sentTo = body.addressId ? await givenAddress(req, res, body.addressId) : undefined;
      const d = await call(
        money.ledger,
        'createDeposit',
        lg.CreateDepositRequest.fromPartial({
          ...caller(res),
          amount: body.amount,
          emailVerified: user.isVerified,
          idempotencyKey: idempotencyKeyOf(req, res, 'deposit'),
          ...sentTo,
        }),
      );
      res.status(201).json({
        message: MONEY_MESSAGES.depositCreated,
        transactionId: d.depositId,
        transaction: depositJson(d),
      });
    },
  }),
  ownedRecord(
    {
      path: '/api/payments/viewPaymentStatus/:transactionId',
      tag: TAGS.deposits,
      summary: 'One deposit',
      ok: json(moneyAnswers.paymentStatus, 'The deposit.'),
      errors: { 400: ['Transaction ID is missing!'], 404: ['Deposit not found'] },
      params: (p) => ({ depositId: parseTokenParam(p.transactionId, 'Transaction ID is missing!') }),
    },
    ({ money }, caller, params, call) =>
      call(money.ledger, 'getDeposit', lg.GetDepositRequest.fromPartial({ ...caller, ...params })),
    (d) => ({ transaction: depositJson(d) }),
  ),
  pendingQueue(
    {
      path: '/api/payments/pending-deposit',
      tag: TAGS.deposits,
      summary: 'Deposits waiting for confirmation, oldest first',
      ok: json(moneyAnswers.pendingDeposits, 'The pending deposits.'),
    },
    ({ money }, page, call) => call(money.ledger, 'listPendingDeposits', page),
    (out) => ({ message: MONEY_MESSAGES.pendingDeposits, deposit: out.deposits.map(depositJson) }),
  ),
  ...(['confirm', 'reject'] as const).map((decision): Route<MoneyContext> =>
    route({
      method: 'patch',
      path: `/api/payments/${decision}Payment`,
      tag: TAGS.deposits,
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
      handler: decidePayment(decision),
    }),
  ),
];
