/**
 * The money paths of spec §7: api/payments/*, api/invest/*, api/withDraw/*, and the three
 * admin balance edits under api/users. Each becomes one (or a few) gRPC calls to the ledger, investment
 * or withdrawal service with `caller` from the session and `caller_role` from identity's Authenticate;
 * `email_verified` / `caller_verified` / `caller_kyc_status` come from identity's GetUser (never from
 * the browser). Admin paths are refused here (401 / 403) and the services check the role again.
 *
 * Amounts: the browser's text or number goes to the owning service as text, which applies the money
 * rules (> 0, at most 2 decimals, bounds); anything else (objects such as {"$gt": ""}, arrays, booleans)
 * is a 400 here and never reaches a service. Answers speak dollars (cents / 100).
 *
 * Balance edits (agreed with web/src/features/balances/EditBalancePage.tsx, spec route order):
 *   PUT users/updateDepositBalance/{id}  -> Total Profit     (totalMaturityAmount, ledger account profit)
 *   PUT users/editDepositBalance/{id}    -> Deposit Balance  (balance,             ledger account deposit)
 *   PUT users/editinvestmentBalance/{id} -> Total Investment (investmentBalance,   ledger account invested)
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/app/heldRequest/domain/makerChecker';
import { sha256Hex } from '@meridian/platform/crypto';
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import type { GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import type { Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import { sessionOf, type Auth, type Session } from './auth.js';
import { HttpError, toHttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { pageParams, setNextCursor } from './pages.js';
import type { DepositAnswer, InvestmentAnswer, WithdrawalAnswer } from './answers.js';
import { mergeHistoryPage } from './historyPages.js';
import { balancesJson, depositJson, investmentJson, planJson, withdrawalJson } from './moneyViews.js';
import { optionalString, parseBody, parseTokenParam, requiredString } from './validation.js';
import { ALL_FIELDS_REQUIRED } from './refusals.js';

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

/** The money commands a user's Idempotency-Key is namespaced by. */
type KeyedOperation = 'deposit' | 'invest' | 'withdraw' | 'adjust';

/**
 * Optional `Idempotency-Key` header: a retry with the same key and payload has one effect. The key is the
 * caller's own, so it never reaches a service as typed: it becomes `user.<operation>.<sha256 of user,
 * operation and key>`, which can never be one of the ledger's own keys
 * (`capture:<id>`, `deposit:<id>`…), another operation's or another user's request id, and is a valid id
 * in the paths (letters, digits and dots; 78 characters at most).
 */
function idempotencyKeyOf(req: Request, res: Response, operation: KeyedOperation): string {
  const key = req.get('idempotency-key');
  if (key === undefined || key === '') return '';
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(key)) throw new HttpError(400, MONEY_MESSAGES.idempotencyKey);
  const userId = sessionOf(res).caller.userId;
  return `user.${operation}.${sha256Hex(JSON.stringify([userId, operation, key]))}`;
}

/**
 * Money commands (deposit, invest, withdraw, balance edits) are refused while an admin impersonates a
 * user, before any other check answers (a balance edit would say "admin only"); the services refuse
 * them again. After auth.requireUser.
 */
function refuseImpersonation(_req: Request, res: Response, next: NextFunction): void {
  if (sessionOf(res).caller.impersonatorId) throw new HttpError(403, MAKER_CHECKER_MESSAGES.impersonating);
  next();
}

const byTimeDesc = (a: string | null | undefined, b: string | null | undefined) =>
  (Date.parse(b ?? '') || 0) - (Date.parse(a ?? '') || 0);

