/**
 * gRPC surface of the ledger: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: the ledger does not own users. `caller` (user id from the session) and `caller_role`
 * (from identity's Authenticate) are filled by the gateway, never by a browser; admin powers are
 * re-checked here against caller_role, ownership against caller.user_id. PlaceHold, CaptureHold,
 * ReleaseHold, SettleMaturity and GetBalances(internal) are for the investment and withdrawal services
 * inside the cluster only; the gateway never exposes them.
 */
import type {
  Caller,
  CloseAccountRequest,
  QueueCountRequest,
  QueuePageRequest,
  UserPageRequest,
} from '@meridian/proto/meridian/common/v1/common';
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
  type ListBalancesRequest,
  type ListBalancesResponse,
  type GetDepositRequest,
  type GetStatementRequest,
  type HoldResponse,
  type LedgerServiceServer,
  type ListDepositsResponse,
  type ListTransactionsRequest,
  type ListTransactionsResponse,
  type PlaceHoldRequest,
  type SettleHoldRequest,
  type SettleMaturityRequest,
  type SettleMaturitiesRequest,
  type SettleMaturitiesResponse,
  type Statement as ProtoStatement,
  type VerifyLedgerRequest,
  type VerifyLedgerResponse,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import { toGrpcStatus } from '@meridian/platform/grpc/status';
import type { Logger } from '@meridian/platform/logger';
import { actorOf } from '@meridian/platform/app/requestContext';
import { closeAccountInputOf } from '@meridian/platform/app/accountClosure';
import { closeAccount } from '../app/closeAccount.js';
import type { LedgerContext, Actor } from '../app/context.js';
import {
  createDeposit,
  decideDeposit,
  getDeposit,
  countPendingDeposits,
  listPendingDeposits,
  listUserDeposits,
  type DepositView,
} from '../app/deposits.js';
import {
  adjustBalance,
  getBalances,
  listBalances,
  listTransactions,
  placeHold,
  settleHold,
  settleMaturity,
  settleMaturities,
  type HoldResult,
  type InternalCall,
} from '../app/money.js';
import type {
  AdjustableAccount,
  AdjustmentOperation as DomainOperation,
  HoldPurpose as DomainPurpose,
} from '../domain/account.js';
import { LEDGER_MESSAGES } from '../domain/account.js';
import type { Page } from '@meridian/platform/ports/pages';
import { type BalancesDoc, referencesOf } from '../projections/views.js';
import { holdPurposeToProto, transactionToProto } from '../app/integrationEvents.js';
import { getStatement, verifyLedger, type LedgerVerification } from '../app/statements.js';
import type { Statement } from 'meridian-verify';

/** The caller as the gateway established it (`caller`, `caller_role`). */
const actor = (req: { caller?: Caller; callerRole: string }): Actor => actorOf(req.caller, req.callerRole);
/** The caller, and the user a read is about (`userId` empty: the caller's own). */
const aboutUser = (req: { caller?: Caller; callerRole: string; userId: string }) => ({
  actor: actor(req),
  userId: req.userId || undefined,
});

/** Internal callers may pass no caller at all; their events then carry no actor. */
function optionalActor(caller: Caller | undefined): Actor | undefined {
  return caller?.userId ? actorOf(caller, 'service') : undefined;
}

/** proto3 has no absent string: an empty key is no key. */
const keyOf = (key: string): string | undefined => key || undefined;

/** The common part of the investment and withdrawal services' calls. */
const internalCall = (req: { userId: string; idempotencyKey: string; caller?: Caller }): InternalCall => ({
  userId: req.userId,
  idempotencyKey: keyOf(req.idempotencyKey),
  actor: optionalActor(req.caller),
});

export function depositToProto(view: DepositView): Deposit {
  const { position: _position, decidedAt, decidedBy, initiatedBy, sentTo, ...deposit } = view;
  return {
    ...deposit,
    decidedAt: decidedAt ?? '',
    decidedBy: decidedBy ?? '',
    initiatedBy: initiatedBy ?? '',
    network: sentTo?.network ?? '',
    address: sentTo?.address ?? '',
    addressId: sentTo?.addressId ?? '',
  };
}

/** The deposit address a declaration names (all three fields, as the gateway checked them), else none. */
const sentToOf = (req: CreateDepositRequest) =>
  req.addressId && req.network && req.address
    ? { network: req.network, address: req.address, addressId: req.addressId }
    : undefined;

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

const depositsToProto = (page: Page<DepositView>): ListDepositsResponse => ({
  deposits: page.items.map(depositToProto),
  nextCursor: page.nextCursor,
  itemCursors: page.itemCursors ?? [],
});

const decision =
  (decision: 'confirm' | 'reject') =>
  (req: DecideDepositRequest): Parameters<typeof decideDeposit>[1] => ({
    actor: actor(req),
    depositId: req.depositId,
    decision,
    notes: req.notes,
  });

const settlement =
  (outcome: 'capture' | 'release') =>
  (req: SettleHoldRequest): Parameters<typeof settleHold>[1] => ({
    ...internalCall(req),
    holdId: req.holdId,
    outcome,
  });

/** The statement as the proto has it (field for field the JSON file). */
export const statementToProto = (s: Statement): ProtoStatement => ({
  ...s,
  accounts: s.accounts.map((a) => ({ ...a })),
  opening: { ...s.opening },
  entries: s.entries.map((e) => ({ ...e, postings: e.postings.map((p) => ({ ...p })) })),
  head: { ...s.head },
});

