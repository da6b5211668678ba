/**
 * The investment paths of spec §7, api/invest/* (the investment service), declared in the route table
 * (routeTable.ts): the plans, a user's investments and history, and the admins' pending list and decisions.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { UserPageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import type * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { moneyAnswers, planAnswer } from './answers.js';
import type { DepositAnswer, InvestmentAnswer, WithdrawalAnswer } from './answers.js';
import { pageParams, setNextCursor } from './pages.js';
import { mergeHistoryPage } from './historyPages.js';
import { depositJson, investmentJson, planJson, withdrawalJson } from './moneyViews.js';
import { TAGS, json, route, type Route, type RouteInput } from './routeTable.js';
import { paged } from './routeDocs.js';
import {
  amountRefusals,
  heldRecord,
  heldRequestCreate,
  heldRequestDecisions,
  moneySchemas,
  pendingQueue,
  type MoneyContext,
} from './moneyRequests.js';

const byTimeDesc = (a: string | null | undefined, b: string | null | undefined) =>
  (Date.parse(b ?? '') || 0) - (Date.parse(a ?? '') || 0);

/** The caller's Deposit Balance (for `user.balance` on their own investments); undefined when the ledger cannot say. */
const ownBalanceCents = async (
  { ownBalances }: MoneyContext,
  req: Request,
  res: Response,
): Promise<number | undefined> => {
  try {
    return (await ownBalances(req, res)).depositCents;
  } catch {
    return undefined;
  }
};

/** A history item of each kind: its type, its view, and the time it is listed by. */
const depositItem = (d: lg.Deposit) => ({
  type: 'Transaction' as const,
  ...depositJson(d),
  timestamp: d.requestedAt,
});
const investmentItem = (i: inv.Investment) => {
  const j = investmentJson(i);
  return { type: 'Investment' as const, ...j, timestamp: j.startDate ?? j.createdAt };
};
const withdrawalItem = (w: wd.Withdrawal) => ({
  type: 'Withdrawal' as const,
  ...withdrawalJson(w),
  timestamp: w.requestDate,
});

/**
 * Without limit/cursor: the spec's whole history. With them: a page of the three lists merged newest first
 * (historyPages.ts), the next page's cursor in X-Next-Cursor; the body stays { history }.
 */
const transactionHistory = async (
  { money, caller }: MoneyContext,
  { call }: RouteInput<undefined, undefined>,
  req: Request,
  res: Response,
) => {
  const who = caller(res);
  const paging = pageParams(req);
  /** The caller's three lists, each asked with `list` (the caller's whole list, or a page of it). */
  const deposits = (list: UserPageRequest) => call(money.ledger, 'listUserDeposits', list);
  const investments = (list: UserPageRequest) => call(money.investment, 'investmentHistory', list);
  const withdrawals = (list: UserPageRequest) => call(money.withdrawal, 'listUserWithdrawals', list);
  /** One page of a list, as mergeHistoryPage asks for it. */
  const pageOf = (limit: number, cursor: string) => UserPageRequest.fromPartial({ ...who, limit, cursor });
  if (paging.limit !== undefined) {
    const asItems = <T, J>(
      list: { nextCursor: string; itemCursors: string[] },
      items: T[],
      view: (t: T) => J,
    ) => ({
      items: items.map(view),
      nextCursor: list.nextCursor,
      itemCursors: list.itemCursors,
    });
    type Item =
      | (DepositAnswer & { type: 'Transaction'; timestamp: string })
      | (InvestmentAnswer & { type: 'Investment'; timestamp: string | null })
      | (WithdrawalAnswer & { type: 'Withdrawal'; timestamp: string });
    const createdAt = (i: Item) => (i as { createdAt: string }).createdAt;
    const page = await mergeHistoryPage<Item>(
      [
        {
          fetch: async (cursor, limit) =>
            deposits(pageOf(limit, cursor)).then((out) => asItems(out, out.deposits, depositItem)),
          time: createdAt,
        },
        {
          fetch: async (cursor, limit) =>
            investments(pageOf(limit, cursor)).then((out) => asItems(out, out.investments, investmentItem)),
          time: createdAt,
        },
        {
          fetch: async (cursor, limit) =>
            withdrawals(pageOf(limit, cursor)).then((out) => asItems(out, out.withdrawals, withdrawalItem)),
          time: (i) => (i as { requestDate: string }).requestDate,
        },
      ],
      { limit: paging.limit, cursor: paging.cursor ?? '' },
    );
    setNextCursor(res, page.nextCursor);
    res.json({ history: page.items.map((i) => i.item) });
    return;
  }
  const whole = UserPageRequest.fromPartial(who);
  const [d, i, w] = await Promise.all([deposits(whole), investments(whole), withdrawals(whole)]);
  const items = [
    ...d.deposits.map(depositItem),
    ...i.investments.map(investmentItem),
    ...w.withdrawals.map(withdrawalItem),
  ].sort((a, b) => byTimeDesc(a.timestamp, b.timestamp));
  res.json({ history: items });
};

