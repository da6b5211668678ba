import { AsyncLocalStorage } from 'node:async_hooks';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { Mutex } from '../util/async.js';

/**
 * `count` ServiceStores on ONE SQLite file: how the replicas of a service share one database, in one
 * test process (tests only).
 *
 * Across processes SQLite's file lock serialises their write transactions. Inside one process it
 * cannot: better-sqlite3 waits for a lock synchronously (busy_timeout), which blocks the very event
 * loop the other instance needs to finish its open transaction (a 5 s stall, then SQLITE_BUSY). So
 * here the instances' write transactions take one shared mutex first (re-entrant for nested
 * transactions); reads are not serialised (WAL readers see the last commit, as in separate processes).
 */
export function sqliteReplicaStores(path: string, count = 2): ServiceStore[] {
  const mutex = new Mutex();
  const inside = new AsyncLocalStorage<true>();
  return Array.from({ length: count }, () => {
    const store = createSqliteServiceStore(path);
    const replica: ServiceStore = {
      ...store,
      transaction: (fn) =>
        inside.getStore()
          ? store.transaction(fn)
          : mutex.run(() => inside.run(true, () => store.transaction(fn))),
    };
    return replica;
  });
}
