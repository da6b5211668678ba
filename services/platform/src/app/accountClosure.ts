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
import { actorOf } from './requestContext.js';
import { CLOSED_ACCOUNTS, type ClosedAccountDoc, isAccountClosed } from '../projections/closedAccounts.js';

export { isAccountClosed };
import type { StoreReads, StoreTx } from '../ports/serviceStore.js';
import { requireAdmin, type Actor } from './requestContext.js';

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
