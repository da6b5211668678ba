/**
 * Holds, captures, releases, maturity settlement, admin adjustments, balances and history.
 * Holds and settlements are internal calls of the investment and withdrawal services: the request id
 * is the hold id and (by default) the idempotency key, so a re-driven request never holds twice.
 */
import { refuseOwnBalances, refuseWhileImpersonating } from '@meridian/platform/domain/makerChecker';
import { DomainError, invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import { pageRequest } from '@meridian/platform/ports/pages';
import { Mutex } from '@meridian/platform/util/async';
import {
  type AdjustableAccount,
  type AdjustmentOperation,
  type Hold,
  type HoldPurpose,
  type LedgerCommand,
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
  userById,
} from '../projections/views.js';
import {
  type Actor,
  type LedgerContext,
  MESSAGES,
  checkKey,
  inTransaction,
  metaOf,
  personalDataIn,
  requireAdmin,
  requireActor,
  requireOwnerOrAdmin,
} from './context.js';
import { type BatchItem, handleCommand, handleCommands } from '@meridian/platform/app/commandHandler';
import { LEDGER_STREAM, ledgerStateFor } from './streams.js';

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
    const { after } = await handleCommand(tx, LEDGER_STREAM, command.userId, command, metaOf(ctx, actor));
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

/**
 * An investment's maturity: its hold captured first when that is still owed (`capture:<investmentId>`: an
 * approval whose capture was lost), then principal + profit into Total Profit (`maturity:<investmentId>` by
 * default). One batch item, so the single call and the close-of-business batch settle the same way.
 */
export async function settleMaturity(
  ctx: LedgerContext,
  input: InternalCall & { investmentId: string; principalCents: Cents; maturityAmountCents: Cents },
): Promise<BalancesDoc> {
  const item = maturityItem(ctx, input);
  return inTransaction(ctx, async (tx) => {
    const { outcomes } = await handleCommands(
      tx,
      LEDGER_STREAM,
      item.userId,
      [item],
      metaOf(ctx, input.actor),
    );
    const [outcome] = outcomes;
    if (!outcome.ok) throw outcome.error;
    return balancesOf(tx, item.userId);
  });
}

/** A maturity as one batch item on its user's ledger: the capture when the hold is still held, then the settlement. */
function maturityItem(
  ctx: LedgerContext,
  item: MaturityItem,
): BatchItem<LedgerCommand, LedgerState> & { userId: string } {
  const userId = requireUser(item.userId);
  const investmentId = checkKey(item.investmentId);
  const idempotencyKey = checkKey(item.idempotencyKey || `maturity:${investmentId}`);
  const now = ctx.clock();
  const capture: MoneyCommand = {
    type: 'CaptureHold',
    userId,
    holdId: investmentId,
    idempotencyKey: `capture:${investmentId}`,
    transactionId: ctx.newId(),
    now,
  };
  const settle: MoneyCommand = {
    type: 'SettleMaturity',
    userId,
    investmentId,
    principalCents: item.principalCents,
    maturityAmountCents: item.maturityAmountCents,
    idempotencyKey,
    transactionId: ctx.newId(),
    now,
  };
  return {
    userId,
    reads: [capture, settle],
    commands: (state) => {
      const hold = holdOf(state, investmentId);
      return hold?.purpose === 'investment' && hold.status === 'held' ? [capture, settle] : [settle];
    },
  };
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

/** Items settled per store transaction (one commit for the lot: the group commit of a batch). */
export const MATURITY_CHUNK = 500;

/**
 * The close-of-business batch: many maturities, each as SettleMaturity would settle it (its own
 * idempotency key, `maturity:<investmentId>` by default), preceded by the capture of its investment's
 * hold when that is still owed (`capture:<investmentId>`, as the investment service's single call does).
 * Items are grouped MATURITY_CHUNK to a store transaction and, within it, by user: each user's items are
 * decided in memory in the order given and written as ONE append (handleCommands: the state row read
 * once, one BalancesChanged with the balances after the user's last posting, one projection pass; each
 * posting is still its own TransactionPosted with its own key and chain link). An item's refusal undoes
 * that item only; a crash between chunks leaves the committed chunks settled and the rest for a retry
 * (which the keys make exactly-once).
 */
export function settleMaturities(
  ctx: LedgerContext,
  input: { items: readonly MaturityItem[]; actor?: Actor },
): Promise<MaturityOutcome[]> {
  let queue = batchQueues.get(ctx.store);
  if (!queue) batchQueues.set(ctx.store, (queue = new Mutex()));
  return queue.run(() => settleMaturitiesNow(ctx, input));
}

/**
 * Batch calls on one store, one after the other: a scheduler keeps a second call queued so that the ledger
 * never waits for it (investment app/investments.ts MATURITY_CALLS_IN_FLIGHT); run side by side, their
 * chunks would gain nothing (the store runs one transaction at a time) and only share its transactions as
 * savepoints, a 1,000-item batch's documents held twice.
 */
const batchQueues = new WeakMap<object, Mutex>();

async function settleMaturitiesNow(
  ctx: LedgerContext,
  input: { items: readonly MaturityItem[]; actor?: Actor },
): Promise<MaturityOutcome[]> {
  const outcomes: MaturityOutcome[] = [];
  for (let at = 0; at < input.items.length; at += MATURITY_CHUNK) {
    const chunk = input.items.slice(at, at + MATURITY_CHUNK);
    const settled = await inTransaction(ctx, async (tx) => {
      const out: MaturityOutcome[] = new Array(chunk.length);
      const meta = metaOf(ctx, input.actor);
      /** per user, the chunk's items on their ledger (in the order given) and where their outcomes go */
      const byUser = new Map<string, { items: BatchItem<LedgerCommand, LedgerState>[]; at: number[] }>();
      chunk.forEach((item, i) => {
        try {
          const built = maturityItem(ctx, item);
          const group = byUser.get(built.userId) ?? { items: [], at: [] };
          byUser.set(built.userId, group);
          group.items.push(built);
          group.at.push(i);
        } catch (err) {
          out[i] = { investmentId: item.investmentId, settled: false, error: err as Error };
        }
      });
      for (const [userId, group] of byUser) {
        const { outcomes: results } = await handleCommands(tx, LEDGER_STREAM, userId, group.items, meta);
        results.forEach((r, j) => {
          const { investmentId } = chunk[group.at[j]];
          out[group.at[j]] = r.ok
            ? { investmentId, settled: true }
            : { investmentId, settled: false, error: r.error };
        });
      }
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
  await refuseUnknownUntilCaughtUp(ctx, userId);
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

/**
 * The ledger learns users from identity's events, so a user registered while it was down (or catching up after a
 * restart) is missing from its directory for a while. Missing yet known to their owner (identity holds a
 * personal-data key for them, asked over gRPC): 503, retry shortly, never "not found". Missing and unknown to
 * identity too (never existed, or deleted: the key destroyed): the check in the transaction answers not found.
 */
async function refuseUnknownUntilCaughtUp(ctx: LedgerContext, userId: string): Promise<void> {
  if (await userById(ctx.store, userId)) return;
  if ((await personalDataIn(ctx).key(userId)) !== null)
    throw new DomainError('unavailable', MESSAGES.userNotCaughtUp, 'USER_NOT_CAUGHT_UP');
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
