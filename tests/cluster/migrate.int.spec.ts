/**
 * `make migrate` (scripts/migrate.ts) from a standalone's DATA_DIR to the cluster's: a standalone seeded
 * through its own services (users registered and verified, deposits confirmed and one pending, an investment
 * approved and matured, a pending withdrawal, KYC documents approved and pending, statements), migrated into a
 * fresh cluster folder and a Kafka broker by a run SIGKILLed midway and run again; every store, the key
 * vault, the files and the topics then hold what the source held; a second run changes nothing; and `make
 * cluster` started on the result serves the same users, balances, documents, statements and queues, with an
 * intact ledger.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createKafkaEventBus } from '@meridian/platform/adapters/eventBus.kafka';
import { createFsFileStore } from '@meridian/platform/files/privateFiles.fs';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { waitFor } from '@meridian/platform/testing/waitFor';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminBrowser,
  returningBrowser,
  startTestComposition,
  verifiedUser,
  type Account,
} from '@meridian/gateway/testing/composition';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';
import { KYC_BACK, KYC_FRONT, kycDocumentsOf, submitKyc } from '@meridian/gateway/testing/kyc';
import {
  FAST_PLANS,
  balancesOf,
  confirmDeposit,
  fundedInvestor,
  requestDeposit,
  waitForBalances,
  type Balances,
} from '@meridian/gateway/testing/money';
import { freePort } from '@meridian/platform/util/freePort';
import { startKafkaBroker, type KafkaBroker } from '../../scripts/kafka/broker.js';
import { startCluster, type Cluster } from '../../scripts/cluster/cluster.js';
import { main as verifyLedger } from '../../scripts/verify-ledger.js';
import { EVENTS_CHECKPOINT, MIGRATED_SERVICES } from '../../scripts/migrate.js';
import { processesUsing } from '../../scripts/backup.js';
import { clusterSkipReason } from './testCluster.js';

const skipReason = clusterSkipReason();
if (skipReason) console.log(`[migrate] skipped: ${skipReason}`);

const ROOT = join(import.meta.dirname, '../..');
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const SLOW = { timeoutMs: 60_000, intervalMs: 100 };
const GRPC_BASE = 30550;

const work = mkdtempSync(join(tmpdir(), 'meridian-migrate-'));
const source = join(work, 'standalone');
const target = join(work, 'cluster');

/** Everything a topology keeps for one service, read through the store's port, in a comparable form. */
async function storeContents(path: string) {
  const store = createSqliteServiceStore(path);
  try {
    const events = [];
    for (let after = 0; ;) {
      const page = await store.readAll(after, 1000);
      if (!page.length) break;
      events.push(...page);
      after = page[page.length - 1].position;
    }
    const documents: Record<string, unknown[]> = {};
    for (const collection of await store.inventory!.collections())
      documents[collection] = await store.inventory!.documents(collection, '', 1_000_000);
    const processed = await store.inventory!.processed(null, 1_000_000);
    const checkpoints = (await store.inventory!.checkpoints()).filter((c) => !c.name.startsWith('migrate:'));
    return { events, documents, processed, checkpoints };
  } finally {
    await store.close();
  }
}

