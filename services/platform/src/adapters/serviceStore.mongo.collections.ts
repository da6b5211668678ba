/**
 * The MongoDB ServiceStore's (serviceStore.mongo.ts) collections, their documents and write concerns.
 *
 * Collections:
 * - events: { _id: event id, streamId, version, position, type, data (JSON text), occurredAt,
 *   correlationId, causationId, actor, integration? (JSON text: the integration event recorded at
 *   append time, or null) } — the event store AND the outbox. unique (streamId, version)
 *   backs optimistic concurrency per stream: appends to different streams never touch a common
 *   document, so they do not serialise each other. unique position orders the outbox.
 * - counters { _id: 'events', seq }: the position sequence. It is incremented OUTSIDE the appending
 *   transaction (one atomic $inc, so it never conflicts or holds a lock across transactions); positions
 *   of a transaction that does not commit are a gap, which readers tolerate.
 * - reservations { _id, floor, at }: one per appending transaction attempt, opened (outside the
 *   transaction, majority-acknowledged) before it takes any position, with a floor below all of them.
 * - closed { _id: reservation id, by, at }: a reservation is closed by inserting this document, INSIDE
 *   the committing transaction (so it appears exactly when the events become visible), or outside it
 *   once the attempt failed or its lease ran out (reaped). Both use the same _id, so exactly one wins:
 *   a reaped attempt's own insert conflicts and it cannot commit; a committing attempt's insert makes
 *   the reaper's fail. (A delete of the reservation inside the transaction would not do: the
 *   reservation is inserted after the transaction's snapshot, so the transaction cannot see it.)
 *   Closed reservations are then deleted; a TTL index removes stale closing documents.
 * - rm_<collection>: read-model documents { _id: id, d: document }; processed { _id: {c, e} };
 *   checkpoints { _id: name, position }.
 */
import {
  MongoError,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type MongoClientOptions,
  type TransactionOptions,
  type WithoutId,
} from 'mongodb';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { StoreInventory } from '../ports/serviceStore.js';
import { DOC, STREAM_VERSION_INDEX, type SavepointScope } from './serviceStore.mongo.support.js';

export const SEQ = 'events';

/**
 * Every write waits until a majority of the replica set has it in its on-disk journal, so a write that was
 * answered survives the loss of the primary and a power loss alike (the client's default too).
 */
export const MAJORITY = { w: 'majority' as const, journal: true };

/** The client the store makes when it is given none: the durable write concern is its default. */
export const CLIENT_OPTIONS: MongoClientOptions = {
  serverSelectionTimeoutMS: 10_000,
  writeConcern: MAJORITY,
};

export const TX_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: MAJORITY,
  readPreference: 'primary',
};

export interface Attempt {
  session: ClientSession;
  /** The callback of this attempt returned or threw: its tx refuses writes. */
  done: boolean;
  appended: boolean;
  /** This attempt's position reservation, opened by its first append. */
  reservation?: Promise<string>;
  /** Ids of the reservations this attempt opened. */
  opened: string[];
  /** The error that ended this attempt on the server (every later operation rethrows it). */
  failed?: unknown;
}

export interface TxContext {
  attempt: Attempt;
  scope: SavepointScope;
}

export interface OpenReservation extends ReservationDoc {
  /** how many closing documents it has (0: open) */
  closing: number;
  expired: boolean;
}

export interface ReservationDoc {
  _id: string;
  /** below every position the reserving attempt takes */
  floor: number;
  /** server time it was opened */
  at: Date;
}

export interface RmDoc {
  _id: string;
  [DOC]: Document;
}

/** Puts a document back as it was before a savepoint's write (`before` null: it did not exist). */
export async function restore<D extends { _id: string }>(
  c: Collection<D>,
  id: string,
  before: D | null,
  session: ClientSession,
): Promise<void> {
  const filter = { _id: id } as Filter<D>;
  if (before) await c.replaceOne(filter, before as WithoutId<D>, { session, upsert: true });
  else await c.deleteOne(filter, { session });
}

export interface EventDoc {
  _id: string;
  streamId: string;
  version: number;
  position: number;
  type: string;
  data: unknown;
  occurredAt: string;
  correlationId: string;
  causationId: string | null;
  actor: StoredEvent['actor'];
  /** JSON text of the integration event recorded at append time (absent: none recorded). */
  integration?: string;
}

