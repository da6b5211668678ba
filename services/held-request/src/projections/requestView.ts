/**
 * The read model of a held-money request kind (one document per request, written in the same
 * transaction as the events it comes from), pure: `requestView(spec)` gives its projection (the current
 * document and one stored event into the next) and its queries.
 *
 * A document is the request's state (the kind's `evolve`) plus:
 * - `sync`: the ledger call the request still owes (hold, capture, release, or the kind's own, e.g.
 *   settle), a projection of the stream like every other field (the lifecycle's `owed`), set by a
 *   decision and cleared by the event recording the ledger's confirmation. The process manager reads its
 *   to-do list here and writes nothing but events;
 * - `syncSince`: when that call became owed (the occurredAt of the event that made it owed);
 * - `version`: the stream version the document is at; `listed`: false for a request the ledger refused;
 * - `initiatedBy`: who opened the request when it was not its owner (an admin impersonating them, from the
 *   opening event's actor), absent otherwise.
 * So every document can be dropped and rebuilt from the events alone.
 */
import { domainEventOf, type DomainEvent, type StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { findPage, type Page, type PageRequest } from '@meridian/platform/ports/pages';
import type { KindDescription } from '../domain/lifecycle.js';
import { pendingCount, type PendingCounter } from '@meridian/platform/ports/pendingCount';

/** A request's document: its state and what the lists and the process manager read. */
export type RequestDoc<S, Sync extends string = string> = S & {
  /** version of the request's stream the document is at */
  version: number;
  /** the ledger call the request still owes ('none': nothing) */
  sync: Sync;
  /** when the call named by `sync` became owed (ISO) */
  syncSince: string;
  /** shown in the owner's list (false for a request the ledger refused to hold) */
  listed: boolean;
  /** who opened the request when it was not its owner (an impersonating admin's id); absent otherwise */
  initiatedBy?: string;
};

/** The projection of a kind's request stream into its documents. */
export function requestProjection<S extends { hold: string }, E extends DomainEvent, Sync extends string>({
  evolve,
  exists,
  owed,
}: Pick<KindDescription<S, E, Sync>, 'evolve' | 'exists' | 'owed'>): (
  doc: RequestDoc<S, Sync> | null,
  event: StoredEvent<E>,
) => RequestDoc<S, Sync> | null {
  return (doc, event) => {
    const state = evolve(doc ?? { status: 'none' }, domainEventOf(event));
    if (!exists(state)) return doc;
    const sync = owed(state);
    const initiatedBy = doc ? doc.initiatedBy : event.actor?.impersonatorId;
    return {
      ...state,
      ...(initiatedBy ? { initiatedBy } : {}),
      version: event.version,
      sync,
      syncSince: doc && doc.sync === sync ? doc.syncSince : event.occurredAt,
      listed: state.hold !== 'refused',
    };
  };
}

/** What a kind's read model is made of: its description (the domain's) and its collection. */
export interface RequestViewSpec<S, E extends DomainEvent, Sync extends string> extends KindDescription<
  S,
  E,
  Sync
> {
  collection: string;
  /** The request's date: the lists are ordered by it. */
  dateField: string;
}

/**
 * A kind's read model: its projection (with its stream and collection, as the command handler and the
 * rebuild test take them) and its queries.
 */
export function requestView<S extends { hold: string }, E extends DomainEvent, Sync extends string>(
  spec: RequestViewSpec<S, E, Sync>,
) {
  type D = RequestDoc<S, Sync>;
  const { collection, dateField } = spec;
  const idOf = (doc: D) => spec.idOf(doc);
  /** The admin queue's size (what `pending` lists), moved by the command path in the projection's transaction. */
  const counter: PendingCounter = {
    id: `pending-${collection}`,
    collection,
    where: { status: spec.pendingStatus, hold: 'placed' },
  };
  return {
    counter,
    /** The admin queue's size, from its counter (never by reading the queue). */
    pendingCount: (reads: StoreReads) => pendingCount(reads, counter),
    collection,
    idField: spec.idField,
    idOf,
    streamIdOf: spec.streamIdOf,
    pendingStatus: spec.pendingStatus,
    project: requestProjection(spec),
    /** A document is its request's state at its `version`: the command path decides on it (O(1) load). */
    snapshotOf: (doc: D) => ({ version: doc.version, state: doc }),

    byId: (reads: StoreReads, id: string) => reads.get<D>(collection, id),

    /**
     * The indexes the lists page on (platform ports/pages.ts keyset pages: the equality filters, then the date, then
     * the id); the service ensures them at start (service.ts).
     */
    indexes: [
      { collection, fields: ['userId', 'listed', dateField] },
      { collection, fields: ['status', 'hold', dateField] },
    ],

    /** The owner's requests, newest first (refused requests left out): a page, or all (page null). */
    ofUser: (reads: StoreReads, userId: string, page: PageRequest = null): Promise<Page<D>> =>
      findPage<D>(
        reads,
        collection,
        { where: { userId, listed: true }, orderBy: { field: dateField, direction: 'desc' }, idOf },
        page,
      ),

    /** The admin queue: pending with the funds held, oldest first: a page, or all of it (page null). */
    pending: (reads: StoreReads, page: PageRequest = null): Promise<Page<D>> =>
      findPage<D>(
        reads,
        collection,
        {
          where: { status: spec.pendingStatus, hold: 'placed' },
          orderBy: { field: dateField, direction: 'asc' },
          idOf,
        },
        page,
      ),

    /** Documents that still owe the ledger call `sync`, longest owed first. */
    owing: (reads: StoreReads, sync: Exclude<Sync, 'none'>, limit = 200) =>
      reads.find<D>(collection, {
        where: { sync },
        orderBy: { field: 'syncSince', direction: 'asc' },
        limit,
      }),
  };
}

/** What the use cases read of a kind's documents `D`. */
export interface RequestQueries<D extends { sync: string }> {
  /** The id field of the documents (`investmentId`), and a document's id. */
  idField: string;
  idOf(doc: D): string;
  /** The documents' collection, and the status of a request not decided yet. */
  collection: string;
  pendingStatus: string;
  byId(reads: StoreReads, id: string): Promise<D | null>;
  ofUser(reads: StoreReads, userId: string, page?: PageRequest): Promise<Page<D>>;
  pending(reads: StoreReads, page?: PageRequest): Promise<Page<D>>;
  pendingCount(reads: StoreReads): Promise<number>;
  owing(reads: StoreReads, sync: Exclude<D['sync'], 'none'>, limit?: number): Promise<D[]>;
}
