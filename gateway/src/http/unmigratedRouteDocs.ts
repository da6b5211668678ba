/**
 * The OpenAPI side of the money routes not yet declared in a route table (routeTable.ts); those of the
 * support chat are in unmigratedSupportDocs.ts. openapi.ts merges them with the tables' routes. A route
 * moves from here into its router module's table.
 */
import { z } from 'zod';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/app/heldRequest/domain/makerChecker';
import { MONEY_MESSAGES as AMOUNT_MESSAGES } from '@meridian/platform/money/money';
import { moneyAnswers, planAnswer, balancesAnswer, withdrawalDetailAnswer, claimAnswers } from './answers.js';
import { CLAIM_MESSAGES } from '../live/claims.js';
import { claimSchemas } from '../live/claimsRoutes.js';
import { MONEY_MESSAGES, moneySchemas } from './moneyRoutes.js';
import { ALL_FIELDS_REQUIRED, mustBeString } from './refusals.js';
import { TAGS, json, type RouteDoc } from './routeTable.js';
import { CLAIM_REFUSALS, CLAIM_RULE, paged } from './routeDocs.js';

const PAYMENTS = TAGS.deposits;
const INVEST = TAGS.investments;
const WITHDRAW = TAGS.withdrawals;
const BALANCES = TAGS.balances;
const CLAIMS = TAGS.claims;

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

/** The routes whose declaration is not in a route table yet, as the OpenAPI document states them. */
export const UNMIGRATED_ROUTE_DOCS: RouteDoc[] = [
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
];
