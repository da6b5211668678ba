/**
 * A user's account closed in a money service (ledger, investment, withdrawal) before identity deletes the
 * user: the fence that keeps a deleted user's money still. The gateway's DELETE api/users/{id} closes the
 * account in every money service first (each in one transaction, with its pending requests counted or
 * cancelled: the CloseAccount RPC), then asks identity to delete, and reopens the accounts when the
 * deletion does not go ahead. A closed account takes no new request (refused as its owner being deleted)
 * and, its pending requests all decided at closure, no decision. Identity's UserDeleted closes it too (a
 * deletion the fence did not see).
 */
import type { CloseAccountRequest } from '@meridian/proto/meridian/common/v1/common';
import { forbidden, notFound } from '../eventSourcing/errors.js';
import { CLOSED_ACCOUNTS, type ClosedAccountDoc, isAccountClosed } from '../projections/closedAccounts.js';
import type { StoreReads, StoreTx } from '../ports/serviceStore.js';
import {
  actorOf,
  inTransaction,
  requireAdmin,
  type Actor,
  type TransactionContext,
} from './requestContext.js';

export { isAccountClosed };

export const ACCOUNT_CLOSURE_MESSAGES = {
  closed: 'User not found or deleted',
  self: 'You cannot delete your own account',
} as const;

/** Refuses (not found, as the ledger answers a deleted user) a command on a closed account. */
export async function refuseClosedAccount(reads: StoreReads, userId: string): Promise<void> {
  if (await isAccountClosed(reads, userId)) throw notFound(ACCOUNT_CLOSURE_MESSAGES.closed);
}

/** Closes the account (again: no change), for good when `deleted` (identity's UserDeleted). */
export async function markAccountClosed(
  tx: StoreTx,
  userId: string,
  at: Date,
  by: string,
  options: { deleted?: boolean } = {},
): Promise<void> {
  const doc = await tx.get<ClosedAccountDoc>(CLOSED_ACCOUNTS, userId);
  if (doc && (doc.deleted || !options.deleted)) return;
  await tx.put<ClosedAccountDoc>(CLOSED_ACCOUNTS, userId, {
    userId,
    closedAt: doc?.closedAt ?? at.toISOString(),
    closedBy: doc?.closedBy ?? by,
    ...(options.deleted ? { deleted: true } : {}),
  });
}

/** Reopens an account the deletion closed when the deletion did not go ahead; a deleted user's stays closed. */
export async function reopenAccount(tx: StoreTx, userId: string): Promise<void> {
  const doc = await tx.get<ClosedAccountDoc>(CLOSED_ACCOUNTS, userId);
  if (doc && !doc.deleted) await tx.delete(CLOSED_ACCOUNTS, userId);
}

/** What a CloseAccount call asks, and its answer (common.proto CloseAccountRequest / Response). */
export type CloseAccountInput = { actor: Actor; userId: string; cancelPending: boolean; reopen: boolean };
export type CloseAccountAnswer = { closed: boolean; pending: number; balanceCents: number };

/** A CloseAccount RPC's request as the use case takes it (the actor as the gateway filled it). */
export const closeAccountInputOf = (req: CloseAccountRequest): CloseAccountInput => ({
  actor: actorOf(req.caller, req.callerRole),
  userId: req.userId,
  cancelPending: req.cancelPending,
  reopen: req.reopen,
});

/** The admin who may close an account: an admin, not closing their own. */
export function requireClosingAdmin(input: CloseAccountInput): Actor {
  const actor = requireAdmin(input.actor);
  if (actor.userId === input.userId) throw forbidden(ACCOUNT_CLOSURE_MESSAGES.self);
  if (!input.userId) throw notFound(ACCOUNT_CLOSURE_MESSAGES.closed);
  return actor;
}

/** What a money service holds for a user when the account closes: its pending requests, and the balance it keeps (0 where it keeps none). */
export interface Holdings<P> {
  pending: P[];
  balanceCents: number;
}

/**
 * CloseAccount as every money service runs it: the closing admin checked (requireClosingAdmin); with
 * `reopen`, the account reopened; else, in one transaction, the user's holdings read and, when the user holds
 * nothing or the call says cancelPending, each pending request cancelled in the closing admin's name (its
 * stream decides: a decision racing the closure on the same request is refused by the stream's version) and
 * the account closed. The answer carries the cancelled requests, for what the service tells others after the
 * commit.
 */
export async function closeAccountWith<P>(
  ctx: TransactionContext & { clock: () => Date },
  input: CloseAccountInput,
  steps: {
    holdings(tx: StoreTx): Promise<Holdings<P>>;
    cancel(tx: StoreTx, pending: P, closing: { actor: Actor; now: Date }): Promise<unknown>;
  },
): Promise<CloseAccountAnswer & { cancelled: P[] }> {
  const actor = requireClosingAdmin(input);
  return inTransaction(ctx, async (tx) => {
    if (input.reopen) {
      await reopenAccount(tx, input.userId);
      return { closed: false, pending: 0, balanceCents: 0, cancelled: [] };
    }
    const { pending, balanceCents } = await steps.holdings(tx);
    if ((pending.length > 0 || balanceCents !== 0) && !input.cancelPending)
      return { closed: false, pending: pending.length, balanceCents, cancelled: [] };
    const now = ctx.clock();
    for (const item of pending) await steps.cancel(tx, item, { actor, now });
    await markAccountClosed(tx, input.userId, now, actor.userId);
    return { closed: true, pending: pending.length, balanceCents, cancelled: pending };
  });
}
