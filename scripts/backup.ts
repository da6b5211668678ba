/**
 * `make backup` / `make restore`: backups of the embedded store, the data the standalone target
 * (`make start`) keeps under DATA_DIR (default ./data): one SQLite file per service
 * (identity, notification, kyc, ledger, investment, withdrawal), the in-process bus (bus.sqlite) and the
 * KYC documents under DATA_DIR/kyc.
 *
 * Backup, online and consistent across services: writers are held for a moment (a write lock,
 * BEGIN IMMEDIATE, on every database at once, taken in name order with a short busy timeout and retried
 * whole, so it never deadlocks against a service's own transaction), during which each database gets
 * a read snapshot pinned (WAL readers do not block writers) and every KYC document is hard-linked into
 * the backup (files are immutable once written: the store writes a new file and renames it into place).
 * Then the locks go, the services write on, and each snapshot is serialized into its own self-contained
 * file (rollback journal, integrity-checked). So every database is taken at the same instant, the state
 * a crash at that instant would have left, which the services recover from (outboxes, idempotent
 * consumers). Output: <BACKUP_DIR>/meridian-<UTC time>/ with manifest.json (every file, its size and
 * SHA-256), written under a .partial name and renamed when complete.
 *
 * Restore refuses while a process has one of DATA_DIR's databases open (the standalone, or a test
 * composition; found in /proc), checks every file against the manifest, moves what it replaces
 * (databases with their -wal/-shm, kyc/) aside into DATA_DIR/.before-restore-<time>/, and copies the
 * backup in.
 *
 * Identity's key vault (identity-keys.sqlite: the per-user keys personal data is sealed with) is never in a
 * backup, and a restore keeps the live one: a user deleted after a backup was taken stays unreadable in it
 * (crypto-shredding). `backup-keys --out FILE` copies the vault on its own, for whoever must keep one.
 *
 *   tsx scripts/backup.ts backup  [--data DIR] [--out DIR]       (env DATA_DIR, BACKUP_DIR)
 *   tsx scripts/backup.ts restore [BACKUP] [--data DIR]          (default: the newest backup in BACKUP_DIR)
 *   tsx scripts/backup.ts backup-keys --out FILE [--data DIR]    (the key vault alone; keep it apart)
 * Tested by tests/backup.int.spec.ts.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export const FORMAT = 'meridian-backup/1';
const MANIFEST = 'manifest.json';
const DOCUMENTS = 'kyc';

export interface ManifestEntry {
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  createdAt: string;
  source: string;
  /** How long writers were held (all write locks taken to all released), ms. */
  writersHeldMs: number;
  databases: ManifestEntry[];
  files: ManifestEntry[];
}

const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const entryOf = (dir: string, path: string): ManifestEntry => ({
  path,
  bytes: statSync(join(dir, path)).size,
  sha256: sha256Of(join(dir, path)),
});

/**
 * Identity's key vault (services/identity personalDataKeys.sqlite.ts, PERSONAL_DATA_KEYS_FILE): never backed up
 * with the data, never replaced by a restore.
 */
export const KEY_VAULT = 'identity-keys.sqlite';
const isKeyVault = (file: string) => file === KEY_VAULT || file.startsWith(`${KEY_VAULT}-`);

/**
 * The databases of a data dir: every *.sqlite directly in it (the cluster's data/cluster is not the standalone's),
 * but the key vault.
 */
export function databasesIn(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir)
    .filter((f) => f.endsWith('.sqlite') && !isKeyVault(f) && statSync(join(dataDir, f)).isFile())
    .sort();
}