export const INVEST_ROUTES: Route<MoneyContext>[] = [
  route({
    method: 'get',
    path: '/api/invest/plans',
    tag: TAGS.investments,
    summary: 'The investment plans in force',
    description: 'The bare list (not wrapped in an object).',
    access: 'public',
    money: true,
    ok: json(z.array(planAnswer), 'The plans.'),
    // the bare list: the original client maps over the answer itself
    handler: async ({ money }, { call }) =>
      (await call(money.investment, 'listPlans', inv.ListPlansRequest.fromPartial({}))).plans.map(planJson),
  }),
  heldRequestCreate(
    'investment',
    {
      path: '/api/invest/start-invest',
      tag: TAGS.investments,
      summary: 'Request an investment',
      description: 'The amount is held from the Deposit Balance until an admin decides.',
      body: moneySchemas.startInvest,
      ok: json(moneyAnswers.investmentOutcome, 'Requested; pending approval.'),
      errors: {
        400: amountRefusals(
          ['Please select an investment plan.'],
          [
            'The selected investment plan does not exist',
            'The <plan> plan accepts amounts from <min> to <max>',
            'Please verify your email before investing',
            'Insufficient balance',
          ],
        ),
      },
    },
    ({ money, caller }, body, user, investmentId, call, res) =>
      call(
        money.investment,
        'startInvest',
        inv.StartInvestRequest.fromPartial({
          ...caller(res),
          callerVerified: user.isVerified,
          ...body,
          investmentId,
        }),
      ),
    (out) => (out.investment ? investmentJson(out.investment) : null),
  ),
  route({
    method: 'get',
    path: '/api/invest/investment-history',
    tag: TAGS.investments,
    summary: "The caller's investments",
    ...paged('newest first'),
    access: 'user',
    money: true,
    ok: json(moneyAnswers.investmentHistory, 'The investments.'),
    handler: async (c, { call }, req, res) => {
      const [out, balance] = await Promise.all([
        call(
          c.money.investment,
          'investmentHistory',
          UserPageRequest.fromPartial({ ...c.caller(res), ...pageParams(req) }),
        ),
        ownBalanceCents(c, req, res),
      ]);
      setNextCursor(res, out.nextCursor);
      return { investments: out.investments.map((i) => investmentJson(i, balance)) };
    },
  }),
  heldRecord(
    'investment',
    {
      path: '/api/invest/investment/:id',
      tag: TAGS.investments,
      summary: 'One investment',
      ok: json(moneyAnswers.investmentDetail, 'The investment.'),
    },
    ({ money }, caller, investmentId, call) =>
      call(
        money.investment,
        'getInvestment',
        inv.GetInvestmentRequest.fromPartial({ ...caller, investmentId }),
      ),
    (i) => ({ investment: investmentJson(i) }),
  ),
  pendingQueue(
    {
      path: '/api/invest/adminPendingInvestment',
      tag: TAGS.investments,
      summary: 'Investments waiting for approval',
      ok: json(
        moneyAnswers.pendingInvestments,
        'The pending investments, each with its projected maturityAmount.',
      ),
    },
    ({ money }, page, call) => call(money.investment, 'listPending', page),
    async (out, { money, caller }, call, res) => {
      // user.balance (spec §3): each investor's Deposit Balance, the page's investors in one ledger call
      const balances = new Map<string, number | undefined>();
      const userIds = [...new Set(out.investments.map((i) => i.userId))];
      if (userIds.length > 0)
        try {
          const b = await call(
            money.ledger,
            'listBalances',
            lg.ListBalancesRequest.fromPartial({ ...caller(res), userIds }),
          );
          b.balances.forEach((one, i) => balances.set(userIds[i]!, one.depositCents));
        } catch {
          // the list answers without the balances rather than not at all
        }
      return {
        pendingInvestments: out.investments.map((i) => investmentJson(i, balances.get(i.userId))),
      };
    },
  ),
  ...heldRequestDecisions(
    'investment',
    (d) => `/api/invest/:id/${d}`,
    TAGS.investments,
    moneyAnswers.investmentOutcome,
    ({ money, caller }, decision, investmentId, call, res) => {
      const request = inv.DecideInvestmentRequest.fromPartial({ ...caller(res), investmentId });
      return decision === 'approve'
        ? call(money.investment, 'approveInvestment', request)
        : call(money.investment, 'rejectInvestment', request);
    },
    (out) => (out.investment ? investmentJson(out.investment) : null),
  ),
  route({
    method: 'get',
    path: '/api/invest/deposit-maturity',
    tag: TAGS.investments,
    summary: "Settle the caller's matured investments",
    description: 'Runs when the dashboard loads; idempotent.',
    access: 'user',
    money: true,
    ok: json(moneyAnswers.depositMaturity, 'What was settled.'),
    handler: async ({ money, caller }, { call }, _req, res) => {
      const out = await call(
        money.investment,
        'settleDueForUser',
        inv.SettleDueForUserRequest.fromPartial(caller(res)),
      );
      return {
        message: out.message,
        settledCount: out.settledCount,
        matured: out.matured.map((i) => investmentJson(i)),
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/invest/getTransactionHistory',
    tag: TAGS.investments,
    summary: "The caller's deposits, investments and withdrawals, newest first",
    ...paged('newest first (a page merges the three lists by request time)'),
    access: 'user',
    money: true,
    ok: json(moneyAnswers.transactionHistory, 'The history.'),
    handler: transactionHistory,
  }),
];
