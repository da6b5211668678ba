/**
 * `make migrate FROM=standalone:data TO=cluster:data/cluster`: moves an install from one topology to another
 * through the stores' own port (docs/migration.md), never by copying files:
 *
 *   standalone:<dir>  `make start`: <dir>/<service>.sqlite, the in-process bus <dir>/bus.sqlite, the key vault
 *                     <dir>/identity-keys.sqlite, KYC documents <dir>/kyc, support attachments
 *                     <dir>/support-attachments, the generated secrets <dir>/secrets.json
 *   cluster:<dir>     `make cluster`: <dir>/<service>/<service>.sqlite, Kafka (KAFKA_BROKERS), the key vault
 *                     <dir>/identity/identity-keys.sqlite, <dir>/kyc/kyc, <dir>/support/support-attachments,
 *                     the secrets <dir>/secrets.json
 *   mongo:<url>       one database meridian_<service> per service, the key vault in identity's store, the
 *                     files in GridFS, Kafka (KAFKA_BROKERS); the secrets are the deployment's own (env)
 *
 * For every service, in this order, each step resumable (a process killed at any point and run again ends
 * the same) and idempotent (a second run changes nothing):
 *  1. the secrets the data depends on (JWT_SECRET keys the e-mail hashes and signs sessions, SECRETS_KEY seals
 *     TOTP secrets; the tokens and the first admin's login go with them) into the target's secrets file;
 *  2. the event log: the source's outbox (readAll, position order) appended to the target's store stream by
 *     stream with each event's id, version, time, metadata and recorded integration event, the checkpoint
 *     `migrate:events` moving in the same transaction as the append;
 *  3. what the log does not give: every read-model document (the store's inventory), the consumers' processed
 *     markers (a consumer on the target skips what it applied on the source) and the checkpoints (the outbox
 *     relay does not publish again), then `migrate:documents` marks the service done (never copied twice: a
 *     target that has started since keeps its own documents);
 * then identity's key vault (every user's personal-data key and the deleted users' tombstones), the KYC
 * documents and support attachments (still sealed with their owner's key: bytes as stored), and the
 * integration topics, read from the source's bus in a consumer group of the migration's own (its committed
 * offset is the topic's checkpoint) and published on the target's bus. A run killed between a publish and
 * its commit publishes that batch again: the copies have the same event ids and every consumer de-duplicates
 * on them (ports/eventBus.ts). Read models are not projected again: they are the documents the source served,
 * and `make verify-ledger` on the target recomputes every hash chain and balance from the migrated log.
 *
 * FROM is a standalone (its in-process bus holds the topics to carry); TO any of the three. The source must
 * be stopped (its files are checked in /proc), and the target must not have run on other data: a store
 * whose log is not a prefix of the source's, or secrets that differ beside data, stop the run.
 *
 *   tsx scripts/migrate.ts FROM TO [--page N]      (env KAFKA_BROKERS, KAFKA_USERNAME, KAFKA_PASSWORD)
 * Prints one line per step; the last is "migrate: done". Tested by tests/migrate.int.spec.ts.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { storeSynchronous } from '@meridian/platform/adapters/sqliteFile';
import { ALL_EVENT_CODECS } from '@meridian/platform/adapters/eventEnvelope';
import { kafkaSasl, TOPIC_OWNERS } from '@meridian/platform/busAccess';
import { createLogger } from '@meridian/platform/logger';
import { createPrivateFileStore, type PrivateFileStore } from '@meridian/platform/files/privateFiles';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { ProcessedMarker, ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { ConcurrencyError } from '@meridian/platform/eventSourcing/errors';
import { createSqlitePersonalDataKeys, PERSONAL_DATA_KEYS_FILE } from '@meridian/identity';
import { createDocumentStore } from '@meridian/kyc';
import { processesUsing } from './backup.js';
import { allDocuments, readSecrets, runsOf } from './migrateReads.js';

/** Every service with a store, in the order they are migrated. */
export const MIGRATED_SERVICES = [...TOPIC_OWNERS] as const;
export type MigratedService = (typeof MIGRATED_SERVICES)[number];