const verificationToProto = (v: LedgerVerification): VerifyLedgerResponse => ({
  usersChecked: v.usersChecked,
  entriesChecked: v.entriesChecked,
  intact: v.intact,
  firstBroken: v.firstBroken ?? undefined,
});

export function ledgerGrpcService(ctx: LedgerContext, options: { logger: Logger }): GrpcServiceRegistration {
  /** A method as one use case: the request as the use case's input, the use case, its answer as the response. */
  const via =
    <Req, In, Out, Res>(
      useCase: (c: LedgerContext, input: In) => Promise<Out>,
      input: (req: Req) => In,
      output: (out: Out) => Res,
    ) =>
    async (req: Req): Promise<Res> =>
      output(await useCase(ctx, input(req)));

  const handlers = unaryHandlers(
    {
      createDeposit: via(
        createDeposit,
        (req: CreateDepositRequest) => ({
          actor: actor(req),
          amount: req.amount,
          emailVerified: req.emailVerified,
          idempotencyKey: keyOf(req.idempotencyKey),
          sentTo: sentToOf(req),
        }),
        depositToProto,
      ),
      getDeposit: via(
        getDeposit,
        (req: GetDepositRequest) => ({ actor: actor(req), depositId: req.depositId }),
        depositToProto,
      ),
      listUserDeposits: via(
        listUserDeposits,
        (req: UserPageRequest) => ({ ...aboutUser(req), limit: req.limit, cursor: req.cursor }),
        depositsToProto,
      ),
      listPendingDeposits: via(
        listPendingDeposits,
        (req: QueuePageRequest) => ({ actor: actor(req), limit: req.limit, cursor: req.cursor }),
        depositsToProto,
      ),
      countPendingDeposits: via(
        countPendingDeposits,
        (req: QueueCountRequest) => ({ actor: actor(req) }),
        (answer) => answer,
      ),
      confirmDeposit: via(decideDeposit, decision('confirm'), depositToProto),
      rejectDeposit: via(decideDeposit, decision('reject'), depositToProto),
      placeHold: via(
        placeHold,
        (req: PlaceHoldRequest) => ({
          ...internalCall(req),
          holdId: req.holdId,
          purpose: purposeOf(req.purpose),
          amountCents: req.amountCents,
        }),
        holdToProto,
      ),
      captureHold: via(settleHold, settlement('capture'), holdToProto),
      releaseHold: via(settleHold, settlement('release'), holdToProto),
      settleMaturity: via(
        settleMaturity,
        (req: SettleMaturityRequest) => ({
          ...internalCall(req),
          investmentId: req.investmentId,
          principalCents: req.principalCents,
          maturityAmountCents: req.maturityAmountCents,
        }),
        balancesToProto,
      ),
      settleMaturities: via(
        settleMaturities,
        (req: SettleMaturitiesRequest) => ({
          actor: optionalActor(req.caller),
          items: req.items.map((item) => ({
            userId: item.userId,
            investmentId: item.investmentId,
            principalCents: item.principalCents,
            maturityAmountCents: item.maturityAmountCents,
            idempotencyKey: keyOf(item.idempotencyKey),
          })),
        }),
        (outcomes): SettleMaturitiesResponse => ({
          results: outcomes.map((o) => {
            if (o.settled)
              return { investmentId: o.investmentId, settled: true, errorCode: 0, errorMessage: '' };
            const status = toGrpcStatus(o.error);
            return {
              investmentId: o.investmentId,
              settled: false,
              errorCode: status.code,
              errorMessage: status.details,
            };
          }),
        }),
      ),
      adjustBalance: via(
        adjustBalance,
        (req: AdjustBalanceRequest) => ({
          actor: actor(req),
          userId: req.userId,
          account: accountOf(req.account),
          operation: operationOf(req.operation),
          amount: req.amount,
          reason: req.reason,
          idempotencyKey: keyOf(req.idempotencyKey),
        }),
        balancesToProto,
      ),
      getBalances: via(
        getBalances,
        (req: GetBalancesRequest) => ({ actor: actor(req), userId: req.userId, internal: req.internal }),
        balancesToProto,
      ),
      listBalances: via(
        listBalances,
        (req: ListBalancesRequest) => ({ actor: actor(req), userIds: req.userIds }),
        (list): ListBalancesResponse => ({ balances: list.map(balancesToProto) }),
      ),
      listTransactions: via(
        listTransactions,
        (req: ListTransactionsRequest) => ({
          ...aboutUser(req),
          limit: req.limit,
          offset: req.offset,
          cursor: req.cursor,
        }),
        ({ items, total, nextCursor }): ListTransactionsResponse => ({
          transactions: items.map((t) => transactionToProto({ ...t, references: referencesOf(t) })),
          total,
          nextCursor,
        }),
      ),
      getStatement: via(
        getStatement,
        (req: GetStatementRequest) => ({
          ...aboutUser(req),
          from: req.from || undefined,
          to: req.to || undefined,
        }),
        statementToProto,
      ),
      verifyLedger: via(
        verifyLedger,
        (req: VerifyLedgerRequest) => ({ actor: actor(req) }),
        verificationToProto,
      ),
      closeAccount: (req: CloseAccountRequest) => closeAccount(ctx, closeAccountInputOf(req)),
    },
    { logger: options.logger },
  );
  const implementation: LedgerServiceServer = handlers;
  return { definition: LedgerServiceService, implementation };
}
