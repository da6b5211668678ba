/**
 * Identity's key vault on SQLite: one random 32-byte AES key per user (crypto-shredding, @meridian/platform/
 * personalData), in a file of its own (`DATA_DIR/identity-keys.sqlite`, never in a backup: scripts/backup.ts).
 *
 * Destroying a key must leave no copy in the file: `secure_delete` overwrites freed content with zeros, the
 * row is overwritten with zeros before it is deleted, and the rollback journal (no WAL, whose frames would
 * keep old pages until a checkpoint) is removed after every commit.
 *
 * A destroyed user's id stays as a tombstone (`destroyed_users`, the id only): `findOrCreate` refuses it
 * (UserKeyDestroyedError), so no writer can ever make a new key for a deleted user.
 */
import { randomBytes } from 'node:crypto';
import { openSqlite } from '@meridian/platform/adapters/sqliteFile';
import { UserKeyDestroyedError, type PersonalDataKeys } from '@meridian/platform/personalData';

export interface SqlitePersonalDataKeys extends PersonalDataKeys {
  close(): void;
}

export function createSqlitePersonalDataKeys(path: string): SqlitePersonalDataKeys {
  // the keys: readable by this user only; a rollback journal removed after each commit, not a WAL whose
  // frames keep a page's old content (openSqlite sets secure_delete: a freed page is zeroed)
  const db = openSqlite(path, { journal: 'delete' });
  db.exec(`CREATE TABLE IF NOT EXISTS personal_data_keys (
    user_id TEXT PRIMARY KEY,
    key     BLOB NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS destroyed_users (
    user_id TEXT PRIMARY KEY
  ) WITHOUT ROWID`);
  const get = db.prepare<[string], { key: Buffer }>('SELECT key FROM personal_data_keys WHERE user_id = ?');
  const insert = db.prepare('INSERT OR IGNORE INTO personal_data_keys (user_id, key) VALUES (?, ?)');
  const zero = db.prepare('UPDATE personal_data_keys SET key = zeroblob(length(key)) WHERE user_id = ?');
  const remove = db.prepare('DELETE FROM personal_data_keys WHERE user_id = ?');
  const tombstone = db.prepare('INSERT OR IGNORE INTO destroyed_users (user_id) VALUES (?)');
  const isDestroyed = db.prepare<[string], { user_id: string }>(
    'SELECT user_id FROM destroyed_users WHERE user_id = ?',
  );
  const destroy = db.transaction((userId: string) => {
    tombstone.run(userId);
    zero.run(userId);
    remove.run(userId);
  });
  /** Each user's key, made where missing; a destroyed user's id gives its refusal. One transaction. */
  const findOrCreateAll = db.transaction((userIds: readonly string[]): Array<Buffer | Error> =>
    userIds.map((userId) => {
      const existing = get.get(userId);
      if (existing) return existing.key;
      if (isDestroyed.get(userId)) return new UserKeyDestroyedError(userId);
      insert.run(userId, randomBytes(32));
      return get.get(userId)!.key;
    }),
  );
  /**
   * Keys to make, grouped: a new key is a transaction synced to disk (synchronous FULL, a rollback journal
   * created and removed), a large part of a sign-up's CPU; the keys asked for in one event-loop turn share
   * it. Each caller is answered after the COMMIT, so no value is ever sealed with a key not on disk.
   */
  let waiting: Array<{ userId: string; resolve(key: Buffer): void; reject(err: unknown): void }> = [];
  const makeWaiting = () => {
    const group = waiting;
    waiting = [];
    let results: Array<Buffer | Error>;
    try {
      // BEGIN IMMEDIATE (so `destroy` too): the replicas of identity share this file, and a transaction
      // that began reading fails SQLITE_BUSY at once, without waiting, when it must write while another
      // process holds the write lock; one that takes the write lock first waits for it (busy_timeout)
      results = findOrCreateAll.immediate(group.map((w) => w.userId));
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    group.forEach((w, i) => {
      const r = results[i]!;
      if (r instanceof Error) w.reject(r);
      else w.resolve(r);
    });
  };
  return {
    async find(userId) {
      return get.get(userId)?.key ?? null;
    },
    findOrCreate(userId) {
      const existing = get.get(userId);
      if (existing) return Promise.resolve(existing.key);
      return new Promise<Buffer>((resolve, reject) => {
        waiting.push({ userId, resolve, reject });
        if (waiting.length === 1) setImmediate(makeWaiting);
      });
    },
    async destroy(userId) {
      destroy.immediate(userId);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