/** A topology's data: every store, the key vault and the stored (sealed) files. */
async function contents(dir: string, layout: 'standalone' | 'cluster') {
  const dataDirOf = (service: string) => (layout === 'cluster' ? join(dir, service) : dir);
  const stores: Record<string, Awaited<ReturnType<typeof storeContents>>> = {};
  for (const service of MIGRATED_SERVICES)
    stores[service] = await storeContents(join(dataDirOf(service), `${service}.sqlite`));
  const vaultDb = new Database(join(dataDirOf('identity'), 'identity-keys.sqlite'), { readonly: true });
  const vault = {
    keys: vaultDb
      .prepare<[], { user_id: string; key: Buffer }>(
        'SELECT user_id, key FROM personal_data_keys ORDER BY user_id',
      )
      .all()
      .map((r) => `${r.user_id}:${r.key.toString('base64')}`),
    destroyed: vaultDb.prepare('SELECT user_id FROM destroyed_users ORDER BY user_id').all(),
  };
  vaultDb.close();
  const files: Record<string, string> = {};
  for (const [kind, root] of [
    ['kyc', join(dataDirOf('kyc'), 'kyc')],
    ['support', join(dataDirOf('support'), 'support-attachments')],
  ] as const) {
    const store = createFsFileStore({ root });
    for (const key of vault.keys) {
      const userId = key.slice(0, key.indexOf(':'));
      for (const id of await store.list(userId)) {
        const file = (await store.open(userId, id))!;
        const chunks: Buffer[] = [];
        for await (const chunk of file.stream) chunks.push(Buffer.from(chunk as Buffer));
        files[`${kind}/${userId}/${id}`] =
          `${JSON.stringify(file.meta)}:${Buffer.concat(chunks).toString('base64')}`;
      }
    }
  }
  return { stores, vault, files };
}

/** Runs the CLI; resolves with its exit code and output. `onStart` sees the child (to kill it). */
function runMigrate(
  brokers: string[],
  args: string[] = [],
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  // node itself (not the tsx wrapper, whose SIGKILL would leave the script running in its child)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/migrate.ts', `standalone:${source}`, `cluster:${target}`, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, KAFKA_BROKERS: brokers.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  onStart?.(child);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, out })));
}

/** The position up to which the migration has copied the target ledger's log (0 before it starts). */
function ledgerMigratedTo(): number {
  const path = join(target, 'ledger', 'ledger.sqlite');
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const row = db
        .prepare<[string], { position: number }>('SELECT position FROM checkpoints WHERE name = ?')
        .get(EVENTS_CHECKPOINT);
      return row?.position ?? 0;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created yet
  }
}

/** What a user and the admin see, to compare before and after. */
interface Seen {
  account: Account;
  balances: Balances;
  kycStatus: string;
  statement: unknown;
  documents: string[];
}

/** The KYC document bytes, base64, for comparing before and after. */
const documentsOf = async (admin: HttpSession, userId: string) =>
  (await kycDocumentsOf(admin, userId)).map((b) => b.toString('base64'));

/** The period every statement here covers: fixed once the seed is done (a default period ends "now"). */
let period = '';

