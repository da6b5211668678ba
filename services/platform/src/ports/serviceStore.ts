import type { DomainEvent, EventMeta, ExpectedVersion, StoredEvent } from '../eventSourcing/types.js';

/**
 * The persistence port of ONE service: its event store, its outbox (the ordered log of everything
 * it appended, by `position`), its read models (JSON documents in named collections), consumer
 * de-duplication markers and checkpoints. Everything done inside one `transaction` commits
 * atomically or not at all: events + outbox + read-model writes + processed marker.
 *
 * Adapters: SQLite (better-sqlite3; a file per service, ':memory:' in tests) and MongoDB
 * (replica set transactions). One conformance suite (testing/serviceStore.conformance.ts) runs
 * against both.
 */
export interface ServiceStore extends StoreReads {
  /**
   * Runs fn in a transaction. Transactions are serialisable with respect to each other
   * (SQLite: one writer at a time; MongoDB: write conflicts are retried by re-running fn,
   * so fn must have no side effects outside tx). Returns fn's result after commit.
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;

  /**
   * The outbox: events with position > afterPosition, ascending, at most `limit`, each with the
   * integration event recorded for it when it was appended (see StoreTx.recordIntegrationEvent).
   */
  readAll(afterPosition: number, limit: number): Promise<OutboxEvent[]>;

  /** Highest position written so far (0 when empty). */
  lastPosition(): Promise<number>;

  /** Called after every commit that appended events (the outbox relay listens here). */
  onAppended(listener: () => void): () => void;

  /**
   * A cheap round trip to the database (readiness): resolves when it answers, rejects when it is closed or
   * unreachable. Optional so that test doubles need not implement it (a store without one counts as up).
   */
  ping?(): Promise<void>;

  /**
   * Declares an index over a collection's fields (in order, then the document id), so that equality
   * filters on a leading field and keyset pages ordered by the last are index range scans. Idempotent.
   * Optional so that test doubles need not implement it.
   */
  ensureIndex?(collection: string, fields: string[]): Promise<void>;

  /**
   * What a migration to another store reads besides the log (scripts/migrate.ts). Optional so that test
   * doubles need not implement it; the SQLite and MongoDB adapters do.
   */
  readonly inventory?: StoreInventory;

  close(): Promise<void>;
}

/** A consumer's record that it applied an event (StoreTx.markProcessed). */
export interface ProcessedMarker {
  consumer: string;
  eventId: string;
}

/**
 * Everything of a store that is not its event log, read page by page in a fixed order (each page after the
 * last key of the one before), for a migration to copy it through another store's StoreTx.
 */
export interface StoreInventory {
  /** The names of the collections that hold at least one document, in name order. */
  collections(): Promise<string[]>;
  /** A collection's documents with their ids, in id order, the ids above `afterId` ('' from the first), at most `limit`. */
  documents(collection: string, afterId: string, limit: number): Promise<Array<{ id: string; doc: object }>>;
  /** Processed markers in (consumer, eventId) order after `after` (null from the first), at most `limit`. */
  processed(after: ProcessedMarker | null, limit: number): Promise<ProcessedMarker[]>;
  /** Every checkpoint, in name order. */
  checkpoints(): Promise<Array<{ name: string; position: number }>>;
}

/**
 * Recorded instead of an integration event that the event alone determines (a rule of
 * app/integrationEvents.ts `integrationMapping` that reads nothing): the outbox relay derives it from the
 * event with its `map` as it publishes, the answer the rule gave at the append, so the outbox holds no
 * second copy of the event's data beside it. The trace active at the append goes with it.
 */
export interface DerivedIntegration {
  derived: true;
}
/** What the outbox records for an event: its integration event, a DerivedIntegration, or null (none). */
export type Recorded = DomainEvent | DerivedIntegration | null;
/** Whether a recorded integration is to be derived from its event at publish time. */
export const isDerived = (recorded: Recorded | undefined): recorded is DerivedIntegration =>
  recorded != null && (recorded as Partial<DerivedIntegration>).derived === true;

/**
 * An event as the outbox holds it. `integration`: what it publishes, recorded in the transaction that
 * appended it: an integration event `{ type, data }`, one to derive from the event (DerivedIntegration), or
 * null (private: nothing). Absent when none was recorded (appended before the service recorded them, or by
 * code that records none): the outbox relay's `map` decides for those.
 */
export type OutboxEvent = StoredEvent & { integration?: Recorded };

export interface StoreReads {
  readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
  ): Promise<{ version: number; events: StoredEvent<E>[] }>;
  get<T extends object>(collection: string, id: string): Promise<T | null>;
  /** Many documents by id in one read, in the order of `ids` (null where there is none). */
  getMany<T extends object>(collection: string, ids: readonly string[]): Promise<Array<T | null>>;
  /** Equality filter on top-level fields (scalars only). Sorted by `orderBy` when given. */
  find<T extends object>(collection: string, query?: FindQuery): Promise<T[]>;
  count(collection: string, where?: Record<string, Scalar>): Promise<number>;
  /** Consumer checkpoint (e.g. the outbox relay's or a bus consumer's position). */
  getCheckpoint(name: string): Promise<number>;
}

export type Scalar = string | number | boolean | null;

export interface FindQuery {
  where?: Record<string, Scalar>;
  orderBy?: { field: string; direction: 'asc' | 'desc' };
  limit?: number;
  offset?: number;
  /**
   * Keyset paging: only the documents strictly after this (orderBy field value, id) pair in the
   * order's direction (needs orderBy). Stable while documents are added or removed between pages.
   */
  after?: { value: Scalar; id: string };
  /** Case-insensitive prefix match: documents whose string value of any of `fields` starts with `value`. */
  prefix?: { fields: string[]; value: string };
}

export interface AppendOptions {
  /** Per appended event (same index): its integration event recorded at insert; see appendToStream. */
  integrations?: ReadonlyArray<Recorded | undefined>;
}

export interface StoreTx extends StoreReads {
  /**
   * Appends to a stream and to the outbox. Throws ConcurrencyError when the version does not match.
   * `options.integrations[i]`: the integration event recorded with events[i] as it is inserted (null: none;
   * undefined: not known yet, recordIntegrationEvent later), which saves the outbox a second write.
   */
  appendToStream<E extends DomainEvent>(
    streamId: string,
    expectedVersion: ExpectedVersion,
    events: Array<E & { id?: string }>,
    meta: EventMeta,
    options?: AppendOptions,
  ): Promise<{ nextVersion: number; events: StoredEvent<E>[] }>;
  /**
   * Records, on an event appended in this transaction, the integration event the outbox publishes for
   * it (null: none). It commits or rolls back with the append; readAll returns it as `integration`.
   * An unknown event id is ignored (its append was undone by a failed nested transaction).
   */
  recordIntegrationEvent(eventId: string, integration: Recorded): Promise<void>;
  put<T extends object>(collection: string, id: string, doc: T): Promise<void>;
  delete(collection: string, id: string): Promise<void>;
  /**
   * Records that `consumer` has applied `eventId`. Returns false when it already had
   * (the caller then skips the effect: idempotent handling).
   */
  markProcessed(consumer: string, eventId: string): Promise<boolean>;
  setCheckpoint(name: string, position: number): Promise<void>;
}
