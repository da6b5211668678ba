import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/tempDir.js';
import { openSqlite } from './sqliteFile.js';

const dirs: Array<ReturnType<typeof tempDir>> = [];
const fileIn = (name: string) => {
  const dir = tempDir('meridian-sqlite-');
  dirs.push(dir);
  return join(dir.path, name);
};
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

describe("openSqlite with journal 'delete' (the key vault)", () => {
  it('keeps a rollback journal, synced at every commit, in a file of mode 600, with no WAL beside it', () => {
    const path = fileIn('vault.sqlite');
    const db = openSqlite(path, { journal: 'delete' });
    db.exec('CREATE TABLE t (a)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.pragma('secure_delete', { simple: true })).toBe(1);
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-journal`)).toBe(false);
  });

  it('opens again at once after a close, every time (no background connection is left holding the file)', () => {
    const path = fileIn('vault.sqlite');
    for (let i = 0; i < 100; i++) {
      const db = openSqlite(path, { journal: 'delete' });
      db.exec('CREATE TABLE IF NOT EXISTS t (a)');
      db.prepare('INSERT INTO t VALUES (?)').run(i);
      db.close();
    }
    const db = openSqlite(path, { journal: 'delete' });
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 100 });
    db.close();
  });

  it('takes over a file an older connection left in WAL mode', () => {
    const path = fileIn('vault.sqlite');
    const wal = openSqlite(path);
    wal.exec('CREATE TABLE t (a)');
    wal.prepare('INSERT INTO t VALUES (1)').run();
    wal.close();
    const db = openSqlite(path, { journal: 'delete' });
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.prepare('SELECT a FROM t').all()).toEqual([{ a: 1 }]);
    db.close();
  });
});