export function moneyRouter(deps: MoneyRouteDeps): Router {
  const { config, identity, money, auth, claims, support } = deps;
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
  const idParam = (v: unknown) => parseTokenParam(v, MONEY_MESSAGES.invalidId);
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

  const r = Router();

  // ---------------------------------------------------------------- payments (ledger deposits)
  r.post('/payments/create', auth.requireUser, refuseImpersonation, async (req, res) => {
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
  });

  r.get('/payments/viewPaymentStatus/:transactionId', auth.requireUser, async (req, res) => {
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
  });

  r.get('/payments/pending-deposit', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      money.ledger,
      'listPendingDeposits',
      lg.ListPendingDepositsRequest.fromPartial({ ...caller(res), ...pageParams(req) }),
      ctx(req),
    );
    setNextCursor(res, out.nextCursor);
    res.json({ message: MONEY_MESSAGES.pendingDeposits, deposit: out.deposits.map(depositJson) });
  });

  const decidePayment = (decision: 'confirm' | 'reject') =>
    async function decide(req: Request, res: Response) {
      const b = parseBody(moneySchemas.decidePayment, req.body);
      const expected = decision === 'confirm' ? 'Confirmed' : 'Rejected';
      if (b.status && b.status !== expected) throw new HttpError(400, MONEY_MESSAGES.statusMismatch);
      const request = lg.DecideDepositRequest.fromPartial({
        ...caller(res),
        depositId: idParam(b.transactionId),
        notes: b.notes ?? '',
      });
      const d = await claims.decide('deposit', request.depositId, claimAdminOf(res), () =>
        decision === 'confirm'
          ? callUnary(money.ledger, 'confirmDeposit', request, ctx(req))
          : callUnary(money.ledger, 'rejectDeposit', request, ctx(req)),
      );
      res.json({
        message: decision === 'confirm' ? MONEY_MESSAGES.paymentConfirmed : MONEY_MESSAGES.paymentRejected,
        transaction: depositJson(d),
      });
    };
  r.patch('/payments/confirmPayment', auth.requireAdmin, decidePayment('confirm'));
  r.patch('/payments/rejectPayment', auth.requireAdmin, decidePayment('reject'));

  // ---------------------------------------------------------------- invest (investment service)
  r.get('/invest/plans', async (req, res) => {
    const out = await callUnary(
      money.investment,
      'listPlans',
      inv.ListPlansRequest.fromPartial({}),
      ctx(req),
    );
    // the bare list: the original client maps over the answer itself
    res.json(out.plans.map(planJson));
  });

  r.post('/invest/start-invest', auth.requireUser, refuseImpersonation, async (req, res) => {
    const b = parseBody(moneySchemas.startInvest, req.body);
    const user = await userFacts(req, res);
    const out = await callUnary(
      money.investment,
      'startInvest',
      inv.StartInvestRequest.fromPartial({
        ...caller(res),
        callerVerified: user.isVerified,
        planName: b.planName,
        amount: b.amount,
        investmentId: idempotencyKeyOf(req, res, 'invest'),
      }),
      ctx(req),
    );
    res
      .status(201)
      .json({ message: out.message, investment: out.investment ? investmentJson(out.investment) : null });
  });

  /** The caller's balances (for `user.balance` on their own investments); null when the ledger cannot say. */
  const ownBalanceCents = async (req: Request, res: Response): Promise<number | undefined> => {
    try {
      const b = await callUnary(
        money.ledger,
        'getBalances',
        lg.GetBalancesRequest.fromPartial({ ...caller(res), userId: sessionOf(res).caller?.userId ?? '' }),
        ctx(req),
      );
      return b.depositCents;
    } catch {
      return undefined;
    }
  };

  r.get('/invest/investment-history', auth.requireUser, async (req, res) => {
    const [out, balance] = await Promise.all([
      callUnary(
        money.investment,
        'investmentHistory',
        inv.InvestmentHistoryRequest.fromPartial({ ...caller(res), ...pageParams(req) }),
        ctx(req),
      ),
      ownBalanceCents(req, res),
    ]);
    setNextCursor(res, out.nextCursor);
    res.json({ investments: out.investments.map((i) => investmentJson(i, balance)) });
  });

  r.get('/invest/investment/:id', auth.requireUser, async (req, res) => {
    const i = await callUnary(
      money.investment,
      'getInvestment',
      inv.GetInvestmentRequest.fromPartial({ ...caller(res), investmentId: idParam(req.params.id) }),
      ctx(req),
    );
    res.json({ investment: investmentJson(i) });
  });

  r.get('/invest/adminPendingInvestment', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      money.investment,
      'listPending',
      inv.ListPendingRequest.fromPartial({ ...caller(res), ...pageParams(req) }),
      ctx(req),
    );
    setNextCursor(res, out.nextCursor);
    // user.balance (spec §3): each investor's Deposit Balance, the page's investors in one ledger call
    const balances = new Map<string, number | undefined>();
    const userIds = [...new Set(out.investments.map((i) => i.userId))];
    if (userIds.length > 0)
      try {
        const b = await callUnary(
          money.ledger,
          'listBalances',
          lg.ListBalancesRequest.fromPartial({ ...caller(res), userIds }),
          ctx(req),
        );
        b.balances.forEach((one, i) => balances.set(userIds[i]!, one.depositCents));
      } catch {
        // the list answers without the balances rather than not at all
      }
    res.json({ pendingInvestments: out.investments.map((i) => investmentJson(i, balances.get(i.userId))) });
  });

  const decideInvestment = (decision: 'approve' | 'reject') =>
    async function decide(req: Request, res: Response) {
      const request = inv.DecideInvestmentRequest.fromPartial({
        ...caller(res),
        investmentId: idParam(req.params.id),
      });
      const out = await claims.decide('investment', request.investmentId, claimAdminOf(res), () =>
        decision === 'approve'
          ? callUnary(money.investment, 'approveInvestment', request, ctx(req))
          : callUnary(money.investment, 'rejectInvestment', request, ctx(req)),
      );
      res.json({ message: out.message, investment: out.investment ? investmentJson(out.investment) : null });
    };
  r.put('/invest/:id/approve', auth.requireAdmin, decideInvestment('approve'));
  r.put('/invest/:id/reject', auth.requireAdmin, decideInvestment('reject'));

  r.get('/invest/deposit-maturity', auth.requireUser, async (req, res) => {
    const out = await callUnary(
      money.investment,
      'settleDueForUser',
      inv.SettleDueForUserRequest.fromPartial(caller(res)),
      ctx(req),
    );
    res.json({
      message: out.message,
      settledCount: out.settledCount,
      matured: out.matured.map((i) => investmentJson(i)),
    });
  });

  // Without limit/cursor: the spec's whole history. With them: a page of the three lists merged newest first
  // (historyPages.ts), the next page's cursor in X-Next-Cursor; the body stays { history }.
  r.get('/invest/getTransactionHistory', auth.requireUser, async (req, res) => {
    const who = caller(res);
    const paging = pageParams(req);
    if (paging.limit !== undefined) {
      const asItems = <T, J>(
        list: { nextCursor: string; itemCursors: string[] },
        items: T[],
        json: (t: T) => J,
      ) => ({
        items: items.map(json),
        nextCursor: list.nextCursor,
        itemCursors: list.itemCursors,
      });
      type Item =
        | (DepositAnswer & { type: 'Transaction'; timestamp: string })
        | (InvestmentAnswer & { type: 'Investment'; timestamp: string | null })
        | (WithdrawalAnswer & { type: 'Withdrawal'; timestamp: string });
      const page = await mergeHistoryPage<Item>(
        [
          {
            fetch: async (cursor, limit) => {
              const out = await callUnary(
                money.ledger,
                'listUserDeposits',
                lg.ListUserDepositsRequest.fromPartial({ ...who, limit, cursor }),
                ctx(req),
              );
              return asItems(out, out.deposits, (d) => ({
                type: 'Transaction' as const,
                ...depositJson(d),
                timestamp: d.requestedAt,
              }));
            },
            time: (i) => (i as { createdAt: string }).createdAt,
          },
          {
            fetch: async (cursor, limit) => {
              const out = await callUnary(
                money.investment,
                'investmentHistory',
                inv.InvestmentHistoryRequest.fromPartial({ ...who, limit, cursor }),
                ctx(req),
              );
              return asItems(out, out.investments, (i) => {
                const j = investmentJson(i);
                return { type: 'Investment' as const, ...j, timestamp: j.startDate ?? j.createdAt };
              });
            },
            time: (i) => (i as { createdAt: string }).createdAt,
          },
          {
            fetch: async (cursor, limit) => {
              const out = await callUnary(
                money.withdrawal,
                'listUserWithdrawals',
                wd.ListUserWithdrawalsRequest.fromPartial({ ...who, limit, cursor }),
                ctx(req),
              );
              return asItems(out, out.withdrawals, (w) => ({
                type: 'Withdrawal' as const,
                ...withdrawalJson(w),
                timestamp: w.requestDate,
              }));
            },
            time: (i) => (i as { requestDate: string }).requestDate,
          },
        ],
        { limit: paging.limit, cursor: paging.cursor ?? '' },
      );
      setNextCursor(res, page.nextCursor);
      res.json({ history: page.items.map((i) => i.item) });
      return;
    }
    const [deposits, investments, withdrawals] = await Promise.all([
      callUnary(money.ledger, 'listUserDeposits', lg.ListUserDepositsRequest.fromPartial(who), ctx(req)),
      callUnary(
        money.investment,
        'investmentHistory',
        inv.InvestmentHistoryRequest.fromPartial(who),
        ctx(req),
      ),
      callUnary(
        money.withdrawal,
        'listUserWithdrawals',
        wd.ListUserWithdrawalsRequest.fromPartial(who),
        ctx(req),
      ),
    ]);
    const items = [
      ...deposits.deposits.map((d) => ({
        type: 'Transaction' as const,
        ...depositJson(d),
        timestamp: d.requestedAt,
      })),
      ...investments.investments.map((i) => {
        const j = investmentJson(i);
        return { type: 'Investment' as const, ...j, timestamp: j.startDate ?? j.createdAt };
      }),
      ...withdrawals.withdrawals.map((w) => ({
        type: 'Withdrawal' as const,
        ...withdrawalJson(w),
        timestamp: w.requestDate,
      })),
    ].sort((a, b) => byTimeDesc(a.timestamp, b.timestamp));
    res.json({ history: items });
  });

  // ---------------------------------------------------------------- withDraw (withdrawal service)
  r.post('/withDraw/create', auth.requireUser, refuseImpersonation, async (req, res) => {
    const b = parseBody(moneySchemas.withdraw, req.body);
    const user = await userFacts(req, res);
    const out = await callUnary(
      money.withdrawal,
      'requestWithdrawal',
      wd.RequestWithdrawalRequest.fromPartial({
        ...caller(res),
        callerVerified: user.isVerified,
        callerKycStatus: user.kycStatus,
        amount: b.amount,
        walletAddress: b.walletAddress,
        withdrawalId: idempotencyKeyOf(req, res, 'withdraw'),
      }),
      ctx(req),
    );
    res
      .status(201)
      .json({ message: out.message, withdrawal: out.withdrawal ? withdrawalJson(out.withdrawal) : null });
  });

  r.get('/withDraw/balance', auth.requireUser, async (req, res) => {
    const b = await callUnary(
      money.ledger,
      'getBalances',
      lg.GetBalancesRequest.fromPartial({ ...caller(res), userId: sessionOf(res).caller?.userId ?? '' }),
      ctx(req),
    );
    res.json(balancesJson(b));
  });

  r.get('/withDraw/pending', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      money.withdrawal,
      'listPending',
      wd.ListPendingRequest.fromPartial({ ...caller(res), ...pageParams(req) }),
      ctx(req),
    );
    setNextCursor(res, out.nextCursor);
    res.json({
      message: MONEY_MESSAGES.pendingWithdrawals,
      withdrawals: out.withdrawals.map((w) => withdrawalJson(w)),
    });
  });

  r.get('/withDraw/get-withdrawal/:id', auth.requireUser, async (req, res) => {
    const w = await callUnary(
      money.withdrawal,
      'getWithdrawal',
      wd.GetWithdrawalRequest.fromPartial({ ...caller(res), withdrawalId: idParam(req.params.id) }),
      ctx(req),
    );
    res.json(withdrawalJson(w, 'detail'));
  });

  const decideWithdrawal = (decision: 'approve' | 'reject') =>
    async function decide(req: Request, res: Response) {
      const request = wd.DecideWithdrawalRequest.fromPartial({
        ...caller(res),
        withdrawalId: idParam(req.params.id),
      });
      const out = await claims.decide('withdrawal', request.withdrawalId, claimAdminOf(res), () =>
        decision === 'approve'
          ? callUnary(money.withdrawal, 'approveWithdrawal', request, ctx(req))
          : callUnary(money.withdrawal, 'rejectWithdrawal', request, ctx(req)),
      );
      res.json({ message: out.message, withdrawal: out.withdrawal ? withdrawalJson(out.withdrawal) : null });
    };
  r.put('/withDraw/approve/:id', auth.requireAdmin, decideWithdrawal('approve'));
  r.put('/withDraw/reject/:id', auth.requireAdmin, decideWithdrawal('reject'));

  // ---------------------------------------------------------------- admin balance edits (ledger AdjustBalance)
  const adjust = (account: lg.BalanceAccount) =>
    async function adjustBalance(req: Request, res: Response) {
      const userId = parseTokenParam(req.params.id, 'Invalid user id');
      const b = parseBody(moneySchemas.adjust, req.body);
      const out = await callUnary(
        money.ledger,
        'adjustBalance',
        lg.AdjustBalanceRequest.fromPartial({
          ...caller(res),
          userId,
          account,
          operation:
            b.operation === 'add'
              ? lg.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD
              : lg.AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT,
          amount: b.amount,
          reason: b.reason ?? '',
          idempotencyKey: idempotencyKeyOf(req, res, 'adjust'),
        }),
        ctx(req),
      );
      res.json({ message: MONEY_MESSAGES.balanceUpdated, userId, ...balancesJson(out) });
    };
  r.put(
    '/users/updateDepositBalance/:id',
    auth.requireUser,
    refuseImpersonation,
    auth.requireAdmin,
    adjust(lg.BalanceAccount.BALANCE_ACCOUNT_PROFIT),
  );
  r.put(
    '/users/editDepositBalance/:id',
    auth.requireUser,
    refuseImpersonation,
    auth.requireAdmin,
    adjust(lg.BalanceAccount.BALANCE_ACCOUNT_DEPOSIT),
  );
  r.put(
    '/users/editinvestmentBalance/:id',
    auth.requireUser,
    refuseImpersonation,
    auth.requireAdmin,
    adjust(lg.BalanceAccount.BALANCE_ACCOUNT_INVESTED),
  );

  return r;
}