/** `backup-keys`: the key vault alone (SQLite's online backup), into `outFile`, mode 600. */
export async function backupKeyVault(options: { dataDir: string; outFile: string }): Promise<void> {
  const vault = join(options.dataDir, KEY_VAULT);
  if (!existsSync(vault)) throw new Error(`${vault} does not exist: no key vault to back up`);
  if (existsSync(options.outFile)) throw new Error(`${options.outFile} exists: refusing to overwrite it`);
  mkdirSync(dirname(options.outFile), { recursive: true, mode: 0o700 });
  const db = new Database(vault, { readonly: true, fileMustExist: true });
  try {
    await db.backup(options.outFile);
  } finally {
    db.close();
  }
  chmodSync(options.outFile, 0o600);
}

/**
 * The secrets the standalone generated at its first start (JWT secret, the key that seals tokens in events, the
 * first admin's password): a restore without them could not open what the databases hold sealed.
 */
const SECRETS = 'secrets.json';

/**
 * Every finished KYC document file (bytes and metadata; not an upload in progress), and the generated secrets,
 * relative to the data dir.
 */
function documentsIn(dataDir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = join(dataDir, rel);
    if (!existsSync(abs)) return;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const p = join(rel, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !e.name.startsWith('.')) out.push(p);
    }
  };
  walk(DOCUMENTS);
  if (existsSync(join(dataDir, SECRETS))) out.push(SECRETS);
  return out.sort();
}

/** Link (same filesystem) or copy a file, creating its folder. */
function linkOrCopy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  try {
    linkSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyFileSync(from, to);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes BEGIN IMMEDIATE on every connection, in order; on a busy one releases all and retries. */
async function lockAll(locks: Database.Database[], attempts = 50): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const held: Database.Database[] = [];
    try {
      for (const db of locks) {
        db.exec('BEGIN IMMEDIATE');
        held.push(db);
      }
      return;
    } catch (err) {
      for (const db of held) db.exec('ROLLBACK');
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= attempts) throw err;
      await sleep(20 + Math.random() * 80);
    }
  }
}

function utcStamp(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

export interface BackupOptions {
  dataDir: string;
  /** The folder that receives meridian-<time>/ (created). */
  outDir: string;
  now?: Date;
  /** Busy timeout of each lock attempt, ms (below the services' own 5 s, so they never fail waiting on us). */
  lockTimeoutMs?: number;
}

/** An online, consistent backup of every database and document of dataDir; resolves with its folder and manifest. */
export async function backupStore(options: BackupOptions): Promise<{ dir: string; manifest: Manifest }> {
  const dataDir = resolve(options.dataDir);
  const names = databasesIn(dataDir);
  if (names.length === 0) throw new Error(`${dataDir} holds no database (*.sqlite): nothing to back up`);
  const now = options.now ?? new Date();
  mkdirSync(options.outDir, { recursive: true });
  let dir = join(resolve(options.outDir), `meridian-${utcStamp(now)}`);
  for (let n = 2; existsSync(dir) || existsSync(`${dir}.partial`); n++)
    dir = join(resolve(options.outDir), `meridian-${utcStamp(now)}-${n}`);
  const partial = `${dir}.partial`;
  mkdirSync(partial, { mode: 0o700 });

  const open = (name: string) => {
    const db = new Database(join(dataDir, name), { fileMustExist: true });
    db.pragma(`busy_timeout = ${options.lockTimeoutMs ?? 1000}`);
    return db;
  };
  const locks = names.map(open);
  const readers = names.map(open);
  try {
    const wal = readers.map((db) => db.pragma('journal_mode', { simple: true }) === 'wal');
    const images = new Map<string, Buffer>();
    const started = Date.now();
    await lockAll(locks);
    let writersHeldMs: number;
    try {
      readers.forEach((db, i) => {
        // a WAL reader's snapshot stays at this instant after the locks go; a rollback-journal database
        // would block its writers for as long as a reader reads, so it is copied now, under the lock
        db.exec('BEGIN');
        db.prepare('SELECT count(*) FROM sqlite_master').get();
        if (!wal[i]) images.set(names[i]!, locks[i]!.serialize());
      });
      for (const doc of documentsIn(dataDir)) linkOrCopy(join(dataDir, doc), join(partial, doc));
    } finally {
      for (const db of locks) if (db.inTransaction) db.exec('ROLLBACK');
      writersHeldMs = Date.now() - started;
    }
    readers.forEach((db, i) => {
      if (!images.has(names[i]!)) images.set(names[i]!, db.serialize());
      db.exec('COMMIT');
    });

    for (const [name, image] of images) {
      const file = join(partial, name);
      writeFileSync(file, image, { mode: 0o600 });
      const copy = new Database(file);
      try {
        copy.pragma('journal_mode = DELETE'); // self-contained: no -wal beside it
        const check = copy.pragma('integrity_check', { simple: true });
        if (check !== 'ok') throw new Error(`${name}: the copy fails its integrity check: ${check}`);
      } finally {
        copy.close();
      }
    }
    // the documents were linked while writers were held: give the backup its own copies
    const files = documentsIn(partial);
    for (const f of files) {
      const p = join(partial, f);
      copyFileSync(p, `${p}.copy`);
      renameSync(`${p}.copy`, p);
    }

    const manifest: Manifest = {
      format: FORMAT,
      createdAt: now.toISOString(),
      source: dataDir,
      writersHeldMs,
      databases: names.map((n) => entryOf(partial, n)),
      files: files.map((f) => entryOf(partial, f)),
    };
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    renameSync(partial, dir);
    return { dir, manifest };
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  } finally {
    for (const db of [...locks, ...readers]) db.close();
  }
}

/** Processes (pid and command) holding one of dataDir's databases open, from /proc (Linux). */
export function processesUsing(dataDir: string): Array<{ pid: number; command: string }> {
  if (!existsSync('/proc/self/fd'))
    throw new Error('cannot tell whether the standalone is running (no /proc): stop it first');
  if (!existsSync(dataDir)) return [];
  const dir = realpathSync(dataDir);
  const out: Array<{ pid: number; command: string }> = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    const holds = fds.some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return dirname(target) === dir && /\.sqlite(-wal|-shm)?$/.test(target);
      } catch {
        return false;
      }
    });
    if (holds) {
      let command = '?';
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      } catch {}
      out.push({ pid: Number(pid), command });
    }
  }
  return out;
}

