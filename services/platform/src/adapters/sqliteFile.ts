import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { SAFETY_PAGES, checkpointInBackground } from './sqliteCheckpointer.js';

/**
 * When a commit is on disk (SQLite's `synchronous` in WAL mode):
 * - FULL: the WAL is synced at every COMMIT, so a commit that returned survives a power loss (the
 *   default: money, and the bus that carries it);
 * - NORMAL: synced at checkpoints only; a power loss (not a process crash) may undo the last commits.
 */
export type SqliteSynchronous = 'FULL' | 'NORMAL';

/**
 * The services whose store holds money: the ledger's postings, and the investment and withdrawal requests
 * answered to their users (a request lost after its answer would leave a hold the ledger placed for
 * nothing). Their stores, and the in-process bus, sync every commit. The others (identity, kyc,
 * notification, support) keep NORMAL: a power loss may undo their last commits (a session, a sent-email
 * record, a message), which the person repeats; their integrity is never at risk.
 */
export const MONEY_STORES: ReadonlySet<string> = new Set(['ledger', 'investment', 'withdrawal']);

/** The `synchronous` setting of a service's SQLite store (MONEY_STORES: FULL, others NORMAL). */
export function storeSynchronous(service: string): SqliteSynchronous {
  return MONEY_STORES.has(service) ? 'FULL' : 'NORMAL';
}

/** The `synchronous` setting of an open connection as SQLite reports it. */
export function readSynchronous(db: Database.Database): 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA' {
  const level = db.pragma('synchronous', { simple: true }) as number;
  return (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[level] ?? 'OFF';
}

/**
 * Opens the SQLite database of an embedded adapter (service store, in-process bus, key vault): a file (its
 * folder made) or ':memory:'. Writers wait up to 5 s for each other. The file is readable by its owner only
 * (600, a folder it makes 700); SQLite gives its journal, -wal and -shm files the database file's mode.
 * - `journal` (a file only): 'wal' (the default: several processes share it, its checkpoints run in the
 *   background), or 'delete': a rollback journal removed after each commit, synced at every COMMIT, for a
 *   file whose old page contents must not outlive a commit in a WAL's frames (the key vault).
 * - `synchronous` (WAL only): FULL unless told otherwise.
 */
export function openSqlite(
  path: string,
  options: { synchronous?: SqliteSynchronous; journal?: 'wal' | 'delete' } = {},
): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  // set first: changing the journal mode (into WAL, or out of a WAL an older connection left) waits for
  // the other connections like a write
  db.pragma('busy_timeout = 5000');
  if (path !== ':memory:' && options.journal === 'delete') {
    chmodSync(path, 0o600);
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
  } else if (path !== ':memory:') {
    for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    // checkpoints run in a worker thread (sqliteCheckpointer.ts); without one, in the COMMIT that
    // crosses 10,000 pages (not SQLite's 1,000: a checkpoint's fsyncs stall the event loop, and a page
    // written by many commits in between is copied once)
    const stop = checkpointInBackground(resolve(path));
    db.pragma(`wal_autocheckpoint = ${stop ? SAFETY_PAGES : 10_000}`);
    if (stop) {
      const close = db.close.bind(db);
      db.close = () => {
        const result = close();
        stop();
        return result;
      };
    }
  }
  // what a delete or an update frees is overwritten with zeros, never left readable in free pages
  db.pragma('secure_delete = ON');
  // up to 32 MiB of pages cached (SQLite's default is 2 MiB): a store of 100,000s of documents reads its
  // hot index pages from memory instead of the file (filled as pages are read; the seeded standalone's
  // RSS is measured in bench/lists.ts)
  db.pragma('cache_size = -32768');
  return db;
}
