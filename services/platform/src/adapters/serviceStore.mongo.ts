import { MongoClient, MongoServerError, type ClientSession, type Db, type Document, type Filter } from 'mongodb';
import type { DomainEvent, EventMeta, ExpectedVersion, StoredEvent } from '../eventSourcing/types.js';
import { ConcurrencyError } from '../eventSourcing/errors.js';
import type { FindQuery, Scalar, ServiceStore, StoreReads, StoreTx } from '../ports/serviceStore.js';
import { buildEnvelopes, checkCollection, checkField, checkScalar, type StoreOptions } from './storeShared.js';

export interface MongoServiceStoreOptions extends StoreOptions {
  /** mongodb:// URL of a replica set (transactions need one). Ignored when `client` is given. */
  url?: string;
  /** Share a connected client; it is NOT closed by close(). */
  client?: MongoClient;
  /** One database per service, e.g. meridian_identity. */
  database: string;
  /** Prefix of read-model collections (default 'rm_'): read model "users" lives in "rm_users". */
  collectionPrefix?: string;
}

/**
 * ServiceStore on MongoDB (replica set). Collections:
 * - events: { _id: event id, streamId, version, position, type, data, occurredAt, correlationId,
 *   causationId, actor }, unique (streamId, version), unique position — the event store AND the outbox.
 * - counters: { _id: 'events', seq } — the global position, incremented inside each appending
 *   transaction (which serialises appenders, so positions become visible in order).
 * - rm_<collection>: read-model documents, `_id` = id.
 * - processed: { _id: [consumer, eventId] }; checkpoints: { _id: name, position }.
 *
 * transaction() uses session.withTransaction (snapshot reads, majority writes): transient errors
 * and write conflicts re-run fn, so fn must be free of outside side effects.
 */