/** The user's statement file of `period` (its generation time aside): the postings and their hash chain. */
const statementOf = async (browser: HttpSession) => {
  const res = await browser.get(`/api/users/statement?format=json&${period}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { generatedAt, ...statement } = res.body as Record<string, unknown>;
  expect(typeof generatedAt).toBe('string');
  return statement;
};

/** The admin's queues, by item id (the items' order and content). */
async function queuesOf(admin: HttpSession) {
  const out: Record<string, unknown> = {};
  for (const path of [
    '/api/payments/pending-deposit',
    '/api/invest/adminPendingInvestment',
    '/api/withDraw/pending',
  ]) {
    const res = await admin.get(path);
    expect(res.status, path).toBe(200);
    out[path] = res.body;
  }
  return out;
}

describe.skipIf(skipReason)('make migrate: a standalone moved to the cluster topology', () => {
  let broker: KafkaBroker | undefined;
  let cluster: Cluster | undefined;
  let adminBefore: HttpSession;
  const seen: Seen[] = [];
  let queuesBefore: Record<string, unknown>;
  let migrated: Awaited<ReturnType<typeof contents>>;

  beforeAll(async () => {
    broker = await startKafkaBroker({ dir: join(work, 'kafka') });
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await broker?.stop();
    rmSync(work, { recursive: true, force: true });
  }, 180_000);

  it(
    'seeds a standalone through its services: users, deposits, an investment, a withdrawal, KYC, statements',
    { timeout: 240_000 },
    async () => {
      const t = await startTestComposition({ dataDir: source, env: { PLANS_JSON: FAST_PLANS } });
      try {
        const admin = await adminBrowser(t.url);
        adminBefore = admin;
        // an investor whose KYC is approved, whose investment was approved and matured, with a pending withdrawal
        const investor = await verifiedUser(t.url);
        await submitKyc(investor, SLOW);
        expect((await admin.patch(`/api/users/kyc/approve/${investor.id}`)).status).toBe(200);
        await confirmDeposit(admin, await requestDeposit(investor.browser, 600));
        await waitForBalances(investor.browser, { balance: 600 });
        const started = await investor.browser.post('/api/invest/start-invest', {
          amount: '200',
          planName: 'Starter',
        });
        expect(started.status, JSON.stringify(started.body)).toBe(201);
        expect((await admin.put(`/api/invest/${started.body.investment._id}/approve`)).status).toBe(200);
        await waitForBalances(investor.browser, {
          balance: 400,
          investmentBalance: 0,
          totalMaturityAmount: 224,
        });
        const w = await investor.browser.post('/api/withDraw/create', {
          amount: '60',
          walletAddress: WALLET,
        });
        expect(w.status, JSON.stringify(w.body)).toBe(201);

        // one with KYC documents waiting, a confirmed and a pending deposit; one with a held investment
        const pendingKyc = await verifiedUser(t.url);
        await submitKyc(pendingKyc, SLOW);
        await confirmDeposit(admin, await requestDeposit(pendingKyc.browser, 75.5));
        await waitForBalances(pendingKyc.browser, { balance: 75.5 });
        await requestDeposit(pendingKyc.browser, 20);
        const holder = await fundedInvestor(t.url, admin, 1250);
        const held = await holder.browser.post('/api/invest/start-invest', {
          amount: '600',
          planName: 'Bronze',
        });
        expect(held.status, JSON.stringify(held.body)).toBe(201);
        await waitForBalances(holder.browser, { balance: 650 });

        await t.app.money.flushOutboxes(30_000);
        const to = new Date();
        period = new URLSearchParams({
          from: new Date(to.getTime() - 30 * 86_400_000).toISOString(),
          to: to.toISOString(),
        }).toString();
        for (const account of [investor, pendingKyc, holder]) {
          const user = (await account.browser.get('/api/users/getUser')).body;
          seen.push({
            account,
            balances: await balancesOf(account.browser),
            kycStatus: user.kycStatus as string,
            statement: await statementOf(account.browser),
            documents: await documentsOf(admin, account.id),
          });
        }
        expect(seen.map((s) => s.kycStatus)).toEqual(['Approved', 'Pending', expect.any(String)]);
        expect(seen[1]!.documents).toEqual([KYC_FRONT, KYC_BACK].map((d) => d.toString('base64')));
        expect((seen[0]!.statement as { entries: unknown[] }).entries.length).toBeGreaterThan(2);
        queuesBefore = await queuesOf(admin);
      } finally {
        await t.stop();
      }
    },
  );

  it(
    'a run killed midway and run again leaves every store, the vault, the files and the topics as the source',
    { timeout: 300_000 },
    async () => {
      const brokers = broker!.brokers;
      // one event per transaction: the run is killed once the ledger's log is partly copied
      const killed = await runMigrate(brokers, ['--page', '1'], (child) => {
        void waitFor(() => ledgerMigratedTo() > 0, { timeoutMs: 120_000, intervalMs: 5 }).then(
          () => child.kill('SIGKILL'),
          () => child.kill('SIGKILL'),
        );
      });
      expect(killed.signal, killed.out).toBe('SIGKILL');
      expect(killed.out).not.toMatch(/migrate: done/);
      expect(ledgerMigratedTo()).toBeGreaterThan(0);
      // the killed process is gone: nothing holds the folders any more
      expect(processesUsing(source)).toEqual([]);

      const rerun = await runMigrate(brokers);
      expect(rerun.code, rerun.out).toBe(0);
      expect(rerun.out).toMatch(/migrate: done/);

      const before = await contents(source, 'standalone');
      migrated = await contents(target, 'cluster');
      for (const service of MIGRATED_SERVICES) {
        expect(migrated.stores[service]!.events, service).toEqual(before.stores[service]!.events);
        expect(migrated.stores[service]!.documents, service).toEqual(before.stores[service]!.documents);
        expect(migrated.stores[service]!.processed, service).toEqual(before.stores[service]!.processed);
        expect(migrated.stores[service]!.checkpoints, service).toEqual(before.stores[service]!.checkpoints);
      }
      expect(before.stores.ledger!.events.length).toBeGreaterThan(10);
      expect(migrated.vault).toEqual(before.vault);
      expect(Object.keys(before.files)).toHaveLength(4);
      expect(migrated.files).toEqual(before.files);
      // the secrets the data depends on went with it
      const secrets = (dir: string) => JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'));
      for (const k of ['JWT_SECRET', 'SECRETS_KEY', 'ADMIN_EMAIL', 'ADMIN_PASSWORD'])
        expect(secrets(target)[k], k).toBe(secrets(source)[k]);

      // every event of every topic of the source's bus is on Kafka (a batch the kill cut is there twice: same id)
      const bus = new Database(join(source, 'bus.sqlite'), { readonly: true });
      const kafka = await createKafkaEventBus({ brokers, clientId: 'migrate-check' });
      try {
        for (const service of MIGRATED_SERVICES) {
          const topic = topicOf(service);
          const expected = new Set(
            bus
              .prepare<[string], { json: string }>('SELECT json FROM messages WHERE topic = ?')
              .all(topic)
              .map((r) => (JSON.parse(r.json) as { id: string }).id),
          );
          if (expected.size === 0) continue;
          const got = new Set<string>();
          const sub = await kafka.subscribe({
            topic,
            group: `migrate-check-${service}`,
            handler: async (event) => void got.add(event.id),
          });
          try {
            await waitFor(() => got.size >= expected.size, { ...SLOW, message: `${topic} on Kafka` });
          } finally {
            await sub.stop();
          }
          expect([...got].sort(), topic).toEqual([...expected].sort());
        }
      } finally {
        bus.close();
        await kafka.close();
      }
    },
  );

  it('a second run changes nothing', { timeout: 120_000 }, async () => {
    const secretsBefore = readFileSync(join(target, 'secrets.json'), 'utf8');
    const again = await runMigrate(broker!.brokers);
    expect(again.code, again.out).toBe(0);
    for (const service of MIGRATED_SERVICES) {
      expect(again.out).toContain(`migrate: ${service}: 0 events appended`);
      expect(again.out).toContain(`migrate: ${service}: 0 documents`);
    }
    expect(again.out).toContain('migrate: files: 0 ');
    expect(again.out).not.toMatch(/events published/);
    expect(await contents(target, 'cluster')).toEqual(migrated);
    expect(readFileSync(join(target, 'secrets.json'), 'utf8')).toBe(secretsBefore);
  });

  it(
    'make cluster on the migrated data: the same logins, balances, documents, statements and queues; the ledger intact',
    { timeout: 300_000 },
    async () => {
      cluster = await startCluster({
        dir: target,
        ports: [await freePort(), await freePort()],
        grpcBase: GRPC_BASE,
        kafkaBrokers: broker!.brokers,
      });
      const url = cluster.urls[0];
      expect(cluster.admin).toEqual({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      const admin = await returningBrowser(url, adminBefore, ADMIN_EMAIL, ADMIN_PASSWORD);
      for (const s of seen) {
        const browser = await returningBrowser(url, s.account.browser, s.account.email, s.account.password);
        expect(await balancesOf(browser), s.account.email).toEqual(s.balances);
        const user = (await browser.get('/api/users/getUser')).body;
        expect(user.kycStatus).toBe(s.kycStatus);
        // personal data is opened with the migrated keys
        expect(user.email).toBe(s.account.email);
        expect(await statementOf(browser)).toEqual(s.statement);
        expect(await documentsOf(admin, s.account.id)).toEqual(s.documents);
      }
      expect(await queuesOf(admin)).toEqual(queuesBefore);
      const lines: string[] = [];
      const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };
      expect(await verifyLedger(['--data', join(target, 'ledger')], out), lines.join('\n')).toBe(0);
      expect(lines.join('\n')).toMatch(/^Ledger intact/);
    },
  );
});
