import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { SAFETY_PAGES, checkpointInBackground } from './sqliteCheckpointer.js';

/**
 * Opens the SQLite database of an embedded adapter (service store, in-process bus): a file (its folder
 * made; WAL, so several processes can share it) or ':memory:'. Writers wait up to 5 s for each other.
 */
export function openSqlite(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (path !== ':memory:') {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
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
  db.pragma('busy_timeout = 5000');
  // up to 32 MiB of pages cached (SQLite's default is 2 MiB): a store of 100,000s of documents reads its
  // hot index pages from memory instead of the file (filled as pages are read; the seeded standalone's
  // RSS is measured in bench/lists.ts)
  db.pragma('cache_size = -32768');
  return db;
}