/** The manifest of a backup folder, every file checked against it. */
export function verifyBackup(backupDir: string): Manifest {
  const file = join(backupDir, MANIFEST);
  if (!existsSync(file)) throw new Error(`${backupDir} is not a backup (no ${MANIFEST})`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  if (manifest.format !== FORMAT) throw new Error(`${backupDir}: unknown backup format ${manifest.format}`);
  for (const e of [...manifest.databases, ...manifest.files]) {
    if (e.path.split(/[\\/]/).includes('..')) throw new Error(`${backupDir}: unsafe path ${e.path}`);
    const p = join(backupDir, e.path);
    if (!existsSync(p)) throw new Error(`${backupDir}: ${e.path} is missing`);
    if (sha256Of(p) !== e.sha256) throw new Error(`${backupDir}: ${e.path} does not match its SHA-256`);
  }
  return manifest;
}

/** The newest complete backup in a folder. */
export function latestBackup(outDir: string): string {
  const found = existsSync(outDir)
    ? readdirSync(outDir)
        .filter((d) => /^meridian-[\dTZ-]+$/.test(d) && existsSync(join(outDir, d, MANIFEST)))
        .sort()
    : [];
  if (found.length === 0) throw new Error(`no backup in ${outDir}`);
  return join(outDir, found[found.length - 1]!);
}

export class StoreInUseError extends Error {}

/** Puts a backup back into dataDir (refused while a process has its databases open). */
export function restoreStore(options: { backupDir: string; dataDir: string; now?: Date }): {
  manifest: Manifest;
  movedAside?: string;
} {
  const dataDir = resolve(options.dataDir);
  const users = processesUsing(dataDir);
  if (users.length > 0)
    throw new StoreInUseError(
      `refusing to restore: ${dataDir} is in use by ${users.map((u) => `pid ${u.pid} (${u.command})`).join(', ')}; stop the standalone first`,
    );
  const manifest = verifyBackup(options.backupDir);
  mkdirSync(dataDir, { recursive: true });

  const replaced = [
    // the live key vault stays: what was deleted since the backup stays unreadable
    ...readdirSync(dataDir).filter((f) => /\.sqlite(-wal|-shm|-journal)?$/.test(f) && !isKeyVault(f)),
    ...(existsSync(join(dataDir, DOCUMENTS)) ? [DOCUMENTS] : []),
    ...(existsSync(join(dataDir, SECRETS)) && manifest.files.some((f) => f.path === SECRETS)
      ? [SECRETS]
      : []),
  ];
  let movedAside: string | undefined;
  if (replaced.length > 0) {
    movedAside = join(dataDir, `.before-restore-${utcStamp(options.now ?? new Date())}`);
    mkdirSync(movedAside, { recursive: true, mode: 0o700 });
    for (const f of replaced) renameSync(join(dataDir, f), join(movedAside, f));
  }
  for (const e of [...manifest.databases, ...manifest.files]) {
    const to = join(dataDir, e.path);
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    copyFileSync(join(options.backupDir, e.path), `${to}.restoring`);
    renameSync(`${to}.restoring`, to);
  }
  return { manifest, movedAside };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const [, value] = args.splice(i, 2);
    return value;
  };
  const dataDir = resolve(flag('--data') ?? process.env.DATA_DIR ?? 'data');
  const flagged = { out: args.includes('--out') ? args[args.indexOf('--out') + 1] : undefined };
  const outDir = resolve(flag('--out') ?? process.env.BACKUP_DIR ?? 'backups');
  const [command, target] = args;
  const shown = (p: string) =>
    relative(process.cwd(), p).startsWith('..') ? p : relative(process.cwd(), p) || '.';
  if (command === 'backup') {
    const { dir, manifest } = await backupStore({ dataDir, outDir });
    const bytes = [...manifest.databases, ...manifest.files].reduce((n, e) => n + e.bytes, 0);
    console.log(
      `Backed up ${manifest.databases.length} databases (${manifest.databases.map((d) => basename(d.path, '.sqlite')).join(', ')}) ` +
        `and ${manifest.files.length} KYC document files from ${shown(dataDir)} into ${shown(dir)} ` +
        `(${(bytes / 1024).toFixed(0)} KiB; writers held ${manifest.writersHeldMs} ms).`,
    );
  } else if (command === 'restore') {
    const backupDir = resolve(target ?? latestBackup(outDir));
    const { manifest, movedAside } = restoreStore({ backupDir, dataDir });
    console.log(
      `Restored ${shown(backupDir)} (taken ${manifest.createdAt}) into ${shown(dataDir)}: ` +
        `${manifest.databases.length} databases, ${manifest.files.length} KYC document files.` +
        (movedAside ? `\nWhat was there is kept in ${shown(movedAside)}${sep}` : ''),
    );
  } else if (command === 'backup-keys') {
    const outFile = flagged.out;
    if (!outFile) {
      console.error('usage: tsx scripts/backup.ts backup-keys --out FILE [--data DIR]');
      process.exit(2);
    }
    await backupKeyVault({ dataDir, outFile: resolve(outFile) });
    console.log(
      `Copied the key vault of ${shown(dataDir)} into ${outFile} (mode 600). Keep it apart from the data backups: ` +
        'with it, a backup taken before a user was deleted can be read for that user again.',
    );
  } else {
    console.error(
      'usage: tsx scripts/backup.ts backup [--data DIR] [--out DIR] | restore [BACKUP] [--data DIR] | backup-keys --out FILE [--data DIR]',
    );
    process.exit(2);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main().catch((err: Error) => {
    console.error(err instanceof StoreInUseError ? err.message : `backup: ${err.message}`);
    process.exit(1);
  });
