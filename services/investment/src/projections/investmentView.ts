/**
 * Read models of the investment service, written in the same transaction as the events they come
 * from. Pure: `projectInvestment(doc, event)` turns the current document and one stored event into the
 * next document; the queries below read them.
 *
 * | collection  | id           | from                                                   |
 * |-------------|--------------|--------------------------------------------------------|
 * | investments | investmentId | the investment's own events (state + queue/due fields) |
 * | users       | userId       | identity's UserRegistered / ProfileUpdated (directory) |
 *
 * `sync` names the ledger call the investment still owes (hold, capture, release, settle): a projection
 * of the stream like every other field (`ledgerCallOwed` of the domain), set by a decision and cleared by
 * the event recording the ledger's confirmation (HoldPlaced, HoldCaptured, HoldReleased, MaturitySettled).
 * The process manager reads its to-do list here and writes nothing but events, so every collection can be
 * dropped and rebuilt from the events alone (`rebuildInvestments`; the users directory by replaying
 * identity's topic, which is kept forever).
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { ServiceStore, StoreReads } from '@meridian/platform/ports/serviceStore';
import {
  type ExistingInvestment,
  type InvestmentEvent,
  type LedgerCallOwed,
  evolve,
  ledgerCallOwed,
  toInvestmentStreamId,
} from '../domain/investment.js';

export const COLLECTIONS = { investments: 'investments', users: 'users' } as const;

export type LedgerSync = LedgerCallOwed;

export type InvestmentDoc = ExistingInvestment & {
  /** version of investment-<id> the document is at */
  version: number;
  sync: LedgerSync;
  /** when the call named by `sync` became owed (ISO) */
  syncSince: string;
  /** shown in the owner's history (false for a request the ledger refused to hold) */
  listed: boolean;
};

export type UserDoc = { userId: string; name: string; email: string };

export function projectInvestment(
  doc: InvestmentDoc | null,
  event: StoredEvent<InvestmentEvent>,
): InvestmentDoc | null {
  const domainEvent = { type: event.type, data: event.data } as InvestmentEvent;
  const next = evolve(doc ?? { status: 'none' }, domainEvent);
  if (next.status === 'none') return doc;
  const sync = ledgerCallOwed(next);
  return {
    ...next,
    version: event.version,
    sync,
    syncSince: doc && doc.sync === sync ? doc.syncSince : event.occurredAt,
    listed: next.hold !== 'refused',
  } as InvestmentDoc;
}

export function projectUser(
  doc: UserDoc | null,
  data: { userId: string; name?: string; email?: string },
): UserDoc {
  return {
    userId: data.userId,
    name: data.name ?? doc?.name ?? '',
    email: data.email ?? doc?.email ?? '',
  };
}

// ---------- queries ----------

export const investmentById = (reads: StoreReads, id: string) =>
  reads.get<InvestmentDoc>(COLLECTIONS.investments, id);

export const userById = (reads: StoreReads, id: string) => reads.get<UserDoc>(COLLECTIONS.users, id);

/** The owner's investments, newest first (refused requests left out). */
export async function investmentsOfUser(reads: StoreReads, userId: string): Promise<InvestmentDoc[]> {
  const docs = await reads.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { userId, listed: true },
    orderBy: { field: 'requestedAt', direction: 'desc' },
  });
  return docs;
}

/** The admin queue: pending with the funds held, oldest first. */
export function pendingInvestments(reads: StoreReads): Promise<InvestmentDoc[]> {
  return reads.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { status: 'pending', hold: 'placed' },
    orderBy: { field: 'requestedAt', direction: 'asc' },
  });
}

/** Active investments by endDate, soonest first (the maturity scheduler's index). */
export function activeByEndDate(
  reads: StoreReads,
  limit: number,
  where: Record<string, string> = {},
): Promise<InvestmentDoc[]> {
  return reads.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { ...where, status: 'Active' },
    orderBy: { field: 'endDate', direction: 'asc' },
    limit,
  });
}

/** Documents that still owe a ledger call. */
export function owingLedger(
  reads: StoreReads,
  sync: Exclude<LedgerSync, 'none'>,
  limit = 200,
): Promise<InvestmentDoc[]> {
  return reads.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { sync },
    orderBy: { field: 'syncSince', direction: 'asc' },
    limit,
  });
}

// ---------- rebuild ----------

const STREAM_PREFIX = toInvestmentStreamId('');

/**
 * Drops the `investments` collection and projects it again from the service's own log
 * (store.readAll from position 0), in one transaction. The users directory is not in this log: it is
 * identity's, rebuilt by replaying meridian.identity.events through handleIdentityEvent.
 */
export async function rebuildInvestments(store: ServiceStore, pageSize = 500): Promise<number> {
  const docs = new Map<string, InvestmentDoc | null>();
  for (let after = 0; ;) {
    const page = await store.readAll(after, pageSize);
    for (const e of page) {
      if (!e.streamId.startsWith(STREAM_PREFIX)) continue;
      const id = e.streamId.slice(STREAM_PREFIX.length);
      docs.set(id, projectInvestment(docs.get(id) ?? null, e as StoredEvent<InvestmentEvent>));
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1].position;
  }
  await store.transaction(async (tx) => {
    for (const old of await tx.find<InvestmentDoc>(COLLECTIONS.investments)) {
      await tx.delete(COLLECTIONS.investments, old.investmentId);
    }
    for (const [id, doc] of docs) if (doc) await tx.put(COLLECTIONS.investments, id, doc);
  });
  return docs.size;
}
