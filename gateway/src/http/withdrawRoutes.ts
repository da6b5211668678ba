/**
 * The withdrawal paths of spec §7, api/withDraw/* (the withdrawal service), and the three admin balance
 * edits under api/users (the ledger's AdjustBalance), declared in the route table (routeTable.ts).
 *
 * Balance edits (agreed with web/src/features/balances/EditBalancePage.tsx, spec route order):
 *   PUT users/updateDepositBalance/{id}  -> Total Profit     (totalMaturityAmount, ledger account profit)
 *   PUT users/editDepositBalance/{id}    -> Deposit Balance  (balance,             ledger account deposit)
 *   PUT users/editinvestmentBalance/{id} -> Total Investment (investmentBalance,   ledger account invested)
 */
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/domain/makerChecker';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { balancesAnswer, moneyAnswers, withdrawalDetailAnswer } from './answers.js';
import { balancesJson, withdrawalJson } from './moneyViews.js';
import { parseTokenParam } from './validation.js';
import { ALL_FIELDS_REQUIRED, INVALID_USER_ID } from './refusals.js';
import { TAGS, json, route, type Route } from './routeTable.js';
import {
  MONEY_MESSAGES,
  amountRefusals,
  heldRecord,
  heldRequestCreate,
  heldRequestDecisions,
  idempotencyKeyOf,
  moneySchemas,
  pendingQueue,
  type MoneyContext,
} from './moneyRequests.js';

export const WITHDRAW_ROUTES: Route<MoneyContext>[] = [
  heldRequestCreate(
    'withdrawal',
    {
      path: '/api/withDraw/create',
      tag: TAGS.withdrawals,
      summary: 'Request a withdrawal',
      description: 'Needs a verified email and approved KYC; the amount is held until an admin decides.',
      body: moneySchemas.withdraw,
      ok: json(moneyAnswers.withdrawalOutcome, 'Requested; pending approval.'),
      errors: {
        400: amountRefusals(
          [ALL_FIELDS_REQUIRED],
          [
            'Please verify your email before requesting a withdrawal',
            'Your KYC verification must be approved before you can withdraw',
            'Minimum withdrawal amount is $50',
            'Insufficient balance',
            'Please enter a valid wallet address',
          ],
        ),
      },
    },
    ({ money, caller }, body, user, withdrawalId, call, res) =>
      call(
        money.withdrawal,
        'requestWithdrawal',
        wd.RequestWithdrawalRequest.fromPartial({
          ...caller(res),
          callerVerified: user.isVerified,
          callerKycStatus: user.kycStatus,
          ...body,
          withdrawalId,
        }),
      ),
    (out) => (out.withdrawal ? withdrawalJson(out.withdrawal) : null),
  ),
  {
    method: 'get',
    path: '/api/withDraw/balance',
    tag: TAGS.withdrawals,
    summary: "The caller's balances",
    description: '`totalMaturityAmount` is what can be withdrawn.',
    access: 'user',
    money: true,
    ok: json(balancesAnswer, 'The balances.'),
    handler:
      ({ ownBalances }) =>
      async (req, res) => {
        res.json(balancesJson(await ownBalances(req, res)));
      },
  },
  pendingQueue(
    {
      path: '/api/withDraw/pending',
      tag: TAGS.withdrawals,
      summary: 'Withdrawals waiting for approval',
      ok: json(moneyAnswers.pendingWithdrawals, 'The pending withdrawals.'),
    },
    ({ money }, page, call) => call(money.withdrawal, 'listPending', page),
    (out) => ({
      message: MONEY_MESSAGES.pendingWithdrawals,
      withdrawals: out.withdrawals.map((w) => withdrawalJson(w)),
    }),
  ),
  heldRecord(
    'withdrawal',
    {
      path: '/api/withDraw/get-withdrawal/:id',
      tag: TAGS.withdrawals,
      summary: 'One withdrawal',
      ok: json(withdrawalDetailAnswer, 'The withdrawal.'),
    },
    ({ money }, caller, withdrawalId, call) =>
      call(
        money.withdrawal,
        'getWithdrawal',
        wd.GetWithdrawalRequest.fromPartial({ ...caller, withdrawalId }),
      ),
    (w) => withdrawalJson(w, 'detail'),
  ),
  ...heldRequestDecisions(
    'withdrawal',
    (d) => `/api/withDraw/${d}/:id`,
    TAGS.withdrawals,
    moneyAnswers.withdrawalOutcome,
    ({ money, caller }, decision, withdrawalId, call, res) => {
      const request = wd.DecideWithdrawalRequest.fromPartial({ ...caller(res), withdrawalId });
      return decision === 'approve'
        ? call(money.withdrawal, 'approveWithdrawal', request)
        : call(money.withdrawal, 'rejectWithdrawal', request);
    },
    (out) => (out.withdrawal ? withdrawalJson(out.withdrawal) : null),
  ),
];

/** The admin balance edits: the path's name, the account as the spec names it, the ledger's account. */
const BALANCE_EDITS = [
  ['updateDepositBalance', 'Total Profit (totalMaturityAmount)', lg.BalanceAccount.BALANCE_ACCOUNT_PROFIT],
  ['editDepositBalance', 'Deposit Balance (balance)', lg.BalanceAccount.BALANCE_ACCOUNT_DEPOSIT],
  [
    'editinvestmentBalance',
    'Total Investment (investmentBalance)',
    lg.BalanceAccount.BALANCE_ACCOUNT_INVESTED,
  ],
] as const;

export const BALANCE_EDIT_ROUTES: Route<MoneyContext>[] = BALANCE_EDITS.map(
  ([name, accountName, account]): Route<MoneyContext> =>
    route({
      method: 'put',
      path: `/api/users/${name}/:id`,
      tag: TAGS.balances,
      summary: `Add to or deduct from a user's ${accountName}`,
      access: 'adminMoney',
      money: true,
      body: moneySchemas.adjust,
      idempotencyKey: true,
      ok: json(moneyAnswers.balanceEdit, "The user's balances after the edit."),
      errors: {
        400: amountRefusals(
          [MONEY_MESSAGES.operation],
          [INVALID_USER_ID, 'Insufficient balance for this deduction'],
        ),
        403: [MAKER_CHECKER.ownBalances],
        404: ['User not found'],
      },
      params: (p) => parseTokenParam(p.id, INVALID_USER_ID),
      handler: async ({ money, caller }, { params: userId, body, call }, req, res) => {
        const out = await call(
          money.ledger,
          'adjustBalance',
          lg.AdjustBalanceRequest.fromPartial({
            ...caller(res),
            userId,
            account,
            operation:
              body.operation === 'add'
                ? lg.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD
                : lg.AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT,
            amount: body.amount,
            reason: body.reason ?? '',
            idempotencyKey: idempotencyKeyOf(req, res, 'adjust'),
          }),
        );
        return { message: MONEY_MESSAGES.balanceUpdated, userId, ...balancesJson(out) };
      },
    }),
);