/** Identity's vault as documents of its store on MongoDB (services/identity personalDataKeys.store.ts). */
const KEY_DOCS = 'personal-data-keys';
const KEY_TOMBSTONES = 'personal-data-keys-destroyed';
/** Where support keeps attachments (services/support app/attachments.ts ATTACHMENT_STORE). */
const ATTACHMENTS = {
  folder: 'support-attachments',
  database: 'meridian_support',
  bucketName: 'supportAttachments',
};
/** The secrets the migrated data needs (services/standalone secrets.ts KeptSecrets). */
const DATA_SECRETS = ['JWT_SECRET', 'SECRETS_KEY'] as const;
const CARRIED_SECRETS = [
  ...DATA_SECRETS,
  'KYC_INTERNAL_TOKEN',
  'INTERNAL_SERVICE_TOKEN',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
] as const;

/** Checkpoints this tool keeps in the target's stores (never copied from a source). */
export const EVENTS_CHECKPOINT = 'migrate:events';
export const DOCUMENTS_CHECKPOINT = 'migrate:documents';

export type Topology = 'standalone' | 'cluster' | 'mongo';

export interface Endpoint {
  topology: Topology;
  /** The data folder, or the MongoDB URL. */
  location: string;
}

export function parseEndpoint(spec: string): Endpoint {
  const at = spec.indexOf(':');
  const topology = spec.slice(0, at);
  const location = spec.slice(at + 1);
  if (at < 0 || !location || !['standalone', 'cluster', 'mongo'].includes(topology))
    throw new Error(
      `${JSON.stringify(spec)}: expected standalone:<dataDir>, cluster:<dataDir> or mongo:<mongodb url>`,
    );
  return {
    topology: topology as Topology,
    location: topology === 'mongo' ? location : resolve(location),
  };
}

/** A user's personal-data key as the vault holds it. */
interface VaultContents {
  keys: Array<{ userId: string; key: Buffer }>;
  destroyed: string[];
}

/** One side of a migration: its stores, vault, files, bus and secrets, opened on demand. */
interface Side {
  endpoint: Endpoint;
  /** The folders whose SQLite files a running install holds open (checked in /proc). */
  folders: string[];
  secretsFile?: string;
  openStore(service: MigratedService, clock?: () => Date): Promise<ServiceStore>;
  readVault(): Promise<VaultContents>;
  writeVault(contents: VaultContents): Promise<void>;
  openFiles(kind: 'kyc' | 'support'): Promise<PrivateFileStore>;
  openBus(): Promise<EventBus>;
}

const sqliteVault = (path: string) => ({
  async readVault(): Promise<VaultContents> {
    if (!existsSync(path)) return { keys: [], destroyed: [] };
    const db = new Database(path, { readonly: true });
    try {
      return {
        keys: db
          .prepare<[], { user_id: string; key: Buffer }>(
            'SELECT user_id, key FROM personal_data_keys ORDER BY user_id',
          )
          .all()
          .map((r) => ({ userId: r.user_id, key: r.key })),
        destroyed: db
          .prepare<[], { user_id: string }>('SELECT user_id FROM destroyed_users ORDER BY user_id')
          .all()
          .map((r) => r.user_id),
      };
    } finally {
      db.close();
    }
  },
  async writeVault({ keys, destroyed }: VaultContents): Promise<void> {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // the vault's own adapter makes the file (its mode, journal and secure_delete settings) and its tables
    createSqlitePersonalDataKeys(path).close();
    const db = new Database(path);
    try {
      db.pragma('secure_delete = ON');
      const get = db.prepare<[string], { key: Buffer }>(
        'SELECT key FROM personal_data_keys WHERE user_id = ?',
      );
      const insert = db.prepare('INSERT OR IGNORE INTO personal_data_keys (user_id, key) VALUES (?, ?)');
      const tombstone = db.prepare('INSERT OR IGNORE INTO destroyed_users (user_id) VALUES (?)');
      db.transaction(() => {
        for (const { userId, key } of keys) {
          insert.run(userId, key);
          if (!get.get(userId)!.key.equals(key))
            throw new Error(`the target's key vault has another key for user ${userId}: it holds other data`);
        }
        for (const userId of destroyed) tombstone.run(userId);
      })();
    } finally {
      db.close();
    }
  },
});

