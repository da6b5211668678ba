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
import { heldRequests } from '@meridian/platform/app/heldRequest/heldRequests';
import {
  type WithUser,
  withUser as withUserOf,
  withUsers as withUsersOf,
} from '@meridian/platform/app/heldRequest/userDirectory';
import { WITHDRAWAL_MESSAGES, parseWithdrawalAmount, validateRequest } from '../domain/withdrawal.js';
import {
  type WithdrawalDoc,
  owingLedger,
  pendingWithdrawals,
  withdrawalById,
  withdrawalsOfUser,
} from '../projections/withdrawalView.js';
import {
  type Actor,
  type WithdrawalContext,
  MESSAGES,
  checkId,
  executeWithdrawal,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './context.js';

export const SUCCESS = {
  requested: 'Withdrawal request submitted successfully',
  approved: 'Withdrawal approved successfully',
  rejected: 'Withdrawal rejected successfully',
} as const;

export type WithdrawalView = WithUser<WithdrawalDoc>;

const withUser = (ctx: WithdrawalContext, doc: WithdrawalDoc) => withUserOf(ctx.store, doc);
const withUsers = (ctx: WithdrawalContext, docs: WithdrawalDoc[]) => withUsersOf(ctx.store, docs);

/** The held-money request of a withdrawal: Total Profit held, captured (paid out) or released on decision. */
const withdrawals = heldRequests({
  purpose: 'withdrawal',
  idField: 'withdrawalId',
  messages: {
    ...WITHDRAWAL_MESSAGES,
    pendingOutcome: MESSAGES.pendingOutcome,
    idRequired: 'Withdrawal id is required',
  },
  owedCalls: ['hold', 'capture', 'release'],
  decisions: { approve: 'ApproveWithdrawal', reject: 'RejectWithdrawal' },
  load: (ctx: WithdrawalContext, id) => withdrawalById(ctx.store, id),
  owing: (ctx, sync) => owingLedger(ctx.store, sync as Exclude<WithdrawalDoc['sync'], 'none'>),
  availableCents: async (ctx, userId) => (await ctx.ledger.getBalances(userId)).profitCents,
  execute: (ctx, id, command, meta) => executeWithdrawal(ctx, id, () => command, meta),
});

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
  const doc = await withdrawals.submit(ctx, {
    actor,
    requestId: withdrawalId,
    validate: () => validateRequest(request),
    record: (availableProfitCents, meta) =>
      executeWithdrawal(
        ctx,
        withdrawalId,
        () => ({ type: 'RequestWithdrawal', ...request, availableProfitCents }),
        meta,
      ),
  });
  return { message: SUCCESS.requested, withdrawal: await withUser(ctx, doc) };
}

/** Asks the ledger to hold the amount of a request still awaiting its outcome and records the answer. */
export const placeHoldFor = (ctx: WithdrawalContext, withdrawalId: string): Promise<WithdrawalDoc | null> =>
  withdrawals.placeHoldFor(ctx, withdrawalId);

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
  const synced = await withdrawals.decide(ctx, {
    actor: input.actor,
    requestId: input.withdrawalId,
    decision: input.decision,
  });
  return {
    message: input.decision === 'approve' ? SUCCESS.approved : SUCCESS.rejected,
    withdrawal: await withUser(ctx, synced),
  };
}

// ---------- the ledger calls an event owes ----------

/** Makes the ledger call the withdrawal owes (`sync`) and records its confirmation (see heldRequests). */
export const syncLedger = (ctx: WithdrawalContext, withdrawalId: string): Promise<WithdrawalDoc | null> =>
  withdrawals.syncLedger(ctx, withdrawalId);

/** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
export const redriveOwed = (ctx: WithdrawalContext, olderThanMs: number): Promise<number> =>
  withdrawals.redriveOwed(ctx, olderThanMs);
