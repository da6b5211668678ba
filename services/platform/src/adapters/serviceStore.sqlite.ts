import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type Database from 'better-sqlite3';
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
  StoreInventory,
} from '../ports/serviceStore.js';
import { Mutex } from '../util/async.js';
import { openSqlite, readSynchronous, type SqliteSynchronous } from './sqliteFile.js';
import { DocBuffer } from './sqliteDocBuffer.js';
import {
  collectionSql,
  createSchema,
  fieldSql,
  findSql,
  GET_MANY,
  INSERT_MANY,
  isUniqueViolation,
  prepareStatements,
  PUT_MANY,
  rowToEvent,
  whereSql,
} from './sqliteStatements.js';
import {
  appendListeners,
  buildEnvelopes,
  checkCollection,
  checkField,
  type StoreOptions,
  withIntegration,
} from './storeShared.js';

/**
 * ServiceStore on SQLite (better-sqlite3). One file per service (WAL), or ':memory:' in tests. Its SQL is in
 * sqliteStatements.ts, its transaction's document write-behind in sqliteDocBuffer.ts.
 *
 * - events: the event store AND the outbox; `position` is the global autoincrement order,
 *   unique(stream_id, version) backs the optimistic concurrency check.
 * - documents(collection, id, json): read models; find() filters with json_extract.
 * - processed(consumer, event_id): idempotent-consumer markers.
 * - checkpoints(name, position).
 *
 * better-sqlite3 is synchronous and holds one connection, so transactions are serialised by an async
 * mutex around BEGIN IMMEDIATE … COMMIT/ROLLBACK; reads outside a transaction wait for the mutex too
 * (they never see uncommitted writes). Calls made inside a transaction's async context (including a
 * nested store.transaction, which becomes a SAVEPOINT) run directly on the open transaction.
 *
 * Group commit: top-level transactions that queue up while another holds the store (concurrent
 * commands arriving within the same tick or during a commit) run one after the other in ONE SQLite
 * transaction, each inside its own SAVEPOINT, and share its COMMIT. A callback that throws rolls back to
 * its savepoint only (its caller gets the error at once; the others go on); the others' promises
 * resolve after the shared COMMIT, so no caller sees a success that is not durable. Each keeps the
 * isolation it had: it runs alone, seeing what the callbacks before it in the group wrote.
 *
 * Documents written in a transaction are kept in memory until the COMMIT (or until a find/count needs
 * them in SQL), so a document put many times in one transaction (a user's balances, the shards of a
 * platform account, a ledger state row across a batch) is written once; gets inside the transaction
 * read them from there. Savepoints roll this write-behind back with them (an undo log per savepoint).
 */
export interface SqliteStoreOptions extends StoreOptions {
  /** When a commit is on disk (sqliteFile.ts): FULL unless told otherwise (`storeSynchronous(service)`). */
  synchronous?: SqliteSynchronous;
}

export interface SqliteServiceStore extends ServiceStore {
  /** The connection's `synchronous` setting as SQLite reports it (what a power loss may undo). */
  synchronous(): ReturnType<typeof readSynchronous>;
}

