/**
 * Holds, captures, releases, maturity settlement, admin adjustments, balances and history.
 * Holds and settlements are internal calls of the investment and withdrawal services: the request id
 * is the hold id and (by default) the idempotency key, so a re-driven request never holds twice.
 */
import { invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import {
  type AdjustableAccount,
  type AdjustmentOperation,
  type Hold,
  type HoldPurpose,
  LEDGER_MESSAGES,
  holdOf,
} from '../domain/account.js';
import { type Cents, parseDollarsToCents } from '@meridian/platform/money/money';
import {
  type BalancesDoc,
  type TransactionDoc,
  balancesOf,
  transactionsOfUser,
} from '../projections/views.js';
import {
  type Actor,
  type LedgerContext,
  MESSAGES,
  checkKey,
  inTransaction,
  metaOf,
  requireAdmin,
  requireActor,
  requireOwnerOrAdmin,
} from './context.js';
import { loadLedger, executeLedger } from './streams.js';

export type HoldResult = { hold: Hold; balances: BalancesDoc };

function requireUser(userId: string): string {
  if (!userId) throw invalid(MESSAGES.userRequired);
  return userId;
}

export async function placeHold(
  ctx: LedgerContext,
  input: {
    userId: string;
    holdId: string;
    purpose: HoldPurpose;
    amountCents: Cents;
    idempotencyKey?: string;
    actor?: Actor;
  },
): Promise<HoldResult> {
  const userId = requireUser(input.userId);
  const holdId = checkKey(input.holdId);
  const idempotencyKey = checkKey(input.idempotencyKey || holdId);
  return inTransaction(ctx, async (tx) => {
    const { after } = await executeLedger(
      tx,
      {
        type: 'PlaceHold',
        userId,
        holdId,
        purpose: input.purpose,
        amountCents: input.amountCents,
        idempotencyKey,
        transactionId: ctx.newId(),
        now: ctx.clock(),
      },
      metaOf(ctx, input.actor),
    );
    const hold = holdOf(after, holdId);
    if (!hold) throw notFound(LEDGER_MESSAGES.holdNotFound);
    return { hold, balances: await balancesOf(tx, userId) };
  });
}

export async function settleHold(
  ctx: LedgerContext,
  input: {
    userId: string;
    holdId: string;
    outcome: 'capture' | 'release';
    idempotencyKey?: string;
    actor?: Actor;
  },
): Promise<HoldResult> {
  const userId = requireUser(input.userId);
  const holdId = checkKey(input.holdId);
  const idempotencyKey = checkKey(input.idempotencyKey || `${input.outcome}:${holdId}`);
  return inTransaction(ctx, async (tx) => {
    const { after } = await executeLedger(
      tx,
      {
        type: input.outcome === 'capture' ? 'CaptureHold' : 'ReleaseHold',
        userId,
        holdId,
        idempotencyKey,
        transactionId: ctx.newId(),
        now: ctx.clock(),
      },
      metaOf(ctx, input.actor),
    );
    const hold = holdOf(after, holdId);
    if (!hold) throw notFound(LEDGER_MESSAGES.holdNotFound);
    return { hold, balances: await balancesOf(tx, userId) };
  });
}

export async function settleMaturity(
  ctx: LedgerContext,
  input: {
    userId: string;
    investmentId: string;
    principalCents: Cents;
    maturityAmountCents: Cents;
    idempotencyKey?: string;
    actor?: Actor;
  },
): Promise<BalancesDoc> {
  const userId = requireUser(input.userId);
  const investmentId = checkKey(input.investmentId);
  const idempotencyKey = checkKey(input.idempotencyKey || `maturity:${investmentId}`);
  return inTransaction(ctx, async (tx) => {
    await executeLedger(
      tx,
      {
        type: 'SettleMaturity',
        userId,
        investmentId,
        principalCents: input.principalCents,
        maturityAmountCents: input.maturityAmountCents,
        idempotencyKey,
        transactionId: ctx.newId(),
        now: ctx.clock(),
      },
      metaOf(ctx, input.actor),
    );
    return balancesOf(tx, userId);
  });
}

export async function adjustBalance(
  ctx: LedgerContext,
  input: {
    actor: Actor;
    userId: string;
    account: AdjustableAccount;
    operation: AdjustmentOperation;
    amount: unknown;
    reason?: string;
    idempotencyKey?: string;
  },
): Promise<BalancesDoc> {
  const admin = requireAdmin(input.actor);
  const userId = requireUser(input.userId);
  const amountCents = parseDollarsToCents(input.amount);
  const idempotencyKey = input.idempotencyKey ? checkKey(input.idempotencyKey) : ctx.newId();
  return inTransaction(ctx, async (tx) => {
    await executeLedger(
      tx,
      {
        type: 'AdjustBalance',
        userId,
        adminId: admin.userId,
        actorRole: admin.role,
        account: input.account,
        operation: input.operation,
        amountCents,
        reason: input.reason,
        idempotencyKey,
        transactionId: ctx.newId(),
        now: ctx.clock(),
      },
      metaOf(ctx, admin),
    );
    return balancesOf(tx, userId);
  });
}

export async function getBalances(
  ctx: LedgerContext,
  input: { actor?: Actor; userId: string; internal?: boolean },
): Promise<BalancesDoc> {
  const userId = input.userId || requireActor(input.actor).userId;
  if (!input.internal) requireOwnerOrAdmin(input.actor, userId);
  return balancesOf(ctx.store, userId);
}

/** The hold as the ledger stream has it (tests and diagnostics). */
export async function findHold(
  ctx: LedgerContext,
  userId: string,
  holdId: string,
): Promise<Hold | undefined> {
  return holdOf((await loadLedger(ctx.store, userId)).state, holdId);
}

export async function listTransactions(
  ctx: LedgerContext,
  input: { actor: Actor; userId?: string; limit?: number; offset?: number },
): Promise<{ items: TransactionDoc[]; total: number }> {
  const userId = input.userId || requireActor(input.actor).userId;
  requireOwnerOrAdmin(input.actor, userId);
  const limit = Math.min(Math.max(input.limit || 100, 1), 500);
  const offset = Math.max(input.offset || 0, 0);
  return transactionsOfUser(ctx.store, userId, { limit, offset });
}
