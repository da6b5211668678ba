/**
 * Holds, captures, releases, maturity settlement, admin adjustments, balances and history.
 * Holds and settlements are internal calls of the investment and withdrawal services: the request id
 * is the hold id and (by default) the idempotency key, so a re-driven request never holds twice.
 */
import {
  refuseOwnBalances,
  refuseWhileImpersonating,
} from '@meridian/platform/app/heldRequest/domain/makerChecker';
import { ConcurrencyError, invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import { pageRequest } from '@meridian/platform/ports/pages';
import {
  type AdjustableAccount,
  type AdjustmentOperation,
  type Hold,
  type HoldPurpose,
  type LedgerState,
  type MoneyCommand,
  LEDGER_MESSAGES,
  holdOf,
} from '../domain/account.js';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { type Cents, parseDollarsToCents } from '@meridian/platform/money/money';
import {
  type BalancesDoc,
  type TransactionDoc,
  balancesOf,
  isLiveUser,
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
import { type LedgerResult, announceBalances, executeLedger, ledgerStateFor } from './streams.js';

export type HoldResult = { hold: Hold; balances: BalancesDoc };

/**
 * A call of the investment or withdrawal service: the user whose ledger it posts on, its idempotency key
 * (by default derived from the request id) and the calling user, when the call carries one.
 */
export type InternalCall = { userId: string; idempotencyKey?: string; actor?: Actor };

/** A money command as a use case states it: the transaction id and the time are given per attempt. */
type WithoutAttempt<C> = C extends unknown ? Omit<C, 'transactionId' | 'now'> : never;
type Posting = WithoutAttempt<MoneyCommand>;

function requireUser(userId: string): string {
  if (!userId) throw invalid(MESSAGES.userRequired);
  return userId;
}

/**
 * Posts one money command through the command handler, in a transaction retried on a concurrent
 * append, and answers from the ledger state after it. `check` runs first, in the same transaction.
 */
function post<T>(
  ctx: LedgerContext,
  posting: Posting,
  actor: Actor | undefined,
  answer: (tx: StoreTx, after: LedgerState) => Promise<T>,
  check?: (tx: StoreTx) => Promise<void>,
): Promise<T> {
  return inTransaction(ctx, async (tx) => {
    await check?.(tx);
    const command = { ...posting, transactionId: ctx.newId(), now: ctx.clock() } as MoneyCommand;
    const { after } = await executeLedger(tx, command, metaOf(ctx, actor));
    return answer(tx, after);
  });
}

const holdAnswer =
  (userId: string, holdId: string) =>
  async (tx: StoreTx, after: LedgerState): Promise<HoldResult> => {
    const hold = holdOf(after, holdId);
    if (!hold) throw notFound(LEDGER_MESSAGES.holdNotFound);
    return { hold, balances: await balancesOf(tx, userId) };
  };

export async function placeHold(
  ctx: LedgerContext,
  input: InternalCall & { holdId: string; purpose: HoldPurpose; amountCents: Cents },
): Promise<HoldResult> {
  const userId = requireUser(input.userId);
  const holdId = checkKey(input.holdId);
  const idempotencyKey = checkKey(input.idempotencyKey || holdId);
  const { purpose, amountCents } = input;
  return post(
    ctx,
    { type: 'PlaceHold', userId, holdId, purpose, amountCents, idempotencyKey },
    input.actor,
    holdAnswer(userId, holdId),
  );
}

export async function settleHold(
  ctx: LedgerContext,
  input: InternalCall & { holdId: string; outcome: 'capture' | 'release' },
): Promise<HoldResult> {
  const userId = requireUser(input.userId);
  const holdId = checkKey(input.holdId);
  const idempotencyKey = checkKey(input.idempotencyKey || `${input.outcome}:${holdId}`);
  const type = input.outcome === 'capture' ? 'CaptureHold' : 'ReleaseHold';
  return post(ctx, { type, userId, holdId, idempotencyKey }, input.actor, holdAnswer(userId, holdId));
}

export async function settleMaturity(
  ctx: LedgerContext,
  input: InternalCall & { investmentId: string; principalCents: Cents; maturityAmountCents: Cents },
): Promise<BalancesDoc> {
  const userId = requireUser(input.userId);
  const investmentId = checkKey(input.investmentId);
  const idempotencyKey = checkKey(input.idempotencyKey || `maturity:${investmentId}`);
  const { principalCents, maturityAmountCents } = input;
  return post(
    ctx,
    { type: 'SettleMaturity', userId, investmentId, principalCents, maturityAmountCents, idempotencyKey },
    input.actor,
    (tx) => balancesOf(tx, userId),
  );
}

export type MaturityItem = {
  userId: string;
  investmentId: string;
  principalCents: Cents;
  maturityAmountCents: Cents;
  idempotencyKey?: string;
};
/** One item's outcome: settled (now or earlier under the same key), or the refusal that stopped it. */
export type MaturityOutcome =
  | { investmentId: string; settled: true }
  | {
      investmentId: string;
      settled: false;
      error: Error;
    };

/** The transaction a command posted (its TransactionPosted's id). */
const transactionIdOf = (result: LedgerResult): string | undefined => {
  const posted = result.events.find((e) => e.type === 'TransactionPosted');
  return posted ? (posted.data as { transactionId: string }).transactionId : undefined;
};

/** Items settled per store transaction (one commit for the lot: the group commit of a batch). */
export const MATURITY_CHUNK = 500;

/**
 * The close-of-business batch: many maturities, each as SettleMaturity would settle it (its own
 * idempotency key, `maturity:<investmentId>` by default), preceded by the capture of its investment's
 * hold when that is still owed (`capture:<investmentId>`, as the investment service's single call does).
 * Items are grouped MATURITY_CHUNK to a store transaction, each item in a nested one (a savepoint): an
 * item's refusal undoes that item only, and a crash between chunks leaves the committed chunks settled
 * and the rest for a retry (which the keys make exactly-once). The postings of a chunk announce no
 * balances of their own: each user the chunk posted on gets ONE BalancesChanged at its end, with the
 * balances after their last posting (the balances view, identity's user view and the live push want the
 * latest balances, not every step; each posting is still its own TransactionPosted).
 */
export async function settleMaturities(
  ctx: LedgerContext,
  input: { items: readonly MaturityItem[]; actor?: Actor },
): Promise<MaturityOutcome[]> {
  const outcomes: MaturityOutcome[] = [];
  for (let at = 0; at < input.items.length; at += MATURITY_CHUNK) {
    const chunk = input.items.slice(at, at + MATURITY_CHUNK);
    const settled = await inTransaction(ctx, async (tx) => {
      const out: MaturityOutcome[] = [];
      const meta = metaOf(ctx, input.actor);
      /** The users whose ledger the chunk posted on, with their last posting's transaction id. */
      const posted = new Map<string, string>();
      for (const item of chunk) {
        try {
          const last = await ctx.store.transaction(async (inner) => {
            const userId = requireUser(item.userId);
            const investmentId = checkKey(item.investmentId);
            const idempotencyKey = checkKey(item.idempotencyKey || `maturity:${investmentId}`);
            const hold = holdOf(
              await ledgerStateFor(inner, userId, [{ kind: 'holds', key: investmentId }]),
              investmentId,
            );
            const now = ctx.clock();
            let lastTransaction: string | undefined;
            if (hold?.purpose === 'investment' && hold.status === 'held') {
              const capture = await executeLedger(
                inner,
                {
                  type: 'CaptureHold',
                  userId,
                  holdId: investmentId,
                  idempotencyKey: `capture:${investmentId}`,
                  transactionId: ctx.newId(),
                  now,
                },
                meta,
                { deferBalances: true },
              );
              if (capture.events.length) lastTransaction = transactionIdOf(capture);
            }
            const { principalCents, maturityAmountCents } = item;
            const settlement = await executeLedger(
              inner,
              {
                type: 'SettleMaturity',
                userId,
                investmentId,
                principalCents,
                maturityAmountCents,
                idempotencyKey,
                transactionId: ctx.newId(),
                now,
              },
              meta,
              { deferBalances: true },
            );
            if (settlement.events.length) lastTransaction = transactionIdOf(settlement);
            return lastTransaction ? { userId, transactionId: lastTransaction } : null;
          });
          if (last) posted.set(last.userId, last.transactionId);
          out.push({ investmentId: item.investmentId, settled: true });
        } catch (err) {
          if (err instanceof ConcurrencyError) throw err; // the chunk runs again
          out.push({ investmentId: item.investmentId, settled: false, error: err as Error });
        }
      }
      // one BalancesChanged per user of the chunk, with the balances after its last posting
      for (const [userId, transactionId] of posted) await announceBalances(tx, userId, transactionId, meta);
      return out;
    });
    outcomes.push(...settled);
  }
  return outcomes;
}

/** An admin's balance edit: never their own balances, never while impersonating (maker-checker). */
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
  refuseWhileImpersonating(input.actor);
  const admin = requireAdmin(input.actor);
  const userId = requireUser(input.userId);
  refuseOwnBalances(admin.userId, userId);
  const amountCents = parseDollarsToCents(input.amount);
  const idempotencyKey = input.idempotencyKey ? checkKey(input.idempotencyKey) : ctx.newId();
  const { account, operation, reason } = input;
  return post(
    ctx,
    {
      type: 'AdjustBalance',
      userId,
      adminId: admin.userId,
      actorRole: admin.role,
      account,
      operation,
      amountCents,
      reason,
      idempotencyKey,
    },
    admin,
    (tx) => balancesOf(tx, userId),
    // the ledger learns users from identity's events: never money for someone unknown or deleted
    async (tx) => {
      if (!(await isLiveUser(tx, userId))) throw notFound(MESSAGES.userNotFound);
    },
  );
}

export async function getBalances(
  ctx: LedgerContext,
  input: { actor?: Actor; userId: string; internal?: boolean },
): Promise<BalancesDoc> {
  const userId = input.userId || requireActor(input.actor).userId;
  if (!input.internal) requireOwnerOrAdmin(input.actor, userId);
  return balancesOf(ctx.store, userId);
}

/** Admin: several users' balances at once (a page of an admin queue), in the order asked; at most 500. */
export async function listBalances(
  ctx: LedgerContext,
  input: { actor?: Actor; userIds: string[] },
): Promise<BalancesDoc[]> {
  requireAdmin(input.actor);
  if (input.userIds.length > 500) throw invalid('At most 500 users at once');
  return Promise.all(input.userIds.map((userId) => balancesOf(ctx.store, userId)));
}

/** The hold as the ledger stream has it (tests and diagnostics). */
export async function findHold(
  ctx: LedgerContext,
  userId: string,
  holdId: string,
): Promise<Hold | undefined> {
  return holdOf(await ledgerStateFor(ctx.store, userId, [{ kind: 'holds', key: holdId }]), holdId);
}

export async function listTransactions(
  ctx: LedgerContext,
  input: { actor: Actor; userId?: string; limit?: number; offset?: number; cursor?: string },
): Promise<{ items: TransactionDoc[]; total: number; nextCursor: string }> {
  const userId = input.userId || requireActor(input.actor).userId;
  requireOwnerOrAdmin(input.actor, userId);
  // a cursor: a keyset page (platform ports/pages.ts; a bad cursor or limit is refused); else by offset, as before
  const after = input.cursor ? pageRequest({ limit: input.limit, cursor: input.cursor }) : null;
  const limit = Math.min(Math.max(input.limit || 100, 1), 500);
  const offset = Math.max(input.offset || 0, 0);
  return transactionsOfUser(ctx.store, userId, { limit, offset, after });
}
