import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { MongoClient, MongoError, type ClientSession, type Db, type Document, type Filter } from 'mongodb';
import type { DomainEvent, EventMeta, ExpectedVersion, StoredEvent } from '../eventSourcing/types.js';
import { ConcurrencyError } from '../eventSourcing/errors.js';
import type {
  AppendOptions,
  FindQuery,
  Scalar,
  ServiceStore,
  StoreReads,
  StoreTx,
  Recorded,
} from '../ports/serviceStore.js';
import {
  appendListeners,
  buildEnvelopes,
  checkCollection,
  checkField,
  type StoreOptions,
  withIntegration,
} from './storeShared.js';
import {
  type Attempt,
  CLIENT_OPTIONS,
  MAJORITY,
  type OpenReservation,
  type RmDoc,
  SEQ,
  type TxContext,
  TX_OPTIONS,
  fromDoc,
  mongoInventory,
  openCollections,
  restore,
  toDoc,
} from './serviceStore.mongo.collections.js';
import {
  DOC,
  SavepointScope,
  docFilter,
  docSort,
  docPage,
  isHeldBack,
  isStreamVersionConflict,
  outboxHorizon,
  pageOf,
} from './serviceStore.mongo.support.js';

export interface MongoServiceStoreOptions extends StoreOptions {
  /** mongodb:// URL of a replica set (transactions need one). Ignored when `client` is given. */
  url?: string;
  /** Share a connected client; it is NOT closed by close(). */
  client?: MongoClient;
  /** One database per service, e.g. meridian_identity. */
  database: string;
  /** Prefix of read-model collections (default 'rm_'): read model "users" lives in "rm_users". */
  collectionPrefix?: string;
  /**
   * How long a position reservation may stay open before readAll reaps it (default 60 000 ms, the
   * server's default transactionLifetimeLimitSeconds). Only liveness depends on it: a transaction
   * whose reservation was reaped cannot commit (its closing insert conflicts), so reaping early never
   * loses an event; it fails the transaction's attempt instead.
   */
  reservationLeaseMs?: number;
  /** When readAll was held back by an open reservation, listeners are woken again after this (default 50 ms). */
  heldBackRetryMs?: number;
}

/**
 * ServiceStore on MongoDB (replica set), behaving like its SQLite twin (serviceStore.sqlite.ts).
 *
 * Collections: serviceStore.mongo.collections.ts.
 *
 * The outbox cannot skip a late commit: positions are taken in one order but commit in another, so
 * readAll reads the sequence, then the lowest open reservation floor, and returns only positions up to
 * the lower of the two (outboxHorizon in serviceStore.mongo.support.ts has the argument). A relay
 * reading while position N is taken but uncommitted gets nothing above N's floor, even if N+1 has
 * committed; when a read was held back like that, listeners are woken again shortly (heldBackRetryMs),
 * since the blocking transaction may end without appending (abort) or in another process.
 *
 * transaction(): session.withTransaction (snapshot reads, majority writes): transient errors and write
 * conflicts re-run fn, so fn must be free of outside side effects. Like SQLite:
 * - reads through the store (not only through tx) inside the callback's async context read the open
 *   transaction (they see its writes), and so do readAll/lastPosition;
 * - a store.transaction inside the callback is a savepoint: it joins the open transaction, and when its
 *   callback throws, its own writes are undone (MongoDB has no savepoints: each write records its undo)
 *   while the enclosing transaction goes on. When the failure was a server error, the server has aborted
 *   the whole transaction; then every later operation of the attempt rethrows that error (a transient
 *   one re-runs fn, as at the top level);
 * - a tx used after its callback finished refuses writes.
 */
