/**
 * gRPC surface of the ledger: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: the ledger does not own users. `caller` (user id from the session) and `caller_role`
 * (from identity's Authenticate) are filled by the gateway, never by a browser; admin powers are
 * re-checked here against caller_role, ownership against caller.user_id. PlaceHold, CaptureHold,
 * ReleaseHold, SettleMaturity and GetBalances(internal) are for the investment and withdrawal services
 * inside the cluster only; the gateway never exposes them.
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import {
  AdjustmentOperation,
  BalanceAccount,
  HoldPurpose,
  HoldStatus,
  LedgerServiceService,
  type AdjustBalanceRequest,
  type Balances,
  type CreateDepositRequest,
  type DecideDepositRequest,
  type Deposit,
  type GetBalancesRequest,
  type GetDepositRequest,
  type HoldResponse,
  type LedgerServiceServer,
  type ListDepositsResponse,
  type ListPendingDepositsRequest,
  type ListTransactionsRequest,
  type ListTransactionsResponse,
  type ListUserDepositsRequest,
  type PlaceHoldRequest,
  type SettleHoldRequest,
  type SettleMaturityRequest,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { LedgerContext, Actor } from '../app/context.js';
import {
  createDeposit,
  decideDeposit,
  getDeposit,
  listPendingDeposits,
  listUserDeposits,
  type DepositView,
} from '../app/deposits.js';
import { transactionToProto } from '../app/integrationEvents.js';
import {
  adjustBalance,
  getBalances,
  listTransactions,
  placeHold,
  settleHold,
  settleMaturity,
  type HoldResult,
} from '../app/money.js';
import type {
  AdjustableAccount,
  AdjustmentOperation as DomainOperation,
  HoldPurpose as DomainPurpose,
} from '../domain/account.js';
import { LEDGER_MESSAGES } from '../domain/account.js';
import type { BalancesDoc } from '../projections/views.js';
import { holdPurposeToProto } from '../app/integrationEvents.js';

function actorOf(caller: Caller | undefined, role: string): Actor {
  return {
    userId: caller?.userId ?? '',
    role: role ?? '',
    ...(caller?.impersonatorId ? { impersonatorId: caller.impersonatorId } : {}),
  };
}

/** Internal callers may pass no caller at all; their events then carry no actor. */
function optionalActor(caller: Caller | undefined): Actor | undefined {
  return caller?.userId ? actorOf(caller, 'service') : undefined;
}

const depositToProto = (d: DepositView): Deposit => ({
  depositId: d.depositId,
  userId: d.userId,
  amountCents: d.amountCents,
  status: d.status,
  notes: d.notes,
  requestedAt: d.requestedAt,
  decidedAt: d.decidedAt ?? '',
  decidedBy: d.decidedBy ?? '',
  userName: d.userName,
  userEmail: d.userEmail,
});

const balancesToProto = (b: BalancesDoc): Balances => ({
  userId: b.userId,
  depositCents: b.depositCents,
  investedCents: b.investedCents,
  profitCents: b.profitCents,
  withdrawalHoldCents: b.withdrawalHoldCents,
  investmentHoldCents: b.investmentHoldCents,
});

const HOLD_STATUS = {
  held: HoldStatus.HOLD_STATUS_HELD,
  captured: HoldStatus.HOLD_STATUS_CAPTURED,
  released: HoldStatus.HOLD_STATUS_RELEASED,
};

const holdToProto = ({ hold, balances }: HoldResult): HoldResponse => ({
  holdId: hold.holdId,
  purpose: holdPurposeToProto(hold.purpose),
  amountCents: hold.amountCents,
  status: HOLD_STATUS[hold.status],
  transactionId: hold.transactionId,
  balances: balancesToProto(balances),
});

function purposeOf(p: HoldPurpose): DomainPurpose {
  if (p === HoldPurpose.HOLD_PURPOSE_INVESTMENT) return 'investment';
  if (p === HoldPurpose.HOLD_PURPOSE_WITHDRAWAL) return 'withdrawal';
  throw invalid('Hold purpose must be investment or withdrawal');
}

function accountOf(a: BalanceAccount): AdjustableAccount {
  if (a === BalanceAccount.BALANCE_ACCOUNT_DEPOSIT) return 'deposit';
  if (a === BalanceAccount.BALANCE_ACCOUNT_INVESTED) return 'invested';
  if (a === BalanceAccount.BALANCE_ACCOUNT_PROFIT) return 'profit';
  throw invalid(LEDGER_MESSAGES.invalidAccount);
}

function operationOf(o: AdjustmentOperation): DomainOperation {
  if (o === AdjustmentOperation.ADJUSTMENT_OPERATION_ADD) return 'add';
  if (o === AdjustmentOperation.ADJUSTMENT_OPERATION_DEDUCT) return 'deduct';
  throw invalid(LEDGER_MESSAGES.invalidOperation);
}

