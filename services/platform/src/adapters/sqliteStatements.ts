/**
 * The SQL of the SQLite ServiceStore (serviceStore.sqlite.ts): its schema, its prepared statements, the
 * statement sizes of its batched reads and writes, and the queries built from a FindQuery.
 */
import type Database from 'better-sqlite3';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { FindQuery, Scalar } from '../ports/serviceStore.js';
import { checkCollection, checkField, checkScalar } from './storeShared.js';

/** Ids per statement of getMany. */
export const GET_MANY = 500;
/** Events per insert statement of an append. */
export const INSERT_MANY = 32;
/** Documents per upsert statement when the write-behind writes (SQLite takes up to 32,766 parameters). */
export const PUT_MANY = 64;

/**
 * The tables (see serviceStore.sqlite.ts): events (the event store and the outbox), documents (read models),
 * processed (idempotent-consumer markers), checkpoints.
 */
export function createSchema(db: Database.Database): void {
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
}

/** The statements the store runs, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  return {
    streamVersion: db.prepare<[string], { v: number | null }>(
      'SELECT MAX(version) AS v FROM events WHERE stream_id = ?',
    ),
    readStream: db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY version'),
    readAll: db.prepare<[number, number], EventRow>(
      'SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?',
    ),
    lastPosition: db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events'),
    ping: db.prepare('SELECT 1'),
    recordIntegration: db.prepare('UPDATE events SET integration = ? WHERE id = ?'),
    // the event's row found by its position (the rowid) when this transaction appended it
    recordIntegrationAt: db.prepare('UPDATE events SET integration = ? WHERE position = ? AND id = ?'),
    getDoc: db.prepare<[string, string], { json: string }>(
      'SELECT json FROM documents WHERE collection = ? AND id = ?',
    ),
    // up to GET_MANY ids of one collection (a JSON array), in one statement
    getDocs: db.prepare<[string, string], { id: string; json: string }>(
      'SELECT id, json FROM documents WHERE collection = ? AND id IN (SELECT value FROM json_each(?))',
    ),
    deleteDoc: db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?'),
    markProcessed: db.prepare('INSERT OR IGNORE INTO processed (consumer, event_id) VALUES (?, ?)'),
    getCheckpoint: db.prepare<[string], { position: number }>(
      'SELECT position FROM checkpoints WHERE name = ?',
    ),
    setCheckpoint: db.prepare(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    ),
    collections: db.prepare<[], { collection: string }>(
      'SELECT DISTINCT collection FROM documents ORDER BY collection',
    ),
    documents: db.prepare<[string, string, number], { id: string; json: string }>(
      'SELECT id, json FROM documents WHERE collection = ? AND id > ? ORDER BY id LIMIT ?',
    ),
    processed: db.prepare<[string, string, number], { consumer: string; event_id: string }>(
      'SELECT consumer, event_id FROM processed WHERE (consumer, event_id) > (?, ?) ORDER BY consumer, event_id LIMIT ?',
    ),
    checkpoints: db.prepare<[], { name: string; position: number }>(
      'SELECT name, position FROM checkpoints ORDER BY name',
    ),
  };
}

/** The prepared statements of one connection. */
export type Statements = ReturnType<typeof prepareStatements>;

export interface EventRow {
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

export function rowToEvent(r: EventRow): StoredEvent {
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

/**
 * `collection = '<name>'` with the name inline (checkCollection admits no quote): a query that names its
 * collection as a literal can use the collection's partial indexes (ensureIndex); a parameter could not.
 */
export const collectionSql = (collection: string) => `collection = '${checkCollection(collection)}'`;

/** A document field as an SQL expression, its JSON path inline (checkField admits no quote). */
export const fieldSql = (field: string) => `json_extract(json, '$.${checkField(field)}')`;

/** The SELECT of find(): its filter, prefix search, keyset page, order and limit (exported for the plan test). */
export function findSql(collection: string, query: FindQuery = {}): { sql: string; params: unknown[] } {
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
  return { sql: full, params };
}

export function whereSql(
  collection: string,
  where: Record<string, Scalar> | undefined,
): { sql: string; params: unknown[] } {
  const clauses = [collectionSql(collection)];
  const params: unknown[] = [];
  for (const [field, value] of Object.entries(where ?? {})) {
    checkField(field);
    checkScalar(field, value);
    // the path inline (checkField allows no quote), as in fieldSql: an ensureIndex index on the field is
    // then usable for the equality (SQLite matches an index expression only to the same literal path)
    const f = fieldSql(field);
    if (value === null) {
      clauses.push(`${f} IS NULL`);
    } else if (typeof value === 'boolean') {
      // json_extract yields 1/0 for JSON true/false; require the JSON type too
      clauses.push(`${f} = ?`, `json_type(json, '$.${field}') = ?`);
      params.push(value ? 1 : 0, value ? 'true' : 'false');
    } else {
      clauses.push(`${f} = ?`);
      params.push(value);
      if (typeof value === 'string') clauses.push(`json_type(json, '$.${field}') = 'text'`);
    }
  }
  return { sql: `WHERE ${clauses.join(' AND ')}`, params };
}

export function isUniqueViolation(err: unknown, column: string): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && (e.message ?? '').includes(column);
}