export async function createMongoServiceStore(options: MongoServiceStoreOptions): Promise<ServiceStore> {
  const owned = !options.client;
  const client =
    options.client ??
    new MongoClient(options.url ?? 'mongodb://127.0.0.1:27017/?replicaSet=rs0', CLIENT_OPTIONS);
  if (owned) await client.connect();
  const leaseMs = options.reservationLeaseMs ?? 60_000;
  const heldBackRetryMs = options.heldBackRetryMs ?? 50;
  const db: Db = client.db(options.database);
  const prefix = options.collectionPrefix ?? 'rm_';
  const { events, counters, reservations, closed, processed, checkpoints } = await openCollections(db);
  /**
   * The highest sequence value this process has seen (majority-committed, so no failover takes it back):
   * a floor no later allocation can go below.
   */
  let knownSeq = (await counters.findOne({ _id: SEQ }, { readConcern: { level: 'majority' } }))?.seq ?? 0;

  const rm = (collection: string) => db.collection<RmDoc>(`${prefix}${checkCollection(collection)}`);
  const context = new AsyncLocalStorage<TxContext>();
  const listeners = appendListeners();
  const inflight = new Set<Promise<unknown>>();
  let wakeTimer: NodeJS.Timeout | undefined;
  let isClosed = false;

  /** The transaction attempt whose callback the caller runs in, if it is still open. */
  const current = (): TxContext | undefined => {
    const ctx = context.getStore();
    return ctx && !ctx.attempt.done ? ctx : undefined;
  };
  const assertOpen = () => {
    if (isClosed && !current()) throw new Error('ServiceStore is closed');
  };

  /**
   * Runs one operation of an open attempt. Any server error inside a transaction aborts it on the server,
   * so it is kept: later operations of the attempt rethrow it instead of failing obscurely (NoSuchTransaction).
   */
  const inTx = async <T>(attempt: Attempt, op: (session: ClientSession) => Promise<T>): Promise<T> => {
    if (attempt.failed !== undefined) throw attempt.failed;
    try {
      return await op(attempt.session);
    } catch (err) {
      if (err instanceof MongoError) attempt.failed ??= err;
      throw err;
    }
  };

  /** Reads through `pick()`'s attempt when there is one, else outside any transaction. */
  const readsVia = (pick: () => Attempt | undefined): StoreReads => {
    const run = async <T>(op: (session: ClientSession | undefined) => Promise<T>): Promise<T> => {
      assertOpen();
      const attempt = pick();
      return attempt ? inTx(attempt, op) : track(op(undefined));
    };
    return {
      readStream: <E extends DomainEvent = DomainEvent>(streamId: string) =>
        run(async (session) => {
          const docs = await events.find({ streamId }, { session, sort: { version: 1 } }).toArray();
          const list = docs.map((d) => fromDoc(d) as StoredEvent<E>);
          return { version: list.length ? list[list.length - 1].version : 0, events: list };
        }),
      get: <T extends object>(collection: string, id: string) =>
        run(async (session) => {
          const doc = await rm(collection).findOne({ _id: id }, { session });
          return doc ? (doc[DOC] as T) : null;
        }),
      getMany: <T extends object>(collection: string, ids: readonly string[]) =>
        run(async (session) => {
          if (ids.length === 0) return [];
          const found = await rm(collection)
            .find({ _id: { $in: [...new Set(ids)] } }, { session })
            .toArray();
          const byId = new Map(found.map((d) => [d._id, d[DOC] as T]));
          return ids.map((id) => byId.get(id) ?? null);
        }),
      find: <T extends object>(collection: string, query: FindQuery = {}) =>
        run(async (session) => {
          const c = rm(collection);
          const filter = { ...docFilter<RmDoc>(query.where), ...docPage(query) } as Filter<RmDoc>;
          const sort = docSort(query.orderBy);
          const page = pageOf(query.limit, query.offset);
          if (page.none) return [];
          const docs = await c
            .find(filter, {
              session,
              sort,
              skip: page.skip,
              ...(page.limit !== undefined ? { limit: page.limit } : {}),
            })
            .toArray();
          return docs.map((d) => d[DOC] as T);
        }),
      count: (collection: string, where?: Record<string, Scalar>) =>
        run(async (session) => {
          const c = rm(collection);
          return c.countDocuments(docFilter<RmDoc>(where), { session });
        }),
      getCheckpoint: (name: string) =>
        run(async (session) => (await checkpoints.findOne({ _id: name }, { session }))?.position ?? 0),
    };
  };

  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    const done = () => inflight.delete(p);
    p.then(done, done);
    return p;
  };

  const wakeLater = () => {
    if (wakeTimer || listeners.size === 0 || isClosed) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      listeners.notify();
    }, heldBackRetryMs);
    wakeTimer.unref();
  };

  /** Opens the attempt's position reservation (once per attempt), outside the transaction. */
  const reserve = (attempt: Attempt): Promise<string> =>
    (attempt.reservation ??= (async () => {
      const id = randomUUID();
      const floor = knownSeq;
      attempt.opened.push(id);
      await reservations.updateOne(
        { _id: id },
        { $setOnInsert: { floor }, $currentDate: { at: true } },
        { upsert: true, writeConcern: MAJORITY },
      );
      return id;
    })());

  /**
   * Closes a reservation from outside its transaction: after its attempt failed, or once its lease ran
   * out. Inserting the closing document waits for a transaction that is inserting the same one to end; a
   * duplicate key means that transaction committed. Either way the attempt can no longer commit, and
   * the reservation can go.
   */
  const closeReservation = async (
    id: string,
    by: 'abort' | 'reap',
    session?: ClientSession,
  ): Promise<void> => {
    try {
      await closed.insertOne({ _id: id, by, at: new Date() }, { session, writeConcern: MAJORITY });
    } catch (err) {
      if (!(err instanceof MongoError && err.code === 11000)) throw err;
    }
    await reservations.deleteOne({ _id: id }, { session });
  };

  /** Takes n positions from the sequence (outside the transaction, after the reservation is open). */
  const allocate = async (n: number): Promise<number> => {
    const doc = await counters.findOneAndUpdate(
      { _id: SEQ },
      { $inc: { seq: n } },
      { upsert: true, returnDocument: 'after', writeConcern: MAJORITY },
    );
    const end = doc?.seq ?? n;
    knownSeq = Math.max(knownSeq, end);
    return end - n + 1;
  };

  const makeTx = (attempt: Attempt, scope: SavepointScope): StoreTx => {
    const write = <T>(op: (session: ClientSession) => Promise<T>): Promise<T> => {
      if (attempt.done) {
        return Promise.reject(
          new Error('transaction already finished: do not use tx after the callback returned'),
        );
      }
      return inTx(attempt, op);
    };
    return {
      // a finished tx reads like the store (as the SQLite twin's does)
      ...readsVia(() => (attempt.done ? current()?.attempt : attempt)),
      async appendToStream<E extends DomainEvent>(
        streamId: string,
        expectedVersion: ExpectedVersion,
        list: Array<E & { id?: string }>,
        meta: EventMeta,
        appendOptions?: AppendOptions,
      ) {
        const last = await write((session) =>
          events.findOne({ streamId }, { session, sort: { version: -1 }, projection: { version: 1 } }),
        );
        const current = last?.version ?? 0;
        if (expectedVersion !== 'any' && expectedVersion !== current) {
          throw new ConcurrencyError(streamId, expectedVersion, current);
        }
        const envelopes = buildEnvelopes(streamId, current, list, meta, options);
        if (envelopes.length === 0) return { nextVersion: current, events: [] };
        await reserve(attempt);
        const start = await allocate(envelopes.length);
        const stored = envelopes.map((e, i) => ({ ...e, position: start + i }) as StoredEvent<E>);
        await write(async (session) => {
          try {
            const integrations = appendOptions?.integrations;
            await events.insertMany(
              stored.map((e, i) => {
                const doc = toDoc(e);
                const integration = integrations?.[i];
                return integration === undefined ? doc : { ...doc, integration: JSON.stringify(integration) };
              }),
              { session, ordered: true },
            );
          } catch (err) {
            if (isStreamVersionConflict(err)) {
              const conflict = new ConcurrencyError(streamId, expectedVersion, current);
              attempt.failed ??= conflict; // the server aborted the transaction: nothing more may run in it
              throw conflict;
            }
            throw err;
          }
        });
        const ids = stored.map((e) => e.id);
        scope.record(() =>
          inTx(attempt, (session) =>
            events.deleteMany({ _id: { $in: ids } }, { session }).then(() => undefined),
          ),
        );
        attempt.appended = true;
        return { nextVersion: current + envelopes.length, events: stored };
      },
      async recordIntegrationEvent(eventId: string, integration: Recorded) {
        const set = { $set: { integration: JSON.stringify(integration) } };
        await write((session) => events.updateOne({ _id: eventId }, set, { session }));
        if (scope.recording)
          scope.record(() =>
            inTx(attempt, (session) =>
              events
                .updateOne({ _id: eventId }, { $unset: { integration: '' } }, { session })
                .then(() => undefined),
            ),
          );
      },
      async put<T extends object>(collection: string, id: string, doc: T) {
        const c = rm(collection);
        const replacement = { [DOC]: JSON.parse(JSON.stringify(doc)) as Document };
        if (!scope.recording) {
          await write((session) => c.replaceOne({ _id: id }, replacement, { session, upsert: true }));
          return;
        }
        const before = await write((session) =>
          c.findOneAndReplace({ _id: id }, replacement, { session, upsert: true, returnDocument: 'before' }),
        );
        scope.record(() => inTx(attempt, (session) => restore(c, id, before, session)));
      },
      async delete(collection: string, id: string) {
        const c = rm(collection);
        if (!scope.recording) {
          await write((session) => c.deleteOne({ _id: id }, { session }));
          return;
        }
        const before = await write((session) => c.findOneAndDelete({ _id: id }, { session }));
        scope.record(() => inTx(attempt, (session) => restore(c, id, before, session)));
      },
      async markProcessed(consumer: string, eventId: string) {
        const _id = { c: consumer, e: eventId };
        const res = await write((session) =>
          processed.updateOne({ _id }, { $setOnInsert: { at: new Date() } }, { session, upsert: true }),
        );
        const inserted = res.upsertedCount === 1;
        if (inserted)
          scope.record(() =>
            inTx(attempt, (session) => processed.deleteOne({ _id }, { session }).then(() => undefined)),
          );
        return inserted;
      },
      async setCheckpoint(name: string, position: number) {
        if (!scope.recording) {
          await write((session) =>
            checkpoints.updateOne({ _id: name }, { $set: { position } }, { session, upsert: true }),
          );
          return;
        }
        const before = await write((session) =>
          checkpoints.findOneAndUpdate(
            { _id: name },
            { $set: { position } },
            { session, upsert: true, returnDocument: 'before' },
          ),
        );
        scope.record(() => inTx(attempt, (session) => restore(checkpoints, name, before, session)));
      },
    };
  };

  /** A store.transaction inside an open one: a savepoint of the open transaction. */
  const savepoint = async <T>(outer: TxContext, fn: (tx: StoreTx) => Promise<T>): Promise<T> => {
    const scope = outer.scope.child();
    try {
      const value = await context.run({ attempt: outer.attempt, scope }, () =>
        fn(makeTx(outer.attempt, scope)),
      );
      scope.release();
      return value;
    } catch (err) {
      // after a server error the server has aborted the whole transaction: nothing to undo, and
      // inTx makes every later operation of the attempt fail with that error
      if (outer.attempt.failed === undefined) {
        try {
          await scope.rollback();
        } catch (undoError) {
          outer.attempt.failed ??= undoError;
        }
      }
      throw err;
    }
  };

  const topLevel = async <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> => {
    const session = client.startSession();
    const opened: string[] = [];
    let last: Attempt | undefined;
    let committed = false;
    let result: T;
    try {
      result = await session.withTransaction(async () => {
        const attempt: Attempt = { session, done: false, appended: false, opened: [] };
        last = attempt;
        try {
          const scope = SavepointScope.root();
          const value = await context.run({ attempt, scope }, () => fn(makeTx(attempt, scope)));
          // the callback caught a server error and went on: the server transaction is gone
          if (attempt.failed !== undefined) throw attempt.failed;
          if (attempt.reservation) {
            // close the reservation with the commit (a reaped one makes this insert conflict: no commit)
            const id = await attempt.reservation;
            await inTx(attempt, (s) =>
              closed.insertOne({ _id: id, by: 'commit', at: new Date() }, { session: s }),
            );
          }
          return value;
        } finally {
          attempt.done = true;
          opened.push(...attempt.opened);
        }
      }, TX_OPTIONS);
      committed = true;
    } finally {
      await session.endSession().catch(() => undefined);
      // the committed attempt's reservation is closed: delete it; close those of the attempts that did not
      // commit now, rather than let readers wait for their lease (best effort: readers reap them anyway)
      const kept = committed && last ? last.opened : [];
      if (kept.length) await reservations.deleteMany({ _id: { $in: kept } }).catch(() => undefined);
      for (const id of opened.filter((x) => !kept.includes(x)))
        await closeReservation(id, 'abort').catch(() => undefined);
    }
    if (last?.appended) listeners.notify();
    return result;
  };

  /** readAll outside transactions: up to the outbox horizon (see the header). */
  const readOutbox = async (afterPosition: number, limit: number): Promise<StoredEvent[]> => {
    const page = pageOf(limit, undefined);
    if (page.none) return [];
    // causally consistent majority reads: each read sees at least what the one before it saw, and
    // nothing that a failover could roll back
    const session = client.startSession({ causalConsistency: true });
    try {
      const majority = { session, readConcern: { level: 'majority' as const } };
      const seq = (await counters.findOne({ _id: SEQ }, majority))?.seq ?? 0;
      let oldest: OpenReservation | undefined;
      for (;;) {
        [oldest] = await reservations
          .aggregate<OpenReservation>(
            [
              { $sort: { floor: 1 } },
              { $limit: 1 },
              { $lookup: { from: 'closed', localField: '_id', foreignField: '_id', as: 'closing' } },
              {
                $addFields: {
                  expired: { $lt: ['$at', { $subtract: ['$$NOW', leaseMs] }] },
                  closing: { $size: '$closing' },
                },
              },
            ],
            majority,
          )
          .toArray();
        if (!oldest) break;
        if (oldest.closing > 0) {
          // committed (or closed) but not yet deleted
          await reservations.deleteOne({ _id: oldest._id }, { session });
        } else if (oldest.expired) {
          // past its lease: its process died, or its transaction is too old to commit
          await closeReservation(oldest._id, 'reap', session);
        } else break;
      }
      const floor = oldest?.floor;
      const horizon = outboxHorizon(seq, floor);
      const docs =
        horizon > afterPosition
          ? await events
              .find(
                { position: { $gt: afterPosition, $lte: horizon } },
                {
                  ...majority,
                  sort: { position: 1 },
                  ...(page.limit !== undefined ? { limit: page.limit } : {}),
                },
              )
              .toArray()
          : [];
      if (isHeldBack(seq, floor, afterPosition) && (page.limit === undefined || docs.length < page.limit))
        wakeLater();
      return docs.map((d) => withIntegration(fromDoc(d), d.integration));
    } finally {
      await session.endSession().catch(() => undefined);
    }
  };

  const store: ServiceStore = {
    ...readsVia(() => current()?.attempt),
    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      const outer = current();
      if (outer) return savepoint(outer, fn);
      assertOpen();
      return track(topLevel(fn));
    },
    async readAll(afterPosition: number, limit: number) {
      assertOpen();
      const ctx = current();
      if (!ctx) return track(readOutbox(afterPosition, limit));
      // inside a transaction: its snapshot and its own appends (as SQLite reads the open transaction)
      const page = pageOf(limit, undefined);
      if (page.none) return [];
      const docs = await inTx(ctx.attempt, (session) =>
        events
          .find(
            { position: { $gt: afterPosition } },
            { session, sort: { position: 1 }, ...(page.limit !== undefined ? { limit: page.limit } : {}) },
          )
          .toArray(),
      );
      return docs.map((d) => withIntegration(fromDoc(d), d.integration));
    },
    async lastPosition() {
      assertOpen();
      const ctx = current();
      const find = (session: ClientSession | undefined) =>
        events.findOne(
          {},
          {
            session,
            sort: { position: -1 },
            projection: { position: 1 },
            ...(session ? {} : { readConcern: { level: 'majority' as const } }),
          },
        );
      const last = ctx ? await inTx(ctx.attempt, find) : await track(find(undefined));
      return last?.position ?? 0;
    },
    onAppended: listeners.add,
    inventory: mongoInventory({ db, prefix, rm, processed, checkpoints }, (op) => {
      assertOpen();
      return track(op());
    }),
    async ensureIndex(collection: string, fields: string[]) {
      await rm(collection).createIndex(
        Object.fromEntries([...fields.map((f) => [`${DOC}.${checkField(f)}`, 1]), ['_id', 1]]),
      );
    },
    async ping() {
      assertOpen();
      // bounded: the server selection timeout (10 s) is too long for a readiness probe
      await db.command({ ping: 1 }, { signal: AbortSignal.timeout(2_000) });
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      // like SQLite's close, which waits for the running transaction: let what runs finish
      await Promise.allSettled([...inflight]);
      listeners.clear();
      if (wakeTimer) clearTimeout(wakeTimer);
      wakeTimer = undefined;
      if (owned) await client.close();
    },
  };
  return store;
}
