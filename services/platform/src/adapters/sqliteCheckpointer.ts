import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sqliteBackgroundCheckpoint } from '../config.js';

/**
 * WAL checkpoints off the event loop. SQLite copies its write-ahead log back into the database file
 * (a checkpoint: page copies and fsyncs) inside the COMMIT that crosses `wal_autocheckpoint` pages, so a
 * busy service's event loop stalled for milliseconds in every few commits. Each process instead runs one
 * worker thread holding its own connection to every SQLite file the process has open; every
 * CHECKPOINT_EVERY_MS it runs a PASSIVE checkpoint on each (it never waits for, nor blocks, a reader or
 * a writer: it copies what it can). The connections of the process keep an automatic checkpoint at a
 * much higher mark (SAFETY_PAGES) for when the worker falls behind or cannot run.
 *
 * The worker is unref'd (it never keeps a process alive) and its connection to a file is closed when
 * the last connection of the process to that file closes. It opens a file only if it exists, so a file
 * deleted meanwhile is never created again.
 */

export const CHECKPOINT_EVERY_MS = 100;
/** wal_autocheckpoint of the connections while the worker checkpoints (pages of 4 KB: 200 MB). */
export const SAFETY_PAGES = 50_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const open = new Map();
parentPort.on('message', (m) => {
  let entry = open.get(m.path);
  if (m.op === 'add') {
    if (!entry) {
      try {
        entry = { db: new Database(m.path, { fileMustExist: true }), refs: 0 };
        entry.db.pragma('busy_timeout = 0');
      } catch {
        return;
      }
      open.set(m.path, entry);
    }
    entry.refs++;
  } else if (m.op === 'remove' && entry && --entry.refs <= 0) {
    open.delete(m.path);
    try { entry.db.close(); } catch {}
  }
});
setInterval(() => {
  for (const entry of open.values()) {
    try { entry.db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  }
}, workerData.everyMs);
`;

let worker: Worker | null = null;
let failed = false;

function theWorker(): Worker | null {
  if (worker || failed) return worker;
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, everyMs: CHECKPOINT_EVERY_MS } });
    worker.unref();
    worker.on('error', () => {
      // the connections' own (higher) automatic checkpoint takes over
      failed = true;
      worker = null;
    });
  } catch {
    failed = true;
    worker = null;
  }
  return worker;
}

/**
 * Has the worker checkpoint `path` until the returned function is called (at the connection's close).
 * Returns null when no worker can run (the caller keeps SQLite's own checkpoints at their usual mark).
 */
export function checkpointInBackground(path: string): (() => void) | null {
  if (!sqliteBackgroundCheckpoint()) return null;
  const w = theWorker();
  if (!w) return null;
  w.postMessage({ op: 'add', path });
  let done = false;
  return () => {
    if (done) return;
    done = true;
    worker?.postMessage({ op: 'remove', path });
  };
}