export const toDoc = (e: StoredEvent): EventDoc => ({
  _id: e.id,
  streamId: e.streamId,
  version: e.version,
  position: e.position,
  type: e.type,
  // stored as a JSON string: the same values come back as from the SQLite store (no BSON type drift)
  data: JSON.stringify(e.data ?? null),
  occurredAt: e.occurredAt,
  correlationId: e.correlationId,
  causationId: e.causationId,
  // through JSON like SQLite: an undefined field is dropped, not stored as null
  actor: e.actor ? (JSON.parse(JSON.stringify(e.actor)) as StoredEvent['actor']) : null,
});

export const fromDoc = (d: EventDoc): StoredEvent => ({
  id: d._id,
  type: d.type,
  data: typeof d.data === 'string' ? JSON.parse(d.data) : d.data,
  streamId: d.streamId,
  version: d.version,
  position: d.position,
  occurredAt: d.occurredAt,
  correlationId: d.correlationId,
  causationId: d.causationId ?? null,
  actor: d.actor ?? null,
});

/**
 * The store's fixed collections, with their indexes and the position sequence, created when missing (an
 * existing one is used as it is).
 */
export async function openCollections(db: Db) {
  const events = db.collection<EventDoc>('events');
  const counters = db.collection<{ _id: string; seq: number }>('counters');
  const reservations = db.collection<ReservationDoc>('reservations');
  const closed = db.collection<{ _id: string; by: 'commit' | 'abort' | 'reap'; at: Date }>('closed');
  const processed = db.collection<{ _id: { c: string; e: string }; at: Date }>('processed');
  const checkpoints = db.collection<{ _id: string; position: number }>('checkpoints');
  // The fixed collections exist before any transaction (creating one inside a transaction makes concurrent
  // transactions fail on the catalog change); read-model collections are created on first write.
  for (const name of ['events', 'counters', 'reservations', 'closed', 'processed', 'checkpoints']) {
    await db.createCollection(name).catch((err: unknown) => {
      if (!(err instanceof MongoError && err.code === 48)) throw err; // NamespaceExists
    });
  }
  await events.createIndex({ streamId: 1, version: 1 }, { unique: true, name: STREAM_VERSION_INDEX });
  await events.createIndex({ position: 1 }, { unique: true });
  await reservations.createIndex({ floor: 1 });
  await closed.createIndex({ at: 1 }, { expireAfterSeconds: 86_400 });
  await counters.updateOne(
    { _id: SEQ },
    { $setOnInsert: { seq: 0 } },
    { upsert: true, writeConcern: MAJORITY },
  );
  return { events, counters, reservations, closed, processed, checkpoints };
}

/**
 * What the store holds, page by page (ServiceStore.inventory: a migration copies it): each operation runs
 * through `read` (the store's open check and its in-flight tracking).
 */
export function mongoInventory(
  from: {
    db: Db;
    prefix: string;
    rm: (collection: string) => Collection<RmDoc>;
    processed: Collection<{ _id: { c: string; e: string }; at: Date }>;
    checkpoints: Collection<{ _id: string; position: number }>;
  },
  read: <T>(op: () => Promise<T>) => Promise<T>,
): StoreInventory {
  const { db, prefix, rm, processed, checkpoints } = from;
  return {
    collections: () =>
      read(async () => {
        const names = await db.listCollections({}, { nameOnly: true }).toArray();
        const withDocs: string[] = [];
        for (const { name } of names)
          if (name.startsWith(prefix) && (await db.collection(name).findOne({}, { projection: { _id: 1 } })))
            withDocs.push(name.slice(prefix.length));
        return withDocs.sort();
      }),
    documents: (collection, afterId, limit) =>
      read(async () => {
        const docs = await rm(collection)
          .find({ _id: { $gt: afterId } }, { sort: { _id: 1 }, limit })
          .toArray();
        return docs.map((d) => ({ id: d._id, doc: d[DOC] as object }));
      }),
    processed: (after, limit) =>
      read(async () => {
        const filter = after
          ? {
              $or: [
                { '_id.c': { $gt: after.consumer } },
                { '_id.c': after.consumer, '_id.e': { $gt: after.eventId } },
              ],
            }
          : {};
        const docs = await processed.find(filter, { sort: { '_id.c': 1, '_id.e': 1 }, limit }).toArray();
        return docs.map((d) => ({ consumer: d._id.c, eventId: d._id.e }));
      }),
    checkpoints: () =>
      read(async () => {
        const docs = await checkpoints.find({}, { sort: { _id: 1 } }).toArray();
        return docs.map((d) => ({ name: d._id, position: d.position }));
      }),
  };
}
