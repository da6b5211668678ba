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
 * `sync` names the ledger call the withdrawal still owes (hold, capture, release): a projection of the
 * stream like every other field (`ledgerCallOwed` of the domain), set by a decision and cleared by the
 * event recording the ledger's confirmation (HoldPlaced, HoldCaptured, HoldReleased). The process manager
 * reads its to-do list here and writes nothing but events, so every collection can be dropped and
 * rebuilt from the events alone (`rebuildWithdrawals`; the users directory by replaying identity's
 * topic, which is kept forever).
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { ServiceStore, StoreReads } from '@meridian/platform/ports/serviceStore';
import {
  type ExistingWithdrawal,
  type LedgerCallOwed,
  type WithdrawalEvent,
  evolve,
  ledgerCallOwed,
  toWithdrawalStreamId,
} from '../domain/withdrawal.js';
import type { WalletNetwork } from '../domain/walletAddress.js';

export const COLLECTIONS = { withdrawals: 'withdrawals', users: 'users' } as const;

export type LedgerSync = LedgerCallOwed;

export type WithdrawalDoc = ExistingWithdrawal & {
  network: WalletNetwork | '';
  /** version of withdrawal-<id> the document is at */
  version: number;
  sync: LedgerSync;
  /** when the call named by `sync` became owed (ISO) */
  syncSince: string;
  /** shown in the owner's list (false for a request the ledger refused to hold) */
  listed: boolean;
};

export type UserDoc = { userId: string; name: string; email: string };

export function projectWithdrawal(
  doc: WithdrawalDoc | null,
  event: StoredEvent<WithdrawalEvent>,
): WithdrawalDoc | null {
  const domainEvent = { type: event.type, data: event.data } as WithdrawalEvent;
  const next = evolve(doc ?? { status: 'none' }, domainEvent);
  if (next.status === 'none') return doc;
  const sync = ledgerCallOwed(next);
  return {
    ...next,
    network: domainEvent.type === 'WithdrawalRequested' ? domainEvent.data.network : (doc?.network ?? ''),
    version: event.version,
    sync,
    syncSince: doc && doc.sync === sync ? doc.syncSince : event.occurredAt,
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

// ---------- rebuild ----------

const STREAM_PREFIX = toWithdrawalStreamId('');

/**
 * Drops the `withdrawals` collection and projects it again from the service's own log
 * (store.readAll from position 0), in one transaction. The users directory is not in this log: it is
 * identity's, rebuilt by replaying meridian.identity.events through handleIdentityEvent.
 */
export async function rebuildWithdrawals(store: ServiceStore, pageSize = 500): Promise<number> {
  const docs = new Map<string, WithdrawalDoc | null>();
  for (let after = 0; ;) {
    const page = await store.readAll(after, pageSize);
    for (const e of page) {
      if (!e.streamId.startsWith(STREAM_PREFIX)) continue;
      const id = e.streamId.slice(STREAM_PREFIX.length);
      docs.set(id, projectWithdrawal(docs.get(id) ?? null, e as StoredEvent<WithdrawalEvent>));
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1].position;
  }
  await store.transaction(async (tx) => {
    for (const old of await tx.find<WithdrawalDoc>(COLLECTIONS.withdrawals)) {
      await tx.delete(COLLECTIONS.withdrawals, old.withdrawalId);
    }
    for (const [id, doc] of docs) if (doc) await tx.put(COLLECTIONS.withdrawals, id, doc);
  });
  return docs.size;
}
