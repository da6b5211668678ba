/**
 * `make backup` / `make restore` (scripts/backup.ts) on the standalone's embedded store: investors with
 * balances (deposits confirmed, one investment held) and KYC documents in a running composition whose
 * data lives in a folder; a backup taken while deposits keep being confirmed; the restore refused while
 * the store is in use; restored into a fresh folder, a new composition there shows every balance and
 * serves every document byte for byte, and the ledger's books still balance.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminBrowser,
  returningBrowser,
  startTestComposition,
  verifiedUser,
  type Account,
  type TestComposition,
} from '@meridian/gateway/testing/composition';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';
import { KYC_BACK, KYC_FRONT, kycDocumentsOf, submitKyc } from '@meridian/gateway/testing/kyc';
import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';
import {
  FAST_PLANS,
  balancesOf,
  confirmDeposit,
  requestDeposit,
  waitFor,
  waitForBalances,
  type Balances,
} from '@meridian/gateway/testing/money';
import {
  backupKeyVault,
  backupStore,
  databasesIn,
  KEY_VAULT,
  restoreStore,
  verifyBackup,
  StoreInUseError,
} from '../scripts/backup.js';
import { ROOT } from './infra.env.js';

const work = mkdtempSync(join(tmpdir(), 'meridian-backup-'));
const running: TestComposition[] = [];
afterAll(async () => {
  for (const t of running) await t.stop();
  rmSync(work, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<TestComposition> {
  const t = await startTestComposition({ dataDir, env: { PLANS_JSON: FAST_PLANS } });
  running.push(t);
  return t;
}

async function stop(t: TestComposition): Promise<void> {
  await t.stop();
  running.splice(running.indexOf(t), 1);
}

describe('backups of the embedded store (make backup / make restore)', () => {
  const source = join(work, 'data');
  const backups = join(work, 'backups');
  const restored = join(work, 'restored');
  const investors: Array<{ account: Account; expected: Balances; documents: boolean }> = [];
  let backupDir = '';
  let adminBefore: HttpSession;
  let busy: { account: Account; confirmedBefore: number; confirmedAfter: number } | undefined;

  it(
    'backs up a running store with balances and documents, online, while deposits keep being confirmed',
    { timeout: 180_000 },
    async () => {
      const t = await start(source);
      const admin = await adminBrowser(t.url);
      adminBefore = admin;
      for (const [amount, invest, documents] of [
        [300, 0, true],
        [1250, 600, false],
        [75.5, 0, true],
      ] as const) {
        const account = await verifiedUser(t.url);
        await confirmDeposit(admin, await requestDeposit(account.browser, amount));
        await waitForBalances(account.browser, { balance: amount });
        if (invest) {
          const res = await account.browser.post('/api/invest/start-invest', {
            amount: String(invest),
            planName: 'Bronze',
          });
          expect(res.status).toBe(201);
          await waitForBalances(account.browser, { balance: amount - invest });
        }
        if (documents) await submitKyc(account, { timeoutMs: 10_000 });
        investors.push({ account, expected: await balancesOf(account.browser), documents });
      }
      expect(investors[1]!.expected).toMatchObject({ balance: 650 });

      // writers keep going while the backup runs: $10 deposits confirmed one after another
      const account = await verifiedUser(t.url);
      busy = { account, confirmedBefore: 0, confirmedAfter: 0 };
      let stop = false;
      let confirmed = 0;
      const writer = (async () => {
        while (!stop) {
          await confirmDeposit(admin, await requestDeposit(account.browser, 10));
          confirmed++;
        }
      })();
      await waitFor(() => confirmed >= 2, { timeoutMs: 20_000, message: 'the writer confirmed deposits' });
      busy.confirmedBefore = confirmed;
      const { dir, manifest } = await backupStore({ dataDir: source, outDir: backups, lockTimeoutMs: 200 });
      busy.confirmedAfter = confirmed;
      await waitFor(() => confirmed >= busy!.confirmedAfter + 2, {
        timeoutMs: 20_000,
        message: 'writes go on after the backup',
      });
      stop = true;
      await writer;
      backupDir = dir;

      expect(manifest.databases.map((d) => d.path).sort()).toEqual(databasesIn(source));
      expect(manifest.databases.map((d) => d.path)).toEqual(
        expect.arrayContaining([
          'identity.sqlite',
          'ledger.sqlite',
          'kyc.sqlite',
          'bus.sqlite',
          'notification.sqlite',
        ]),
      );
      // identity's key vault is never in a backup (crypto-shredding: restore keeps the live one)
      expect(existsSync(join(source, KEY_VAULT))).toBe(true);
      expect([...manifest.databases, ...manifest.files].map((f) => f.path)).not.toContain(KEY_VAULT);
      expect(manifest.files.filter((f) => f.path.endsWith('.bin'))).toHaveLength(4);
      expect(verifyBackup(dir)).toEqual(manifest);
      expect(existsSync(`${dir}.partial`)).toBe(false);
    },
  );

  it('refuses to restore over a store that is in use, and leaves it untouched', async () => {
    expect(running).toHaveLength(1);
    // what the restore would move aside or replace: the folder's entries and each file's inode (its bytes
    // are the running store's to change: its WAL is copied into the file in the background at any time)
    const files = () =>
      readdirSync(source)
        .sort()
        .map((f) => `${f}#${statSync(join(source, f)).ino}`);
    const before = files();
    expect(before.some((f) => f.startsWith('ledger.sqlite#'))).toBe(true);
    expect(() => restoreStore({ backupDir, dataDir: source })).toThrow(StoreInUseError);
    expect(files()).toEqual(before);
  });

  it('`make restore` (the CLI) says why it refuses while the standalone runs', () => {
    const r = spawnSync(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/backup.ts', 'restore', backupDir, '--data', source],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/refusing to restore: .* is in use by pid \d+/);
  });

  it('refuses a backup whose files do not match the manifest', () => {
    const copy = join(work, 'tampered');
    spawnSync('cp', ['-r', backupDir, copy]);
    writeFileSync(join(copy, 'ledger.sqlite'), 'not a database');
    expect(() => restoreStore({ backupDir: copy, dataDir: join(work, 'elsewhere') })).toThrow(
      /ledger\.sqlite does not match/,
    );
  });

  it(
    'restored into a fresh folder: every balance and every document is there, and the books balance',
    { timeout: 180_000 },
    async () => {
      await stop(running[0]!);
      const { manifest } = restoreStore({ backupDir, dataDir: restored });
      expect(databasesIn(restored)).toEqual(manifest.databases.map((d) => d.path).sort());
      // a fresh folder has no key vault: the operator brings the one kept apart (`backup-keys`), else every
      // personal value (names, documents) would read as deleted
      expect(existsSync(join(restored, KEY_VAULT))).toBe(false);
      await backupKeyVault({ dataDir: source, outFile: join(restored, KEY_VAULT) });
      const t = await start(restored);
      const admin = await returningBrowser(t.url, adminBefore, ADMIN_EMAIL, ADMIN_PASSWORD);
      for (const { account, expected, documents } of investors) {
        const browser = await returningBrowser(t.url, account.browser, account.email, account.password);
        expect(await balancesOf(browser), account.email).toEqual(expected);
        const docs = await kycDocumentsOf(admin, account.id);
        if (documents)
          expect(docs.map((d) => d.toString('base64'))).toEqual(
            [KYC_FRONT, KYC_BACK].map((d) => d.toString('base64')),
          );
        else expect(docs).toEqual([]);
      }
      // the deposits confirmed while the backup ran: the ones before it are all there, none is half
      // there. The restored outboxes resume one lease TTL after the start (as after a crash): events
      // the snapshot holds unpublished reach identity's view then.
      const busyAccount = busy!.account;
      const browser = await returningBrowser(
        t.url,
        busyAccount.browser,
        busyAccount.email,
        busyAccount.password,
      );
      const { balance } = await waitFor(
        async () => {
          const b = await balancesOf(browser);
          return b.balance >= busy!.confirmedBefore * 10 ? b : null;
        },
        { timeoutMs: 30_000, message: 'the deposits confirmed before the backup' },
      );
      expect(balance % 10).toBe(0);
      expect(balance).toBeLessThanOrEqual((busy!.confirmedAfter + 1) * 10);
      await t.app.money.flushOutboxes(30_000);
      await expectLedgerInvariants(t.app.money.ledgerStore);
    },
  );
});
