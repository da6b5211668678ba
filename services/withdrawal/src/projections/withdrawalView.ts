/**
 * Read models of the withdrawal service, written in the same transaction as the events they come
 * from. Pure: `projectWithdrawal(doc, event)` turns the current document and one stored event into the
 * next document; the queries below read them.
 *
 * | collection  | id           | from                                                   |
 * |-------------|--------------|--------------------------------------------------------|
 * | withdrawals | withdrawalId | the withdrawal's own events (state + queue fields)     |
 * | users       | userId       | identity's UserRegistered / ProfileUpdated (directory) |
 *
 * `sync` names the ledger call an event still owes (hold, capture, release), set by the event and
 * cleared by the app once the ledger answered: the process manager re-drives whatever is left.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { type ExistingWithdrawal, type WithdrawalEvent, evolve } from '../domain/withdrawal.js';
import type { WalletNetwork } from '../domain/walletAddress.js';

export const COLLECTIONS = { withdrawals: 'withdrawals', users: 'users' } as const;

export type LedgerSync = 'none' | 'hold' | 'capture' | 'release';

export type WithdrawalDoc = ExistingWithdrawal & {
  network: WalletNetwork | '';
  /** version of withdrawal-<id> the document is at */
  version: number;
  sync: LedgerSync;
  /** when `sync` was set (ISO) */
  syncSince: string;
  /** shown in the owner's list (false for a request the ledger refused to hold) */
  listed: boolean;
};

export type UserDoc = { userId: string; name: string; email: string };

const SYNC_OF: Record<WithdrawalEvent['type'], LedgerSync> = {
  WithdrawalRequested: 'hold',
  HoldPlaced: 'none',
  HoldRefused: 'none',
  WithdrawalApproved: 'capture',
  WithdrawalRejected: 'release',
};

export function projectWithdrawal(
  doc: WithdrawalDoc | null,
  event: StoredEvent<WithdrawalEvent>,
): WithdrawalDoc | null {
  const domainEvent = { type: event.type, data: event.data } as WithdrawalEvent;
  const next = evolve(doc ?? { status: 'none' }, domainEvent);
  if (next.status === 'none') return doc;
  return {
    ...next,
    network: domainEvent.type === 'WithdrawalRequested' ? domainEvent.data.network : (doc?.network ?? ''),
    version: event.version,
    sync: SYNC_OF[domainEvent.type],
    syncSince: event.occurredAt,
    listed: next.hold !== 'refused',
  } as WithdrawalDoc;
}

export function projectUser(
  doc: UserDoc | null,
  data: { userId: string; name?: string; email?: string },
): UserDoc {
  return { userId: data.userId, name: data.name ?? doc?.name ?? '', email: data.email ?? doc?.email ?? '' };
}

// ---------- queries ----------

export const withdrawalById = (reads: StoreReads, id: string) =>
  reads.get<WithdrawalDoc>(COLLECTIONS.withdrawals, id);

export const userById = (reads: StoreReads, id: string) => reads.get<UserDoc>(COLLECTIONS.users, id);

/** The owner's withdrawals, newest first (refused requests left out). */
export function withdrawalsOfUser(reads: StoreReads, userId: string): Promise<WithdrawalDoc[]> {
  return reads.find<WithdrawalDoc>(COLLECTIONS.withdrawals, {
    where: { userId, listed: true },
    orderBy: { field: 'requestDate', direction: 'desc' },
  });
}

/** The admin queue: Pending with the funds held, oldest first. */
export function pendingWithdrawals(reads: StoreReads): Promise<WithdrawalDoc[]> {
  return reads.find<WithdrawalDoc>(COLLECTIONS.withdrawals, {
    where: { status: 'Pending', hold: 'placed' },
    orderBy: { field: 'requestDate', direction: 'asc' },
  });
}

/** Documents that still owe a ledger call. */
export function owingLedger(
  reads: StoreReads,
  sync: Exclude<LedgerSync, 'none'>,
  limit = 200,
): Promise<WithdrawalDoc[]> {
  return reads.find<WithdrawalDoc>(COLLECTIONS.withdrawals, {
    where: { sync },
    orderBy: { field: 'syncSince', direction: 'asc' },
    limit,
  });
}
