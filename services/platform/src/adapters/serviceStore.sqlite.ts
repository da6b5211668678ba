import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { DomainEvent, EventMeta, ExpectedVersion, StoredEvent } from '../eventSourcing/types.js';
import { ConcurrencyError } from '../eventSourcing/errors.js';
import type { FindQuery, Scalar, ServiceStore, StoreReads, StoreTx } from '../ports/serviceStore.js';
import { Mutex } from '../util/async.js';
import { openSqlite } from './sqliteFile.js';
import {
  appendListeners,
  buildEnvelopes,
  checkCollection,
  checkField,
  checkScalar,
  type StoreOptions,
  withIntegration,
} from './storeShared.js';

/**
 * ServiceStore on SQLite (better-sqlite3). One file per service (WAL), or ':memory:' in tests.
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
 */
export function createSqliteServiceStore(path: string, options: StoreOptions = {}): ServiceStore {
  const db = openSqlite(path);
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position       INTEGER PRIMARY KEY AUTOINCREMENT,
      id             TEXT NOT NULL UNIQUE,
      stream_id      TEXT NOT NULL,
      version        INTEGER NOT NULL,
      type           TEXT NOT NULL,
      data           TEXT NOT NULL,
      occurred_at    TEXT NOT NULL,
      correlation_id TEXT NOT NULL,
      causation_id   TEXT,
      actor          TEXT,
      integration    TEXT,
      UNIQUE (stream_id, version)
    );
    CREATE TABLE IF NOT EXISTS documents (
      collection TEXT NOT NULL,
      id         TEXT NOT NULL,
      json       TEXT NOT NULL,
      PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS processed (
      consumer TEXT NOT NULL,
      event_id TEXT NOT NULL,
      PRIMARY KEY (consumer, event_id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS checkpoints (
      name     TEXT PRIMARY KEY,
      position INTEGER NOT NULL
    ) WITHOUT ROWID;
  `);
  addIntegrationColumn(db);

  const stmt = {
    streamVersion: db.prepare<[string], { v: number | null }>(
      'SELECT MAX(version) AS v FROM events WHERE stream_id = ?',
    ),
    readStream: db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY version'),
    readAll: db.prepare<[number, number], EventRow>(
      'SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?',
    ),
    lastPosition: db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events'),
    ping: db.prepare('SELECT 1'),
    insertEvent: db.prepare(
      `INSERT INTO events (id, stream_id, version, type, data, occurred_at, correlation_id, causation_id, actor)
       VALUES (@id, @streamId, @version, @type, @data, @occurredAt, @correlationId, @causationId, @actor)`,
    ),
    recordIntegration: db.prepare('UPDATE events SET integration = ? WHERE id = ?'),
    getDoc: db.prepare<[string, string], { json: string }>(
      'SELECT json FROM documents WHERE collection = ? AND id = ?',
    ),
    putDoc: db.prepare(
      'INSERT INTO documents (collection, id, json) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET json = excluded.json',
    ),
    deleteDoc: db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?'),
    markProcessed: db.prepare('INSERT OR IGNORE INTO processed (consumer, event_id) VALUES (?, ?)'),
    getCheckpoint: db.prepare<[string], { position: number }>(
      'SELECT position FROM checkpoints WHERE name = ?',
    ),
    setCheckpoint: db.prepare(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    ),
  };

  const mutex = new Mutex();
  const txContext = new AsyncLocalStorage<TxState>();
  const listeners = appendListeners();
  let closed = false;
  let savepointSeq = 0;

  const assertOpen = () => {
    if (closed) throw new Error('ServiceStore is closed');
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
        const row = stmt.getDoc.get(checkCollection(collection), id);
        return row ? (JSON.parse(row.json) as T) : null;
      }),
    find: <T extends object>(collection: string, query: FindQuery = {}) =>
      read(() => {
        const { sql, params } = whereSql(collection, query.where);
        let full = `SELECT json FROM documents ${sql}`;
        if (query.prefix && query.prefix.value !== '') {
          const like = `${query.prefix.value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
          const any = query.prefix.fields.map((f) => `lower(${fieldSql(f)}) LIKE ? ESCAPE '\\'`);
          full += ` AND (${any.join(' OR ')})`;
          params.push(...query.prefix.fields.map(() => like));
        }
        if (query.after) {
          if (!query.orderBy) throw new Error('find: `after` needs `orderBy`');
          checkScalar(query.orderBy.field, query.after.value);
          // `f <= v AND (f < v OR id < i)`: a range on an ensureIndex index (SQLite does not range-scan
          // an expression index for the row value `(f, id) < (v, i)`: it would walk every newer row)
          const [op, eq] = query.orderBy.direction === 'desc' ? ['<', '<='] : ['>', '>='];
          const f = fieldSql(query.orderBy.field);
          full += ` AND ${f} ${eq} ? AND (${f} ${op} ? OR id ${op} ?)`;
          params.push(query.after.value, query.after.value, query.after.id);
        }
        if (query.orderBy) {
          const dir = query.orderBy.direction === 'desc' ? 'DESC' : 'ASC';
          // the path inline (checkField allows no quote): the expression an ensureIndex index is built on
          full += ` ORDER BY ${fieldSql(query.orderBy.field)} ${dir}, id ${dir}`;
        } else {
          full += ' ORDER BY id';
        }
        if (query.limit !== undefined || query.offset !== undefined) {
          full += ' LIMIT ? OFFSET ?';
          params.push(query.limit ?? -1, query.offset ?? 0);
        }
        return db
          .prepare<unknown[], { json: string }>(full)
          .all(...params)
          .map((r) => JSON.parse(r.json) as T);
      }),
    count: (collection: string, where?: Record<string, Scalar>) =>
      read(() => {
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
      ) {
        guard();
        const current = stmt.streamVersion.get(streamId)?.v ?? 0;
        if (expectedVersion !== 'any' && expectedVersion !== current) {
          throw new ConcurrencyError(streamId, expectedVersion, current);
        }
        const envelopes = buildEnvelopes(streamId, current, events, meta, options);
        const stored: StoredEvent<E>[] = [];
        for (const e of envelopes) {
          let info: Database.RunResult;
          try {
            info = stmt.insertEvent.run({
              ...e,
              data: JSON.stringify(e.data ?? null),
              actor: e.actor ? JSON.stringify(e.actor) : null,
            });
          } catch (err) {
            if (isUniqueViolation(err, 'stream_id'))
              throw new ConcurrencyError(streamId, expectedVersion, current);
            throw err;
          }
          stored.push({ ...e, position: Number(info.lastInsertRowid) });
        }
        if (stored.length) state.appended = true;
        return { nextVersion: current + events.length, events: stored };
      },
      async recordIntegrationEvent(eventId: string, integration: DomainEvent | null) {
        guard();
        stmt.recordIntegration.run(JSON.stringify(integration), eventId);
      },
      async put<T extends object>(collection: string, id: string, doc: T) {
        guard();
        stmt.putDoc.run(checkCollection(collection), id, JSON.stringify(doc));
      },
      async delete(collection: string, id: string) {
        guard();
        stmt.deleteDoc.run(checkCollection(collection), id);
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

  const store: ServiceStore = {
    ...reads,
    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      assertOpen();
      const outer = txContext.getStore();
      if (outer && !outer.done) {
        // nested: a savepoint inside the open transaction
        const name = `sp_${++savepointSeq}`;
        db.exec(`SAVEPOINT ${name}`);
        try {
          const result = await fn(makeTx(outer));
          db.exec(`RELEASE ${name}`);
          return result;
        } catch (err) {
          db.exec(`ROLLBACK TO ${name}`);
          db.exec(`RELEASE ${name}`);
          throw err;
        }
      }
      const state: TxState = { done: false, appended: false };
      const result = await mutex.run(async () => {
        assertOpen();
        db.exec('BEGIN IMMEDIATE');
        try {
          const value = await txContext.run(state, () => fn(makeTx(state)));
          db.exec('COMMIT');
          return value;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          state.appended = false;
          throw err;
        } finally {
          state.done = true;
        }
      });
      if (state.appended) listeners.notify();
      return result;
    },
    readAll: (afterPosition: number, limit: number) =>
      read(() =>
        stmt.readAll.all(afterPosition, limit).map((r) => withIntegration(rowToEvent(r), r.integration)),
      ),
    lastPosition: () => read(() => stmt.lastPosition.get()?.p ?? 0),
    onAppended: listeners.add,
    ensureIndex: (collection: string, fields: string[]) =>
      mutex.run(async () => {
        assertOpen();
        const name = `ix_${checkCollection(collection)}_${fields.map(checkField).join('_')}`.replace(
          /[^A-Za-z0-9_]/g,
          '_',
        );
        db.exec(
          `CREATE INDEX IF NOT EXISTS "${name}" ON documents (collection, ${fields.map(fieldSql).join(', ')}, id)`,
        );
      }),
    // not behind the writer mutex: a long transaction is not an unreachable store
    ping: async () => {
      assertOpen();
      stmt.ping.get();
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

interface EventRow {
  position: number;
  id: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  occurred_at: string;
  correlation_id: string;
  causation_id: string | null;
  actor: string | null;
  integration: string | null;
}

function rowToEvent(r: EventRow): StoredEvent {
  return {
    id: r.id,
    type: r.type,
    data: JSON.parse(r.data),
    streamId: r.stream_id,
    version: r.version,
    position: r.position,
    occurredAt: r.occurred_at,
    correlationId: r.correlation_id,
    causationId: r.causation_id,
    actor: r.actor ? JSON.parse(r.actor) : null,
  };
}

/**
 * Files of a version before integration events were recorded at append time get the column (NULL on
 * the rows already there: the relay's map decides for them). Replicas opening one file may race: the
 * loser's "duplicate column" is fine.
 */
function addIntegrationColumn(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(events)').all();
  if (columns.some((c) => c.name === 'integration')) return;
  try {
    db.exec('ALTER TABLE events ADD COLUMN integration TEXT');
  } catch (err) {
    if (!/duplicate column/i.test((err as Error).message)) throw err;
  }
}

/** A document field as an SQL expression, its JSON path inline (checkField admits no quote). */
const fieldSql = (field: string) => `json_extract(json, '$.${checkField(field)}')`;

function whereSql(
  collection: string,
  where: Record<string, Scalar> | undefined,
): { sql: string; params: unknown[] } {
  const clauses = ['collection = ?'];
  const params: unknown[] = [checkCollection(collection)];
  for (const [field, value] of Object.entries(where ?? {})) {
    checkField(field);
    checkScalar(field, value);
    if (value === null) {
      clauses.push('json_extract(json, ?) IS NULL');
      params.push(`$.${field}`);
    } else if (typeof value === 'boolean') {
      // json_extract yields 1/0 for JSON true/false; require the JSON type too
      clauses.push(`json_type(json, ?) = ?`);
      params.push(`$.${field}`, value ? 'true' : 'false');
    } else {
      clauses.push(`json_extract(json, ?) = ?`);
      params.push(`$.${field}`, value);
      if (typeof value === 'string') {
        clauses.push(`json_type(json, ?) = 'text'`);
        params.push(`$.${field}`);
      }
    }
  }
  return { sql: `WHERE ${clauses.join(' AND ')}`, params };
}

function isUniqueViolation(err: unknown, column: string): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && (e.message ?? '').includes(column);
}
