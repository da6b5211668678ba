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
 * `sync` names the ledger call an event still owes (hold, capture, release, settle), set by the event
 * and cleared by the app once the ledger answered: the process manager re-drives whatever is left.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { type ExistingInvestment, type InvestmentEvent, evolve } from '../domain/investment.js';

export const COLLECTIONS = { investments: 'investments', users: 'users' } as const;

export type LedgerSync = 'none' | 'hold' | 'capture' | 'release' | 'settle';

export type InvestmentDoc = ExistingInvestment & {
  /** version of investment-<id> the document is at */
  version: number;
  sync: LedgerSync;
  /** when `sync` was set (ISO) */
  syncSince: string;
  /** shown in the owner's history (false for a request the ledger refused to hold) */
  listed: boolean;
};

export type UserDoc = { userId: string; name: string; email: string };

const SYNC_OF: Record<InvestmentEvent['type'], LedgerSync> = {
  InvestmentRequested: 'hold',
  HoldPlaced: 'none',
  HoldRefused: 'none',
  InvestmentApproved: 'capture',
  InvestmentRejected: 'release',
  InvestmentMatured: 'settle',
};

export function projectInvestment(
  doc: InvestmentDoc | null,
  event: StoredEvent<InvestmentEvent>,
): InvestmentDoc | null {
  const domainEvent = { type: event.type, data: event.data } as InvestmentEvent;
  const next = evolve(doc ?? { status: 'none' }, domainEvent);
  if (next.status === 'none') return doc;
  return {
    ...next,
    version: event.version,
    sync: SYNC_OF[domainEvent.type],
    syncSince: event.occurredAt,
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