export function createSqliteServiceStore(path: string, options: SqliteStoreOptions = {}): SqliteServiceStore {
  const db = openSqlite(path, { synchronous: options.synchronous });
  createSchema(db);
  const stmt = prepareStatements(db);

  const mutex = new Mutex();
  const txContext = new AsyncLocalStorage<TxState>();
  const listeners = appendListeners();
  let closed = false;
  let savepointSeq = 0;

  const docKey = (collection: string, id: string) => `${collection}\u0000${id}`;
  /** Inserts of n events in one statement, made when first needed (n ≤ INSERT_MANY). */
  const insertEvents: Array<Database.Statement<unknown[], { id: string; position: number }> | undefined> = [];
  const insertEventsOf = (n: number) =>
    (insertEvents[n] ??= db.prepare<unknown[], { id: string; position: number }>(
      `INSERT INTO events (id, stream_id, version, type, data, occurred_at, correlation_id, causation_id, actor, integration)
       VALUES ${Array(n).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} RETURNING id, position`,
    ));
  /** Upserts of n documents in one statement, made when first needed (n ≤ PUT_MANY). */
  const putDocs: Array<Database.Statement | undefined> = [];
  const putDocsOf = (n: number) =>
    (putDocs[n] ??= db.prepare(
      `INSERT INTO documents (collection, id, json) VALUES ${Array(n).fill('(?, ?, ?)').join(', ')} ON CONFLICT (collection, id) DO UPDATE SET json = excluded.json`,
    ));
  /** The write-behind's writes: deletes one by one, upserts PUT_MANY to a statement. */
  const writeDocs = (writes: ReadonlyArray<readonly [key: string, json: string | null]>) => {
    const puts: string[] = [];
    for (const [key, json] of writes) {
      const at = key.indexOf('\u0000');
      const collection = key.slice(0, at);
      const id = key.slice(at + 1);
      if (json === null) stmt.deleteDoc.run(collection, id);
      else puts.push(collection, id, json);
    }
    for (let at = 0; at < puts.length; at += 3 * PUT_MANY) {
      const rows = puts.slice(at, at + 3 * PUT_MANY);
      putDocsOf(rows.length / 3).run(...rows);
    }
  };
  /** The open SQLite transaction's document write-behind (see the module comment). */
  const docs = new DocBuffer(writeDocs);
  /** Positions of the events the open SQLite transaction appended, by event id. */
  const appendedAt = new Map<string, number>();

  const assertOpen = () => {
    if (closed) throw new Error('ServiceStore is closed');
  };

  const inOpenTx = () => {
    const state = txContext.getStore();
    return !!state && !state.done;
  };

  /** Runs a read: directly inside a transaction's context, else after the current writer commits. */
  const read = <T>(fn: () => T): Promise<T> => {
    assertOpen();
    const state = txContext.getStore();
    if (state && !state.done) return Promise.resolve().then(fn);
    return mutex.run(async () => {
      assertOpen();
      return fn();
    });
  };

  const reads: StoreReads = {
    readStream: <E extends DomainEvent = DomainEvent>(streamId: string) =>
      read(() => {
        const events = stmt.readStream.all(streamId).map((r) => rowToEvent(r) as StoredEvent<E>);
        return { version: events.length ? events[events.length - 1].version : 0, events };
      }),
    get: <T extends object>(collection: string, id: string) =>
      read(() => {
        checkCollection(collection);
        const json = inOpenTx()
          ? docs.get(docKey(collection, id), () => stmt.getDoc.get(collection, id)?.json ?? null)
          : (stmt.getDoc.get(collection, id)?.json ?? null);
        return json === null ? null : (JSON.parse(json) as T);
      }),
    getMany: <T extends object>(collection: string, ids: readonly string[]) =>
      read(() => {
        checkCollection(collection);
        const inTx = inOpenTx();
        // what this transaction holds already comes from its buffer; the rest in statements of GET_MANY
        const wanted = inTx ? ids.filter((id) => !docs.has(docKey(collection, id))) : ids;
        const found = new Map<string, string>();
        for (let at = 0; at < wanted.length; at += GET_MANY)
          for (const row of stmt.getDocs.all(collection, JSON.stringify(wanted.slice(at, at + GET_MANY))))
            found.set(row.id, row.json);
        const asked = new Set(wanted);
        // (a buffer that outgrows its bound is flushed and forgotten midway: what it held is read again)
        const load = (id: string) =>
          found.get(id) ?? (asked.has(id) ? null : (stmt.getDoc.get(collection, id)?.json ?? null));
        return ids.map((id) => {
          const json = inTx ? docs.get(docKey(collection, id), () => load(id)) : load(id);
          return json === null ? null : (JSON.parse(json) as T);
        });
      }),
    find: <T extends object>(collection: string, query: FindQuery = {}) =>
      read(() => {
        if (inOpenTx()) docs.flush();
        const { sql, params } = findSql(collection, query);
        return db
          .prepare<unknown[], { json: string }>(sql)
          .all(...params)
          .map((r) => JSON.parse(r.json) as T);
      }),
    count: (collection: string, where?: Record<string, Scalar>) =>
      read(() => {
        if (inOpenTx()) docs.flush();
        const { sql, params } = whereSql(collection, where);
        return (
          db
            .prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM documents ${sql}`)
            .get(...params) as { n: number }
        ).n;
      }),
    getCheckpoint: (name: string) => read(() => stmt.getCheckpoint.get(name)?.position ?? 0),
  };

  const makeTx = (state: TxState): StoreTx => {
    const guard = () => {
      if (state.done)
        throw new Error('transaction already finished: do not use tx after the callback returned');
    };
    return {
      ...reads,
      async appendToStream<E extends DomainEvent>(
        streamId: string,
        expectedVersion: ExpectedVersion,
        events: Array<E & { id?: string }>,
        meta: EventMeta,
        appendOptions?: AppendOptions,
      ) {
        guard();
        const current = stmt.streamVersion.get(streamId)?.v ?? 0;
        if (expectedVersion !== 'any' && expectedVersion !== current) {
          throw new ConcurrencyError(streamId, expectedVersion, current);
        }
        const envelopes = buildEnvelopes(streamId, current, events, meta, options);
        const stored: StoredEvent<E>[] = [];
        // INSERT_MANY events to a statement; each event's position (its rowid) comes back by its id
        for (let at = 0; at < envelopes.length; at += INSERT_MANY) {
          const slice = envelopes.slice(at, at + INSERT_MANY);
          const params: unknown[] = [];
          slice.forEach((e, i) => {
            const integration = appendOptions?.integrations?.[at + i];
            params.push(
              e.id,
              e.streamId,
              e.version,
              e.type,
              JSON.stringify(e.data ?? null),
              e.occurredAt,
              e.correlationId,
              e.causationId,
              e.actor ? JSON.stringify(e.actor) : null,
              integration === undefined ? null : JSON.stringify(integration),
            );
          });
          let rows: Array<{ id: string; position: number }>;
          try {
            rows = insertEventsOf(slice.length).all(...params);
          } catch (err) {
            if (isUniqueViolation(err, 'stream_id'))
              throw new ConcurrencyError(streamId, expectedVersion, current);
            throw err;
          }
          const positions = new Map(rows.map((r) => [r.id, r.position]));
          for (const e of slice) {
            const position = positions.get(e.id) as number;
            appendedAt.set(e.id, position);
            stored.push({ ...e, position });
          }
        }
        if (stored.length) state.appended = true;
        return { nextVersion: current + events.length, events: stored };
      },
      async recordIntegrationEvent(eventId: string, integration: Recorded) {
        guard();
        const json = JSON.stringify(integration);
        const position = appendedAt.get(eventId);
        if (position === undefined || stmt.recordIntegrationAt.run(json, position, eventId).changes === 0)
          stmt.recordIntegration.run(json, eventId);
      },
      async put<T extends object>(collection: string, id: string, doc: T) {
        guard();
        docs.set(docKey(checkCollection(collection), id), JSON.stringify(doc));
      },
      async delete(collection: string, id: string) {
        guard();
        docs.set(docKey(checkCollection(collection), id), null);
      },
      async markProcessed(consumer: string, eventId: string) {
        guard();
        return stmt.markProcessed.run(consumer, eventId).changes === 1;
      },
      async setCheckpoint(name: string, position: number) {
        guard();
        stmt.setCheckpoint.run(name, position);
      },
    };
  };

  /** Top-level transactions waiting for the store; each pass of drain() runs a group of them. */
  const queue: Job[] = [];
  let draining = false;

  // A group takes the store at once (reads issued after a transaction still wait for its commit, as
  // they always did) and starts in the event loop's check phase (setImmediate), after the I/O callbacks
  // of this turn: every command whose request arrived with this one has queued its transaction by then,
  // so they share a COMMIT (a transaction runs in microtasks, so nothing arrives while it runs).
  const drain = async () => {
    try {
      while (queue.length > 0) {
        await mutex.run(async () => {
          await new Promise<void>((resolve) => setImmediate(resolve));
          await runGroup(queue.splice(0, GROUP_MAX));
        });
      }
    } finally {
      draining = false;
    }
  };

  /** BEGIN, each job (in a savepoint when there are several), one COMMIT; see the module comment. */
  const runGroup = async (jobs: Job[]): Promise<void> => {
    if (closed) {
      for (const job of jobs) job.reject(new Error('ServiceStore is closed'));
      return;
    }
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      for (const job of jobs) job.reject(err);
      return;
    }
    const grouped = jobs.length > 1;
    const done: Array<{ job: Job; value: unknown }> = [];
    let appended = false;
    let aborted: unknown = null;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i];
      if (aborted !== null) {
        job.reject(aborted);
        continue;
      }
      const state: TxState = { done: false, appended: false };
      const name = `g_${++savepointSeq}`;
      try {
        if (grouped) {
          db.exec(`SAVEPOINT ${name}`);
          docs.savepoint();
        }
        const value = await job.run(state);
        if (grouped) {
          db.exec(`RELEASE ${name}`);
          docs.release();
        }
        done.push({ job, value });
        appended ||= state.appended;
      } catch (err) {
        state.appended = false;
        if (grouped && db.inTransaction) {
          try {
            db.exec(`ROLLBACK TO ${name}`);
            db.exec(`RELEASE ${name}`);
            docs.rollbackTo();
          } catch (undoErr) {
            aborted = undoErr;
          }
        } else {
          aborted = err;
        }
        // a failure that ended the SQLite transaction (or a single job's) fails the whole group
        if (!db.inTransaction && aborted === null) aborted = err;
        job.reject(err);
      } finally {
        state.done = true;
      }
    }
    if (aborted === null) {
      try {
        docs.flush();
        db.exec('COMMIT');
      } catch (err) {
        aborted = err;
      }
    }
    if (aborted !== null) {
      if (db.inTransaction) db.exec('ROLLBACK');
      docs.clear();
      appendedAt.clear();
      for (const { job } of done) job.reject(aborted);
      return;
    }
    docs.clear();
    appendedAt.clear();
    for (const { job, value } of done) job.resolve(value);
    if (appended) listeners.notify();
  };

  const inventory: StoreInventory = {
    collections: () => read(() => stmt.collections.all().map((r) => r.collection)),
    documents: (collection, afterId, limit) =>
      read(() =>
        stmt.documents
          .all(checkCollection(collection), afterId, limit)
          .map((r) => ({ id: r.id, doc: JSON.parse(r.json) as object })),
      ),
    processed: (after, limit) =>
      read(() =>
        stmt.processed
          .all(after?.consumer ?? '', after?.eventId ?? '', limit)
          .map((r) => ({ consumer: r.consumer, eventId: r.event_id })),
      ),
    checkpoints: () => read(() => stmt.checkpoints.all()),
  };

  const store: SqliteServiceStore = {
    ...reads,
    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      assertOpen();
      const outer = txContext.getStore();
      if (outer && !outer.done) {
        // nested: a savepoint inside the open transaction
        const name = `sp_${++savepointSeq}`;
        db.exec(`SAVEPOINT ${name}`);
        docs.savepoint();
        try {
          const result = await fn(makeTx(outer));
          db.exec(`RELEASE ${name}`);
          docs.release();
          return result;
        } catch (err) {
          db.exec(`ROLLBACK TO ${name}`);
          db.exec(`RELEASE ${name}`);
          docs.rollbackTo();
          throw err;
        }
      }
      // the callback runs in its caller's async context (trace, correlation id), whichever call's
      // drain runs the group (a resource, not AsyncResource.bind: that one costs a deprecation wrapper)
      const caller = new AsyncResource('ServiceStoreTransaction');
      return new Promise<T>((resolve, reject) => {
        queue.push({
          run: (state: TxState) =>
            caller.runInAsyncScope(() => txContext.run(state, () => fn(makeTx(state)))),
          resolve: resolve as Job['resolve'],
          reject,
        });
        if (!draining) {
          draining = true;
          void drain();
        }
      });
    },
    readAll: (afterPosition: number, limit: number) =>
      read(() =>
        stmt.readAll.all(afterPosition, limit).map((r) => withIntegration(rowToEvent(r), r.integration)),
      ),
    lastPosition: () => read(() => stmt.lastPosition.get()?.p ?? 0),
    onAppended: listeners.add,
    inventory,
    ensureIndex: (collection: string, fields: string[]) =>
      mutex.run(async () => {
        assertOpen();
        const suffix = `${checkCollection(collection)}_${fields.map(checkField).join('_')}`.replace(
          /[^A-Za-z0-9_]/g,
          '_',
        );
        // partial: only the collection's own documents are in it, so writing any other document costs it
        // nothing (queries name their collection inline, which is how SQLite knows the index applies)
        db.exec(
          `CREATE INDEX IF NOT EXISTS "px_${suffix}" ON documents (${fields.map(fieldSql).join(', ')}, id) WHERE ${collectionSql(collection)}`,
        );
        // the whole-table index of earlier versions (every document of every collection in it)
        db.exec(`DROP INDEX IF EXISTS "ix_${suffix}"`);
      }),
    // not behind the writer mutex: a long transaction is not an unreachable store
    ping: async () => {
      assertOpen();
      stmt.ping.get();
    },
    synchronous: () => {
      assertOpen();
      return readSynchronous(db);
    },
    async close() {
      if (closed) return;
      await mutex.run(async () => {
        closed = true;
        listeners.clear();
        db.close();
      });
    },
  };
  return store;
}

interface TxState {
  done: boolean;
  appended: boolean;
}

interface Job {
  run: (state: TxState) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Top-level transactions committed together at most (bounds the wait of the first for its COMMIT). */
const GROUP_MAX = 64;

/** The SELECT of find() (the plan test reads it). */
export { findSql };
