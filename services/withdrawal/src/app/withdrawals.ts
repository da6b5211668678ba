/**
 * Use cases of the withdrawal service. Money requests answer synchronously (DESIGN.md §4): record the
 * request, ask the ledger to hold the amount on Total Profit with the withdrawal id as idempotency key,
 * record the outcome, answer it. Decisions are recorded first (the stream's version decides which admin
 * wins), then the ledger is told (capture = paid out to the outside world, release = back to Total
 * Profit) and its confirmation is recorded as an event (HoldCaptured, HoldReleased); whatever the ledger
 * did not confirm stays owed — the read model's `sync`, projected from the events — and the process
 * manager completes it.
 */
import { invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import { answerHeldRequest, placeHoldForRequest } from '@meridian/ledger/client/heldRequest';
import { WITHDRAWAL_MESSAGES, parseWithdrawalAmount, validateRequest } from '../domain/withdrawal.js';
import {
  type UserDoc,
  type WithdrawalDoc,
  owingLedger,
  pendingWithdrawals,
  userById,
  withdrawalById,
  withdrawalsOfUser,
} from '../projections/withdrawalView.js';
import {
  type Actor,
  type WithdrawalContext,
  MESSAGES,
  checkId,
  executeWithdrawal,
  isUnknownOutcome,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './context.js';

export const SUCCESS = {
  requested: 'Withdrawal request submitted successfully',
  approved: 'Withdrawal approved successfully',
  rejected: 'Withdrawal rejected successfully',
} as const;

export type WithdrawalView = WithdrawalDoc & { userName: string; userEmail: string };

async function withUser(ctx: WithdrawalContext, doc: WithdrawalDoc): Promise<WithdrawalView> {
  const user = await userById(ctx.store, doc.userId);
  return { ...doc, userName: user?.name ?? '', userEmail: user?.email ?? '' };
}

async function withUsers(ctx: WithdrawalContext, docs: WithdrawalDoc[]): Promise<WithdrawalView[]> {
  const users = new Map<string, UserDoc | null>();
  for (const d of docs) if (!users.has(d.userId)) users.set(d.userId, await userById(ctx.store, d.userId));
  return docs.map((d) => ({
    ...d,
    userName: users.get(d.userId)?.name ?? '',
    userEmail: users.get(d.userId)?.email ?? '',
  }));
}

// ---------- request ----------

export async function requestWithdrawal(
  ctx: WithdrawalContext,
  input: {
    actor: Actor;
    isVerified: boolean;
    kycStatus: string;
    amount: unknown;
    walletAddress: string;
    withdrawalId?: string;
  },
): Promise<{ message: string; withdrawal: WithdrawalView }> {
  const actor = requireActor(input.actor);
  const withdrawalId = input.withdrawalId ? checkId(input.withdrawalId) : ctx.newId();
  const amountCents = parseWithdrawalAmount(input.amount);
  const request = {
    withdrawalId,
    userId: actor.userId,
    isVerified: input.isVerified,
    kycStatus: input.kycStatus ?? '',
    amountCents,
    walletAddress: input.walletAddress ?? '',
    now: ctx.clock(),
  };
  const existing = await withdrawalById(ctx.store, withdrawalId);
  // every rule but the balance first, so a bad request never waits on the ledger
  if (!existing) validateRequest(request);
  const availableProfitCents = existing ? 0 : (await ctx.ledger.getBalances(actor.userId)).profitCents;
  await executeWithdrawal(
    ctx,
    withdrawalId,
    () => ({ type: 'RequestWithdrawal', ...request, availableProfitCents }),
    metaOf(ctx, actor),
  );

  const doc = answerHeldRequest(await placeHoldFor(ctx, withdrawalId), {
    notFound: WITHDRAWAL_MESSAGES.notFound,
    insufficientBalance: WITHDRAWAL_MESSAGES.insufficientBalance,
    pendingOutcome: MESSAGES.pendingOutcome,
  });
  return { message: SUCCESS.requested, withdrawal: await withUser(ctx, doc) };
}

/**
 * Asks the ledger to hold the amount of a request still awaiting its outcome and records the answer.
 * Idempotent (the ledger's key is the withdrawal id): the request path and the process manager may both
 * call it. An unknown outcome leaves the request awaiting.
 */
export async function placeHoldFor(
  ctx: WithdrawalContext,
  withdrawalId: string,
): Promise<WithdrawalDoc | null> {
  return placeHoldForRequest({
    ledger: ctx.ledger,
    logger: ctx.logger,
    clock: ctx.clock,
    requestId: withdrawalId,
    purpose: 'withdrawal',
    logFields: { withdrawalId },
    load: () => withdrawalById(ctx.store, withdrawalId),
    meta: () => metaOf(ctx),
    record: async (command, meta) => (await executeWithdrawal(ctx, withdrawalId, () => command, meta)).doc,
  });
}

// ---------- reads ----------

export async function listPending(
  ctx: WithdrawalContext,
  input: { actor: Actor },
): Promise<WithdrawalView[]> {
  requireAdmin(input.actor);
  return withUsers(ctx, await pendingWithdrawals(ctx.store));
}

export async function listUserWithdrawals(
  ctx: WithdrawalContext,
  input: { actor: Actor; userId?: string },
): Promise<WithdrawalView[]> {
  const actor = requireActor(input.actor);
  const userId = input.userId || actor.userId;
  requireOwnerOrAdmin(actor, userId);
  return withUsers(ctx, await withdrawalsOfUser(ctx.store, userId));
}

export async function getWithdrawal(
  ctx: WithdrawalContext,
  input: { actor: Actor; withdrawalId: string },
): Promise<WithdrawalView> {
  const actor = requireActor(input.actor);
  if (!input.withdrawalId) throw invalid('Withdrawal id is required');
  const doc = await withdrawalById(ctx.store, input.withdrawalId);
  if (!doc) throw notFound(WITHDRAWAL_MESSAGES.notFound);
  requireOwnerOrAdmin(actor, doc.userId);
  return withUser(ctx, doc);
}

// ---------- admin decisions ----------

export async function decideWithdrawal(
  ctx: WithdrawalContext,
  input: { actor: Actor; withdrawalId: string; decision: 'approve' | 'reject' },
): Promise<{ message: string; withdrawal: WithdrawalView }> {
  const actor = requireAdmin(input.actor);
  if (!input.withdrawalId) throw invalid('Withdrawal id is required');
  const now = ctx.clock();
  const { doc } = await executeWithdrawal(
    ctx,
    input.withdrawalId,
    () => ({
      type: input.decision === 'approve' ? 'ApproveWithdrawal' : 'RejectWithdrawal',
      adminId: actor.userId,
      actorRole: actor.role,
      now,
    }),
    metaOf(ctx, actor),
  );
  if (!doc) throw notFound(WITHDRAWAL_MESSAGES.notFound);
  const synced = (await syncLedger(ctx, input.withdrawalId)) ?? doc;
  return {
    message: input.decision === 'approve' ? SUCCESS.approved : SUCCESS.rejected,
    withdrawal: await withUser(ctx, synced),
  };
}

// ---------- the ledger calls an event owes ----------

/**
 * Makes the ledger call the withdrawal owes (`sync`), then records the ledger's confirmation as an event
 * (which clears `sync`); see investment's syncLedger.
 */
export async function syncLedger(
  ctx: WithdrawalContext,
  withdrawalId: string,
): Promise<WithdrawalDoc | null> {
  const doc = await withdrawalById(ctx.store, withdrawalId);
  if (!doc || doc.sync === 'none') return doc;
  if (doc.sync === 'hold') return placeHoldFor(ctx, withdrawalId);
  try {
    if (doc.sync === 'capture')
      await ctx.ledger.captureHold({
        userId: doc.userId,
        holdId: withdrawalId,
        idempotencyKey: `capture:${withdrawalId}`,
      });
    else
      await ctx.ledger.releaseHold({
        userId: doc.userId,
        holdId: withdrawalId,
        idempotencyKey: `release:${withdrawalId}`,
      });
  } catch (err) {
    const level = isUnknownOutcome(err) ? 'warn' : 'error';
    ctx.logger[level](
      { err, withdrawalId, sync: doc.sync },
      'ledger call not confirmed; left for the process manager',
    );
    return doc;
  }
  const type = doc.sync === 'capture' ? 'RecordHoldCaptured' : 'RecordHoldReleased';
  const { doc: recorded } = await executeWithdrawal(
    ctx,
    withdrawalId,
    () => ({ type, now: ctx.clock() }),
    metaOf(ctx),
  );
  return recorded;
}

/** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
export async function redriveOwed(ctx: WithdrawalContext, olderThanMs: number): Promise<number> {
  const cutoff = ctx.clock().getTime() - olderThanMs;
  let driven = 0;
  for (const sync of ['hold', 'capture', 'release'] as const) {
    for (const doc of await owingLedger(ctx.store, sync)) {
      if (Date.parse(doc.syncSince) > cutoff) continue;
      await syncLedger(ctx, doc.withdrawalId);
      driven++;
    }
  }
  return driven;
}
