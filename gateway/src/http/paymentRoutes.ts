/**
 * The deposit paths of spec §7, api/payments/* (the ledger's deposits), declared in the route table
 * (routeTable.ts): a user's deposit request and its status, and the admins' pending list and decisions.
 */
import type { Request, Response } from 'express';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/domain/makerChecker';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import { callUnary } from '../grpcClients.js';
import { moneyAnswers } from './answers.js';
import { HttpError } from './errors.js';
import { depositJson } from './moneyViews.js';
import { parseBody, parseTokenParam } from './validation.js';
import { ALL_FIELDS_REQUIRED } from './refusals.js';
import { TAGS, json, type Route } from './routeTable.js';
import { CLAIM_REFUSALS, CLAIM_RULE } from './routeDocs.js';
import {
  MONEY_MESSAGES,
  amountRefusals,
  idempotencyKeyOf,
  moneySchemas,
  pendingQueue,
  type MoneyContext,
} from './moneyRequests.js';

const decidePayment =
  (decision: 'confirm' | 'reject') =>
  ({ money, ctx, caller, idParam, decide }: MoneyContext) =>
    async function decidePaymentOf(req: Request, res: Response) {
      const b = parseBody(moneySchemas.decidePayment, req.body);
      const expected = decision === 'confirm' ? 'Confirmed' : 'Rejected';
      if (b.status && b.status !== expected) throw new HttpError(400, MONEY_MESSAGES.statusMismatch);
      const request = lg.DecideDepositRequest.fromPartial({
        ...caller(res),
        depositId: idParam(b.transactionId),
        notes: b.notes ?? '',
      });
      const d = await decide(res, 'deposit', request.depositId, () =>
        decision === 'confirm'
          ? callUnary(money.ledger, 'confirmDeposit', request, ctx(req))
          : callUnary(money.ledger, 'rejectDeposit', request, ctx(req)),
      );
      res.json({
        message: decision === 'confirm' ? MONEY_MESSAGES.paymentConfirmed : MONEY_MESSAGES.paymentRejected,
        transaction: depositJson(d),
      });
    };

export const PAYMENT_ROUTES: Route<MoneyContext>[] = [
  {
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
    handler:
      ({ money, ctx, caller, userFacts, givenAddress }) =>
      async (req, res) => {
        const b = parseBody(moneySchemas.deposit, req.body);
        const user = await userFacts(req, res);
        const sentTo = b.addressId ? await givenAddress(req, res, b.addressId) : undefined;
        const d = await callUnary(
          money.ledger,
          'createDeposit',
          lg.CreateDepositRequest.fromPartial({
            ...caller(res),
            amount: b.amount,
            emailVerified: user.isVerified,
            idempotencyKey: idempotencyKeyOf(req, res, 'deposit'),
            ...sentTo,
          }),
          ctx(req),
        );
        res.status(201).json({
          message: MONEY_MESSAGES.depositCreated,
          transactionId: d.depositId,
          transaction: depositJson(d),
        });
      },
  },
  {
    method: 'get',
    path: '/api/payments/viewPaymentStatus/:transactionId',
    tag: TAGS.deposits,
    summary: 'One deposit',
    description: 'To its owner or an admin.',
    access: 'user',
    money: true,
    ok: json(moneyAnswers.paymentStatus, 'The deposit.'),
    errors: { 400: ['Transaction ID is missing!'], 404: ['Deposit not found'] },
    handler:
      ({ money, ctx, caller }) =>
      async (req, res) => {
        const d = await callUnary(
          money.ledger,
          'getDeposit',
          lg.GetDepositRequest.fromPartial({
            ...caller(res),
            depositId: parseTokenParam(req.params.transactionId, 'Transaction ID is missing!'),
          }),
          ctx(req),
        );
        res.json({ transaction: depositJson(d) });
      },
  },
  pendingQueue(
    {
      path: '/api/payments/pending-deposit',
      tag: TAGS.deposits,
      summary: 'Deposits waiting for confirmation, oldest first',
      ok: json(moneyAnswers.pendingDeposits, 'The pending deposits.'),
    },
    ({ money, ctx }, page, req) =>
      callUnary(
        money.ledger,
        'listPendingDeposits',
        lg.ListPendingDepositsRequest.fromPartial(page),
        ctx(req),
      ),
    (out) => ({ message: MONEY_MESSAGES.pendingDeposits, deposit: out.deposits.map(depositJson) }),
  ),
  ...(['confirm', 'reject'] as const).map((decision): Route<MoneyContext> => ({
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
  })),
];