const kafkaBus = async (): Promise<EventBus> => {
  const brokers = (process.env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (!brokers.length)
    throw new Error(
      'the target bus is Kafka: set KAFKA_BROKERS (the broker the target runs with: KAFKA_BROKERS=… make cluster)',
    );
  const { createKafkaEventBus } = await import('@meridian/platform/adapters/eventBus.kafka');
  return createKafkaEventBus({
    brokers,
    clientId: 'migrate',
    codecs: ALL_EVENT_CODECS,
    logger: createLogger('migrate', { level: 'warn' }),
    kafka: { sasl: kafkaSasl(process.env) },
  });
};

function sideOf(endpoint: Endpoint): Side {
  const { topology, location: dir } = endpoint;
  if (topology === 'mongo') {
    const url = endpoint.location;
    const openStore = async (service: MigratedService, clock?: () => Date) => {
      const { createMongoServiceStore } = await import('@meridian/platform/adapters/serviceStore.mongo');
      return createMongoServiceStore({ url, database: `meridian_${service}`, clock });
    };
    return {
      endpoint,
      folders: [],
      openStore,
      async readVault() {
        const store = await openStore('identity');
        try {
          const keys: VaultContents['keys'] = [];
          const destroyed: string[] = [];
          for await (const { doc } of allDocuments(store, KEY_DOCS))
            keys.push({
              userId: (doc as { userId: string }).userId,
              key: Buffer.from((doc as { key: string }).key, 'base64'),
            });
          for await (const { id } of allDocuments(store, KEY_TOMBSTONES)) destroyed.push(id);
          return { keys, destroyed };
        } finally {
          await store.close();
        }
      },
      async writeVault({ keys, destroyed }) {
        const store = await openStore('identity');
        try {
          await store.transaction(async (tx) => {
            for (const { userId, key } of keys) {
              const held = await tx.get<{ key: string }>(KEY_DOCS, userId);
              if (held && held.key !== key.toString('base64'))
                throw new Error(
                  `the target's key vault has another key for user ${userId}: it holds other data`,
                );
              if (!held) await tx.put(KEY_DOCS, userId, { userId, key: key.toString('base64') });
            }
            for (const userId of destroyed) await tx.put(KEY_TOMBSTONES, userId, { userId });
          });
        } finally {
          await store.close();
        }
      },
      openFiles: (kind) =>
        kind === 'kyc'
          ? createDocumentStore({ MONGO_URL: url, DATA_DIR: '' })
          : createPrivateFileStore({ MONGO_URL: url, DATA_DIR: '' }, ATTACHMENTS),
      openBus: kafkaBus,
    };
  }
  const cluster = topology === 'cluster';
  /** A service's DATA_DIR: the install's folder (standalone), or its own folder under it (cluster). */
  const dataDirOf = (service: MigratedService) => (cluster ? join(dir, service) : dir);
  return {
    endpoint,
    folders: cluster ? MIGRATED_SERVICES.map(dataDirOf) : [dir],
    secretsFile: join(dir, 'secrets.json'),
    async openStore(service, clock) {
      mkdirSync(dataDirOf(service), { recursive: true, mode: 0o700 });
      return createSqliteServiceStore(join(dataDirOf(service), `${service}.sqlite`), {
        synchronous: storeSynchronous(service),
        clock,
      });
    },
    ...sqliteVault(join(dataDirOf('identity'), PERSONAL_DATA_KEYS_FILE)),
    openFiles: (kind) =>
      kind === 'kyc'
        ? createDocumentStore({ DATA_DIR: dataDirOf('kyc') })
        : createPrivateFileStore({ DATA_DIR: dataDirOf('support') }, ATTACHMENTS),
    openBus: cluster
      ? kafkaBus
      : async () => {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          return createInProcEventBus({ path: join(dir, 'bus.sqlite') });
        },
  };
}

export interface MigrateOptions {
  from: string;
  to: string;
  /** Events per target transaction (default 500); small pages make progress visible (tests). */
  pageSize?: number;
  log?: (line: string) => void;
}

export interface MigrateReport {
  events: Record<string, number>;
  documents: Record<string, number>;
  keys: number;
  files: number;
  published: Record<string, number>;
}

/** Step 2: the log, page by page, the checkpoint in the append's transaction. Returns the events appended. */
async function migrateEvents(
  source: ServiceStore,
  target: ServiceStore,
  setClock: (at: string) => void,
  pageSize: number,
  service: string,
): Promise<number> {
  let appended = 0;
  for (let after = await target.getCheckpoint(EVENTS_CHECKPOINT); ;) {
    const page = await source.readAll(after, pageSize);
    if (!page.length) return appended;
    await target.transaction(async (tx) => {
      for (const run of runsOf(page)) {
        const first = run[0];
        setClock(first.occurredAt);
        let stored;
        try {
          stored = await tx.appendToStream(
            first.streamId,
            first.version - 1,
            run.map((e) => ({ id: e.id, type: e.type, data: e.data })),
            {
              correlationId: first.correlationId,
              ...(first.causationId !== null ? { causationId: first.causationId } : {}),
              ...(first.actor ? { actor: first.actor } : {}),
            },
            { integrations: run.map((e) => e.integration) },
          );
        } catch (err) {
          if (err instanceof ConcurrencyError)
            throw new Error(
              `${service}: the target's stream ${first.streamId} already has version ${first.version}: the target holds other data`,
            );
          throw err;
        }
        stored.events.forEach((e, i) => {
          if (e.position !== run[i].position)
            throw new Error(
              `${service}: event ${e.id} lands at position ${e.position} of the target, ${run[i].position} in the source: the target holds other data`,
            );
        });
      }
      await tx.setCheckpoint(EVENTS_CHECKPOINT, page[page.length - 1].position);
    });
    appended += page.length;
    after = page[page.length - 1].position;
  }
}

/** Step 3: documents, processed markers and checkpoints, once. Returns the documents copied (0 when done before). */
async function migrateState(
  source: ServiceStore,
  target: ServiceStore,
  skipCollections: readonly string[],
): Promise<number> {
  if ((await target.getCheckpoint(DOCUMENTS_CHECKPOINT)) > 0) return 0;
  const PAGE = 500;
  let copied = 0;
  for (const collection of await source.inventory!.collections()) {
    if (skipCollections.includes(collection)) continue;
    for (let after = ''; ;) {
      const docs = await source.inventory!.documents(collection, after, PAGE);
      if (!docs.length) break;
      await target.transaction(async (tx) => {
        for (const { id, doc } of docs) await tx.put(collection, id, doc);
      });
      copied += docs.length;
      after = docs[docs.length - 1].id;
    }
  }
  for (let after: ProcessedMarker | null = null; ;) {
    const markers = await source.inventory!.processed(after, PAGE);
    if (!markers.length) break;
    await target.transaction(async (tx) => {
      for (const m of markers) await tx.markProcessed(m.consumer, m.eventId);
    });
    after = markers[markers.length - 1];
  }
  const checkpoints = (await source.inventory!.checkpoints()).filter((c) => !c.name.startsWith('migrate:'));
  await target.transaction(async (tx) => {
    for (const c of checkpoints) await tx.setCheckpoint(c.name, c.position);
    await tx.setCheckpoint(DOCUMENTS_CHECKPOINT, 1);
  });
  return copied;
}

/** Step 1: the secrets the data depends on, into the target's secrets file (merged with what it keeps). */
async function migrateSecrets(from: Side, to: Side, log: (line: string) => void): Promise<void> {
  if (!from.secretsFile) {
    log(
      'secrets: the source keeps its secrets in its environment: give the target the same JWT_SECRET and SECRETS_KEY',
    );
    return;
  }
  const source = readSecrets(from.secretsFile);
  const missing = DATA_SECRETS.filter((k) => !source[k]);
  if (missing.length) throw new Error(`${from.secretsFile} has no ${missing.join(', ')}`);
  if (!to.secretsFile) {
    log(
      `secrets: set the target's ${CARRIED_SECRETS.join(', ')} from ${from.secretsFile} (its data needs JWT_SECRET and SECRETS_KEY)`,
    );
    return;
  }
  const target = readSecrets(to.secretsFile);
  const differs = DATA_SECRETS.filter((k) => target[k] && target[k] !== source[k]);
  if (differs.length) {
    // a target that generated its own secrets but has no data yet takes the source's
    for (const service of MIGRATED_SERVICES) {
      const store = await to.openStore(service);
      try {
        if ((await store.lastPosition()) > 0)
          throw new Error(
            `the target's ${differs.join(', ')} differ from the source's and its ${service} store has data: migrate into a folder no cluster has run on`,
          );
      } finally {
        await store.close();
      }
    }
  }
  const merged = {
    ...target,
    ...Object.fromEntries(CARRIED_SECRETS.filter((k) => source[k]).map((k) => [k, source[k]])),
  };
  if (JSON.stringify(merged) !== JSON.stringify(target)) {
    mkdirSync(dirname(to.secretsFile), { recursive: true, mode: 0o700 });
    writeFileSync(to.secretsFile, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
    chmodSync(to.secretsFile, 0o600);
  }
  log(`secrets: ${CARRIED_SECRETS.join(', ')} carried into ${to.secretsFile}`);
}

/** The files of every user with a key (every owner of a sealed file has one), those the target lacks. */
async function migrateFiles(from: Side, to: Side, userIds: readonly string[]): Promise<number> {
  let copied = 0;
  for (const kind of ['kyc', 'support'] as const) {
    const source = await from.openFiles(kind);
    const target = await to.openFiles(kind);
    try {
      for (const userId of userIds) {
        const have = new Set(await target.list(userId));
        for (const id of await source.list(userId)) {
          if (have.has(id)) continue;
          const file = await source.open(userId, id);
          if (!file) continue;
          await target.save(file.meta, file.stream);
          copied++;
        }
      }
    } finally {
      await source.close();
      await target.close();
    }
  }
  return copied;
}

/** The integration topics: the source's in-process log through a group of the migration's own. */
async function migrateTopics(
  from: Side,
  to: Side,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  // a failed publish is never dead-lettered (that would commit past the event): it stops the run instead
  let failure: unknown;
  const source = createInProcEventBus({
    path: join(from.endpoint.location, 'bus.sqlite'),
    pollIntervalMs: 0,
    maxAttempts: Number.MAX_SAFE_INTEGER,
  });
  const target = await to.openBus();
  // one group per target: migrating the same source to another target starts from the beginning again
  const group = `migrate-${createHash('sha256').update(`${to.endpoint.topology}:${to.endpoint.location}`).digest('hex').slice(0, 12)}`;
  const published: Record<string, number> = {};
  const publish = async (topic: string, events: StoredEvent[]) => {
    try {
      await target.publish(topic, events);
    } catch (err) {
      failure ??= err;
      throw new Error(`publishing on the target's ${topic} failed`);
    }
    published[topic] += events.length;
  };
  try {
    for (const service of MIGRATED_SERVICES) {
      const topic = topicOf(service);
      const size = source.size(topic);
      published[topic] = 0;
      if (source.committed(group, topic) >= size) continue;
      const subscription = await source.subscribe({
        topic,
        group,
        fromBeginning: true,
        handler: (event) => publish(topic, [event]),
        handleBatch: (events) => publish(topic, events),
      });
      try {
        while (source.committed(group, topic) < size) {
          if (failure) throw failure;
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await subscription.stop();
      }
      log(`${topic}: ${published[topic]} events published (${size} on the topic)`);
    }
    return published;
  } finally {
    await target.close();
    await source.close();
  }
}

export async function migrate(options: MigrateOptions): Promise<MigrateReport> {
  const log = options.log ?? ((line: string) => console.log(`migrate: ${line}`));
  const pageSize = options.pageSize ?? 500;
  const from = sideOf(parseEndpoint(options.from));
  const to = sideOf(parseEndpoint(options.to));
  if (from.endpoint.location === to.endpoint.location) throw new Error('FROM and TO are the same place');
  const sourceTopology: Topology = from.endpoint.topology;
  // the integration topics are read from a standalone's in-process bus; a Kafka source is not read yet
  if (from.endpoint.topology !== 'standalone')
    throw new Error(
      `FROM must be a standalone (its bus holds the topics to carry): from ${from.endpoint.topology} is not supported yet`,
    );
  if (!existsSync(join(from.endpoint.location, 'ledger.sqlite')))
    throw new Error(`no standalone data at ${from.endpoint.location} (no ledger.sqlite)`);
  for (const folder of [...from.folders, ...to.folders]) {
    // another process: a caller in this one (a test) has closed what it wrote before calling
    const users = processesUsing(folder).filter((u) => u.pid !== process.pid);
    if (users.length)
      throw new Error(
        `${folder} is in use by pid ${users.map((u) => u.pid).join(', ')} (${users[0].command}): stop it first`,
      );
  }
  const report: MigrateReport = { events: {}, documents: {}, keys: 0, files: 0, published: {} };

  await migrateSecrets(from, to, log);

  // the vault's keys on MongoDB are documents of identity's store; elsewhere a file of its own
  const vaultCollections =
    sourceTopology === 'mongo' && to.endpoint.topology !== 'mongo' ? [KEY_DOCS, KEY_TOMBSTONES] : [];
  for (const service of MIGRATED_SERVICES) {
    let at = new Date(0);
    const source = await from.openStore(service);
    const target = await to.openStore(service, () => at);
    try {
      if (!source.inventory || !target.inventory) throw new Error(`${service}: the store has no inventory`);
      report.events[service] = await migrateEvents(
        source,
        target,
        (occurredAt) => (at = new Date(occurredAt)),
        pageSize,
        service,
      );
      log(
        `${service}: ${report.events[service]} events appended (log at position ${await target.lastPosition()})`,
      );
      report.documents[service] = await migrateState(
        source,
        target,
        service === 'identity' ? vaultCollections : [],
      );
      log(`${service}: ${report.documents[service]} documents, the processed markers and checkpoints copied`);
    } finally {
      await source.close();
      await target.close();
    }
  }

  const vault = await from.readVault();
  await to.writeVault(vault);
  report.keys = vault.keys.length;
  log(`key vault: ${vault.keys.length} personal-data keys, ${vault.destroyed.length} tombstones`);

  report.files = await migrateFiles(
    from,
    to,
    vault.keys.map((k) => k.userId),
  );
  log(`files: ${report.files} KYC documents and support attachments copied`);

  report.published = await migrateTopics(from, to, log);
  log('done');
  return report;
}

async function main(args: readonly string[]): Promise<number> {
  const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const at = args.indexOf('--page');
  const [from, to] = positional;
  if (!from || !to) {
    console.error('usage: make migrate FROM=standalone:<dataDir> TO=cluster:<dataDir> (or mongo:<url>)');
    return 2;
  }
  try {
    await migrate({ from, to, pageSize: at >= 0 ? Number(args[at + 1]) : undefined });
    return 0;
  } catch (err) {
    console.error(`make migrate: ${(err as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));