export function ledgerGrpcService(ctx: LedgerContext, options: { logger: Logger }): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    {
      async createDeposit(req: CreateDepositRequest): Promise<Deposit> {
        return depositToProto(
          await createDeposit(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            amount: req.amount,
            emailVerified: req.emailVerified,
            idempotencyKey: req.idempotencyKey || undefined,
          }),
        );
      },
      async getDeposit(req: GetDepositRequest): Promise<Deposit> {
        return depositToProto(
          await getDeposit(ctx, { actor: actorOf(req.caller, req.callerRole), depositId: req.depositId }),
        );
      },
      async listUserDeposits(req: ListUserDepositsRequest): Promise<ListDepositsResponse> {
        const list = await listUserDeposits(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
        });
        return { deposits: list.map(depositToProto) };
      },
      async listPendingDeposits(req: ListPendingDepositsRequest): Promise<ListDepositsResponse> {
        const list = await listPendingDeposits(ctx, { actor: actorOf(req.caller, req.callerRole) });
        return { deposits: list.map(depositToProto) };
      },
      async confirmDeposit(req: DecideDepositRequest): Promise<Deposit> {
        return depositToProto(
          await decideDeposit(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            depositId: req.depositId,
            decision: 'confirm',
            notes: req.notes,
          }),
        );
      },
      async rejectDeposit(req: DecideDepositRequest): Promise<Deposit> {
        return depositToProto(
          await decideDeposit(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            depositId: req.depositId,
            decision: 'reject',
            notes: req.notes,
          }),
        );
      },
      async placeHold(req: PlaceHoldRequest): Promise<HoldResponse> {
        return holdToProto(
          await placeHold(ctx, {
            userId: req.userId,
            holdId: req.holdId,
            purpose: purposeOf(req.purpose),
            amountCents: req.amountCents,
            idempotencyKey: req.idempotencyKey || undefined,
            actor: optionalActor(req.caller),
          }),
        );
      },
      async captureHold(req: SettleHoldRequest): Promise<HoldResponse> {
        return holdToProto(
          await settleHold(ctx, {
            userId: req.userId,
            holdId: req.holdId,
            outcome: 'capture',
            idempotencyKey: req.idempotencyKey || undefined,
            actor: optionalActor(req.caller),
          }),
        );
      },
      async releaseHold(req: SettleHoldRequest): Promise<HoldResponse> {
        return holdToProto(
          await settleHold(ctx, {
            userId: req.userId,
            holdId: req.holdId,
            outcome: 'release',
            idempotencyKey: req.idempotencyKey || undefined,
            actor: optionalActor(req.caller),
          }),
        );
      },
      async settleMaturity(req: SettleMaturityRequest): Promise<Balances> {
        return balancesToProto(
          await settleMaturity(ctx, {
            userId: req.userId,
            investmentId: req.investmentId,
            principalCents: req.principalCents,
            maturityAmountCents: req.maturityAmountCents,
            idempotencyKey: req.idempotencyKey || undefined,
            actor: optionalActor(req.caller),
          }),
        );
      },
      async adjustBalance(req: AdjustBalanceRequest): Promise<Balances> {
        return balancesToProto(
          await adjustBalance(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            userId: req.userId,
            account: accountOf(req.account),
            operation: operationOf(req.operation),
            amount: req.amount,
            reason: req.reason,
            idempotencyKey: req.idempotencyKey || undefined,
          }),
        );
      },
      async getBalances(req: GetBalancesRequest): Promise<Balances> {
        return balancesToProto(
          await getBalances(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            userId: req.userId,
            internal: req.internal,
          }),
        );
      },
      async listTransactions(req: ListTransactionsRequest): Promise<ListTransactionsResponse> {
        const { items, total } = await listTransactions(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
          limit: req.limit,
          offset: req.offset,
        });
        return {
          transactions: items.map((t) => transactionToProto({ ...t, references: referencesOf(t) })),
          total,
        };
      },
    },
    { logger: options.logger },
  );
  const implementation: LedgerServiceServer = handlers;
  return { definition: LedgerServiceService, implementation };
}

function referencesOf(t: {
  depositId: string | null;
  investmentId: string | null;
  withdrawalId: string | null;
  holdId: string | null;
  adminId: string | null;
  refereeId: string | null;
}) {
  return {
    ...(t.depositId ? { depositId: t.depositId } : {}),
    ...(t.investmentId ? { investmentId: t.investmentId } : {}),
    ...(t.withdrawalId ? { withdrawalId: t.withdrawalId } : {}),
    ...(t.holdId ? { holdId: t.holdId } : {}),
    ...(t.adminId ? { adminId: t.adminId } : {}),
    ...(t.refereeId ? { refereeId: t.refereeId } : {}),
  };
}