export async function createMongoServiceStore(options: MongoServiceStoreOptions): Promise<ServiceStore> {
  const owned = !options.client;
  const client =
    options.client ??
    new MongoClient(options.url ?? 'mongodb://127.0.0.1:27017/?replicaSet=rs0', {
      serverSelectionTimeoutMS: 10_000,
    });
  if (owned) await client.connect();
  const db: Db = client.db(options.database);
  const prefix = options.collectionPrefix ?? 'rm_';
  const events = db.collection<EventDoc>('events');
  const counters = db.collection<{ _id: string; seq: number }>('counters');
  const processed = db.collection<{ _id: { c: string; e: string }; at: Date }>('processed');
  const checkpoints = db.collection<{ _id: string; position: number }>('checkpoints');
  await events.createIndex({ streamId: 1, version: 1 }, { unique: true });
  await events.createIndex({ position: 1 }, { unique: true });

  const listeners = new Set<() => void>();
  const rm = (collection: string) => db.collection<Document>(`${prefix}${checkCollection(collection)}`);

  const readsWith = (session?: ClientSession): StoreReads => ({
    async readStream<E extends DomainEvent = DomainEvent>(streamId: string) {
      const docs = await events.find({ streamId }, { session, sort: { version: 1 } }).toArray();
      const list = docs.map((d) => fromDoc(d) as StoredEvent<E>);
      return { version: list.length ? list[list.length - 1].version : 0, events: list };
    },
    async get<T extends object>(collection: string, id: string) {
      const doc = await rm(collection).findOne({ _id: id as never }, { session });
      return doc ? (stripId(doc) as T) : null;
    },
    async find<T extends object>(collection: string, query: FindQuery = {}) {
      let cursor = rm(collection).find(filterOf(query.where), { session });
      if (query.orderBy) {
        const dir = query.orderBy.direction === 'desc' ? -1 : 1;
        cursor = cursor.sort({ [checkField(query.orderBy.field)]: dir, _id: dir });
      } else cursor = cursor.sort({ _id: 1 });
      if (query.offset) cursor = cursor.skip(query.offset);
      if (query.limit !== undefined) cursor = cursor.limit(query.limit);
      if (query.limit === 0) return [];
      return (await cursor.toArray()).map((d) => stripId(d) as T);
    },
    async count(collection: string, where?: Record<string, Scalar>) {
      return rm(collection).countDocuments(filterOf(where), { session });
    },
    async getCheckpoint(name: string) {
      return (await checkpoints.findOne({ _id: name }, { session }))?.position ?? 0;
    },
  });

  const reads = readsWith();

  return {
    ...reads,
    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      const session = client.startSession();
      let appended = false;
      try {
        const result = await session.withTransaction(
          async () => {
            appended = false;
            const tx: StoreTx = {
              ...readsWith(session),
              async appendToStream<E extends DomainEvent>(
                streamId: string,
                expectedVersion: ExpectedVersion,
                list: Array<E & { id?: string }>,
                meta: EventMeta,
              ) {
                const last = await events.findOne({ streamId }, { session, sort: { version: -1 }, projection: { version: 1 } });
                const current = last?.version ?? 0;
                if (expectedVersion !== 'any' && expectedVersion !== current) {
                  throw new ConcurrencyError(streamId, expectedVersion, current);
                }
                if (list.length === 0) return { nextVersion: current, events: [] };
                const counter = await counters.findOneAndUpdate(
                  { _id: 'events' },
                  { $inc: { seq: list.length } },
                  { session, upsert: true, returnDocument: 'after' },
                );
                const end = counter?.seq ?? list.length;
                const stored = buildEnvelopes(streamId, current, list, meta, options).map(
                  (e, i) => ({ ...e, position: end - list.length + i + 1 }) as StoredEvent<E>,
                );
                try {
                  await events.insertMany(stored.map(toDoc), { session, ordered: true });
                } catch (err) {
                  if (err instanceof MongoServerError && err.code === 11000 && /streamId/.test(err.message)) {
                    throw new ConcurrencyError(streamId, expectedVersion, current);
                  }
                  throw err;
                }
                appended = true;
                return { nextVersion: current + list.length, events: stored };
              },
              async put<D extends object>(collection: string, id: string, doc: D) {
                await rm(collection).replaceOne({ _id: id as never }, { ...(JSON.parse(JSON.stringify(doc)) as Document), _id: id }, { session, upsert: true });
              },
              async delete(collection: string, id: string) {
                await rm(collection).deleteOne({ _id: id as never }, { session });
              },
              async markProcessed(consumer: string, eventId: string) {
                const res = await processed.updateOne(
                  { _id: { c: consumer, e: eventId } },
                  { $setOnInsert: { at: new Date() } },
                  { session, upsert: true },
                );
                return res.upsertedCount === 1;
              },
              async setCheckpoint(name: string, position: number) {
                await checkpoints.updateOne({ _id: name }, { $set: { position } }, { session, upsert: true });
              },
            };
            return fn(tx);
          },
          { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' },
        );
        if (appended) for (const l of [...listeners]) l();
        return result;
      } finally {
        await session.endSession();
      }
    },
    async readAll(afterPosition: number, limit: number) {
      const docs = await events.find({ position: { $gt: afterPosition } }, { sort: { position: 1 }, limit }).toArray();
      return docs.map(fromDoc);
    },
    async lastPosition() {
      const last = await events.findOne({}, { sort: { position: -1 }, projection: { position: 1 } });
      return last?.position ?? 0;
    },
    onAppended(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      listeners.clear();
      if (owned) await client.close();
    },
  };
}

interface EventDoc {
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
}

const toDoc = (e: StoredEvent): EventDoc => ({
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
  actor: e.actor,
});

const fromDoc = (d: EventDoc): StoredEvent => ({
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

function stripId(doc: Document): Document {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

function filterOf(where: Record<string, Scalar> | undefined): Filter<Document> {
  const filter: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(where ?? {})) {
    checkField(field);
    checkScalar(field, value);
    // $eq so a value can never be read as an operator
    filter[field] = { $eq: value };
  }
  return filter;
}
