/**
 * kill -9 under load on the standalone target, started as `make start`
 * starts it (tests/support/standalone.ts) on a fresh DATA_DIR of real SQLite files: 10 verified investors
 * with KYC approved, $1,000 confirmed and $300 of Total Profit each, and a second admin (maker-checker).
 * 200 concurrent money commands (deposit requests, confirmations, investments, withdrawals, admin balance
 * edits, each keyed command with its Idempotency-Key) → SIGKILL once at least 50 are answered → restart
 * on the same DATA_DIR → sign in again (sessions live in memory) and retry every command that got no answer
 * or a 5xx with the SAME key → reconcile:
 * - every accepted command has its effect exactly once, no refused one has any: each user's balances (shown
 *   by getUser, and the ledger's own, holds included) equal the sum of the accepted commands; every accepted
 *   deposit is listed once; the ledger's holds are exactly the accepted investments and withdrawals;
 * - the ledger (its SQLite file, read after the process stopped) sums to zero, every transaction is posted
 *   once, and no (user, idempotency key) posted twice.
 * The cluster's drill is tests/cluster/drills.int.spec.ts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { ledgerInvariantProblems } from '@meridian/ledger/testing/invariants';
import { HttpSession, type HttpResult } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser, type Account } from '@meridian/gateway/testing/composition';
import { fundedInvestor, requestDeposit } from '@meridian/gateway/testing/money';
import { uploadKyc } from '@meridian/gateway/testing/kyc';
import { exitOf, killSkipReason, loadDrillTarget, serverPidOf } from '../support/killTarget.js';
import { stopTarget } from '../support/standalone.js';

const skipReason = killSkipReason;
if (skipReason) console.log(`[skip] kill -9 under load on the standalone: ${skipReason}`);

const ADMIN = { email: 'kill-drill-admin@example.com', password: 'Kill-Drill-Admin-1!' };
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const INVESTORS = 10;
const FUNDED_CENTS = 100_000; // $1,000 confirmed before the load
const PROFIT_CENTS = 30_000; // $300 of Total Profit before the load
const dollarsOf = (cents: number) => (cents / 100).toFixed(2);

type Bucket = 'deposit' | 'profit' | 'investmentHold' | 'withdrawalHold';

/** One money command of the load, and what it does to whose balances when accepted. */
interface Command {
  label: string;
  by: HttpSession;
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  key?: string;
  /** Final statuses this command may end with (anything else is a failure of the drill). */
  allowed: number[];
  /** The money moved when accepted: [user, account, signed cents]. */
  effects: Array<[string, Bucket, number]>;
  kind: 'deposit' | 'confirm' | 'invest' | 'withdraw' | 'adjust' | 'refused';
  /** Every attempt's status (0: no answer). */
  attempts: number[];
  final?: HttpResult;
}

/** A fixed-seed Fisher-Yates shuffle (mulberry32): the same order on every run. */
function shuffle<T>(items: T[], seed = 11): void {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
}

const { dataDir, start } = loadDrillTarget('kill-drill', ADMIN);

describe.skipIf(skipReason !== null)('kill -9 under load on the standalone target', () => {
  it(
    '200 concurrent money commands, kill -9, restart, retries with the same keys: each accepted once, refused none, ledger sums to zero',
    { timeout: 180_000 },
    async () => {
      const t0 = Date.now();
      const timings: Record<string, number> = {};
      const lap = (name: string) => (timings[name] = Date.now() - t0);
      let target = await start();
      const url = target.url;
      lap('started');

      // ---- preparation: two admins, ten funded investors with KYC approved and some profit
      const admin1 = new HttpSession(url);
      await signIn(admin1, ADMIN.email, ADMIN.password);
      const admin1Id = (await admin1.get('/api/users/getUser')).body._id as string;
      const admin2 = await verifiedUser(url, { name: 'Second Admin' });
      expect((await admin1.post('/api/users/upgradeUser', { role: 'admin', id: admin2.id })).status).toBe(
        200,
      );
      await waitFor(async () => (await admin2.browser.get('/api/payments/pending-deposit')).status === 200, {
        timeoutMs: 10_000,
        message: 'the second admin is an admin',
      });
      const investors = await Promise.all(
        Array.from({ length: INVESTORS }, () => fundedInvestor(url, admin1, FUNDED_CENTS / 100)),
      );
      await Promise.all(
        investors.map(async (inv) => {
          expect((await uploadKyc(inv)).status).toBe(200);
          expect((await admin2.browser.patch(`/api/users/kyc/approve/${inv.id}`)).status).toBe(200);
          const edit = await admin2.browser.put(`/api/users/updateDepositBalance/${inv.id}`, {
            operation: 'add',
            amount: dollarsOf(PROFIT_CENTS),
          });
          expect(edit.status).toBe(200);
          await waitFor(
            async () => {
              const u = (await inv.browser.get('/api/users/getUser')).body;
              return u.kycStatus === 'Approved' && u.totalMaturityAmount === PROFIT_CENTS / 100;
            },
            { timeoutMs: 15_000, message: `investor ${inv.email} approved with profit` },
          );
        }),
      );
      // deposits the admins confirm during the load, and the second admin's own (never by themselves)
      const toConfirm = await Promise.all(
        investors.map(async (inv, i) => [
          { id: await requestDeposit(inv.browser, dollarsOf(10_000 + 101 * i)), cents: 10_000 + 101 * i },
          { id: await requestDeposit(inv.browser, dollarsOf(12_000 + 37 * i)), cents: 12_000 + 37 * i },
        ]),
      );
      const admin2Deposit = await requestDeposit(admin2.browser, '50');
      lap('prepared');

      // ---- the load: 19 commands per investor, 10 around the admins
      const commands: Command[] = [];
      const add = (c: Omit<Command, 'attempts'>) => commands.push({ ...c, attempts: [] });
      const key = (tag: string) => `drill-${tag}-${randomUUID()}`;
      investors.forEach((inv, i) => {
        const me = inv.browser;
        for (let j = 0; j < 5; j++) {
          const cents = 1_000 + 100 * j + i; // pending deposits: no balance moves
          add({
            label: `deposit ${i}.${j}`,
            by: me,
            method: 'POST',
            path: '/api/payments/create',
            body: { amount: dollarsOf(cents) },
            key: key('deposit'),
            allowed: [201],
            effects: [],
            kind: 'deposit',
          });
        }
        add({
          label: `deposit ${i} with 3 decimals`,
          by: me,
          method: 'POST',
          path: '/api/payments/create',
          body: { amount: '10.005' },
          key: key('deposit'),
          allowed: [400],
          effects: [],
          kind: 'refused',
        });
        toConfirm[i].forEach((d, j) =>
          add({
            label: `confirm ${i}.${j}`,
            by: j === 0 ? admin1 : admin2.browser,
            method: 'PATCH',
            path: '/api/payments/confirmPayment',
            body: { transactionId: d.id, status: 'Confirmed', notes: '' },
            allowed: [200, 409], // 409 "already confirmed" only on a retry after a lost answer (checked below)
            effects: [[inv.id, 'deposit', d.cents]],
            kind: 'confirm',
          }),
        );
        /**
         * An order that holds `cents` of `from` until it is decided (400: `from` did not cover it when the
         * hold was asked).
         */
        const hold = (
          kind: 'invest' | 'withdraw',
          path: string,
          body: Record<string, unknown>,
          from: Bucket,
          into: Bucket,
          cents: number,
        ) =>
          add({
            label: `${kind} ${i} $${dollarsOf(cents)}`,
            by: me,
            method: 'POST',
            path,
            body: { amount: dollarsOf(cents), ...body },
            key: key(kind),
            allowed: [201, 400],
            effects: [
              [inv.id, from, -cents],
              [inv.id, into, cents],
            ],
            kind,
          });
        for (const dollars of [300, 290, 280, 270, 260])
          hold(
            'invest',
            '/api/invest/start-invest',
            { planName: 'Starter' },
            'deposit',
            'investmentHold',
            dollars * 100 + i,
          );
        for (const dollars of [120, 110, 100])
          hold(
            'withdraw',
            '/api/withDraw/create',
            { walletAddress: WALLET },
            'profit',
            'withdrawalHold',
            dollars * 100 + i,
          );
        const edit = (
          by: HttpSession,
          route: string,
          account: Bucket,
          operation: 'add' | 'deduct',
          cents: number,
        ) =>
          add({
            label: `${route} ${operation} ${i}`,
            by,
            method: 'PUT',
            path: `/api/users/${route}/${inv.id}`,
            body: { operation, amount: dollarsOf(cents), reason: 'drill' },
            key: key('adjust'),
            allowed: operation === 'add' ? [200] : [200, 400],
            effects: [[inv.id, account, operation === 'add' ? cents : -cents]],
            kind: 'adjust',
          });
        edit(admin2.browser, 'updateDepositBalance', 'profit', 'add', 2_500 + i);
        edit(admin1, 'editDepositBalance', 'deposit', 'add', 1_500 + i);
        edit(admin2.browser, 'updateDepositBalance', 'profit', 'deduct', 4_000 + i);
      });
      for (let j = 0; j < 5; j++) {
        // maker-checker: another admin may edit admin1's balances; admin1 may not
        add({
          label: `admin2 edits admin1 ${j}`,
          by: admin2.browser,
          method: 'PUT',
          path: `/api/users/updateDepositBalance/${admin1Id}`,
          body: { operation: 'add', amount: dollarsOf(700 + j) },
          key: key('adjust'),
          allowed: [200],
          effects: [[admin1Id, 'profit', 700 + j]],
          kind: 'adjust',
        });
        if (j < 4)
          add({
            label: `admin1 edits own ${j}`,
            by: admin1,
            method: 'PUT',
            path: `/api/users/updateDepositBalance/${admin1Id}`,
            body: { operation: 'add', amount: '1000' },
            key: key('adjust'),
            allowed: [403],
            effects: [[admin1Id, 'profit', 100_000]],
            kind: 'refused',
          });
      }
      add({
        label: 'admin2 confirms own deposit',
        by: admin2.browser,
        method: 'PATCH',
        path: '/api/payments/confirmPayment',
        body: { transactionId: admin2Deposit, status: 'Confirmed', notes: '' },
        allowed: [403],
        effects: [[admin2.id, 'deposit', 5_000]],
        kind: 'refused',
      });
      expect(commands).toHaveLength(200);
      shuffle(commands); // every kind in flight at the kill, not one investor's after another's

      const send = async (c: Command): Promise<HttpResult | null> => {
        try {
          const r = await c.by.request(c.method, c.path, {
            body: c.body,
            headers: c.key ? { 'idempotency-key': c.key } : {},
          });
          c.attempts.push(r.status);
          return r;
        } catch {
          c.attempts.push(0);
          return null;
        }
      };

      // SIGKILL of the server process (not its tsx wrapper) from the 50th answer's own callback: polling
      // would find the whole burst answered already
      const serverPid = await serverPidOf(target);
      const exited = exitOf(target);
      let answered = 0;
      let killedAt = '';
      const load = Promise.all(
        commands.map(async (c) => {
          const r = await send(c);
          if (r && ++answered === 50) {
            process.kill(serverPid, 'SIGKILL');
            killedAt = new Date().toISOString();
          }
          if (r && r.status < 500) c.final = r;
        }),
      );
      await exited;
      await load;
      const answeredBeforeKill = answered;
      const unanswered = commands.filter((c) => c.final === undefined).length;
      lap('killed');
      expect(unanswered, 'commands in flight when the process died').toBeGreaterThan(0);

      // ---- restart on the same DATA_DIR and port; sign in again (sessions were in memory); retry
      target = await start();
      expect(target.url).toBe(url);
      lap('restarted');
      const accounts: Account[] = [{ ...ADMIN, id: admin1Id, browser: admin1 }, admin2, ...investors];
      await Promise.all(accounts.map((a) => signIn(a.browser, a.email, a.password)));
      await Promise.all(
        commands
          .filter((c) => c.final === undefined)
          .map(async (c) => {
            c.final = await waitFor(
              async () => {
                const r = await send(c);
                return r && r.status < 500 ? r : null;
              },
              { timeoutMs: 30_000, intervalMs: 100, message: `a final answer to ${c.label}` },
            );
          }),
      );
      lap('retried');

      // ---- every final answer is one the command may give
      const retried = (c: Command) => c.attempts.length > 1;
      const odd = commands.filter(
        (c) =>
          !c.allowed.includes(c.final!.status) ||
          (c.kind === 'confirm' &&
            c.final!.status === 409 &&
            !(retried(c) && /already been confirmed/.test(c.final!.body?.message))),
      );
      expect(odd.map((c) => `${c.label}: ${c.attempts.join(',')} ${JSON.stringify(c.final!.body)}`)).toEqual(
        [],
      );
      const accepted = (c: Command) =>
        c.kind !== 'refused' && (c.final!.status < 300 || (c.kind === 'confirm' && c.final!.status === 409));

      // ---- expected balances: the sum of the accepted commands' effects, nothing of the refused ones
      const expected = new Map<string, Record<Bucket, number>>();
      const of = (userId: string) => {
        if (!expected.has(userId))
          expected.set(userId, { deposit: 0, profit: 0, investmentHold: 0, withdrawalHold: 0 });
        return expected.get(userId)!;
      };
      of(admin1Id);
      of(admin2.id);
      for (const inv of investors) Object.assign(of(inv.id), { deposit: FUNDED_CENTS, profit: PROFIT_CENTS });
      for (const c of commands.filter(accepted))
        for (const [userId, account, cents] of c.effects) of(userId)[account] += cents;

      // what getUser shows (identity's view, reached through events)
      for (const a of accounts) {
        const want = expected.get(a.id)!;
        let shown: unknown;
        await waitFor(
          async () => {
            const u = (await a.browser.get('/api/users/getUser')).body;
            shown = [u.balance, u.investmentBalance, u.totalMaturityAmount];
            return (
              u.balance === want.deposit / 100 &&
              u.investmentBalance === 0 &&
              u.totalMaturityAmount === want.profit / 100
            );
          },
          // identity learns balances through the bus: the outbox leases of the killed process expire first
          { timeoutMs: 30_000, message: `balances of ${a.email}` },
        ).catch(() =>
          expect(shown, `getUser of ${a.email}`).toEqual([want.deposit / 100, 0, want.profit / 100]),
        );
      }

      // every accepted deposit listed once with its amount; refused requests created none
      for (const [i, inv] of investors.entries()) {
        const history = (await inv.browser.get('/api/invest/getTransactionHistory')).body.history as Array<
          Record<string, any>
        >;
        const deposits = history.filter((h) => h.type === 'Transaction');
        const mine = commands.filter((c) => c.by === inv.browser && c.path === '/api/payments/create');
        const acceptedIds = mine.filter(accepted).map((c) => c.final!.body.transactionId as string);
        expect(new Set(acceptedIds).size).toBe(acceptedIds.length);
        expect(deposits).toHaveLength(1 + toConfirm[i].length + acceptedIds.length);
        for (const c of mine.filter(accepted)) {
          const listed = deposits.filter((d) => d._id === c.final!.body.transactionId);
          expect(listed.map((d) => [d.amount, d.status])).toEqual([[Number(c.body.amount), 'Pending']]);
        }
        for (const d of toConfirm[i]) expect(deposits.find((x) => x._id === d.id)?.status).toBe('Confirmed');
      }
      lap('reconciled over HTTP');
      expect(await stopTarget(target)).toBe(0);

      // ---- the ledger's own file, read after the process stopped
      const store = createSqliteServiceStore(join(dataDir, 'ledger.sqlite'));
      try {
        expect(await ledgerInvariantProblems(store)).toEqual([]);
        const keys = new Set<string>();
        const twice: string[] = [];
        const holds = new Map<string, Set<string>>();
        for (let after = 0; ;) {
          const page = (await store.readAll(after, 1000)) as StoredEvent[];
          if (page.length === 0) break;
          after = page[page.length - 1].position;
          for (const e of page) {
            const data = e.data as Record<string, any>;
            if (e.type === 'TransactionPosted') {
              const k = `${data.userId} ${data.idempotencyKey}`;
              if (keys.has(k)) twice.push(k);
              keys.add(k);
            }
            if (e.type === 'FundsHeld') {
              if (!holds.has(data.userId)) holds.set(data.userId, new Set());
              holds.get(data.userId)!.add(`${data.purpose} ${data.holdId}`);
            }
          }
        }
        expect(twice, 'idempotency keys posted twice').toEqual([]);
        const balances = await store.find<Record<string, any>>('balances');
        for (const [userId, want] of expected) {
          const b = balances.find((x) => x.userId === userId);
          expect(
            {
              deposit: b?.depositCents ?? 0,
              profit: b?.profitCents ?? 0,
              investmentHold: b?.investmentHoldCents ?? 0,
              withdrawalHold: b?.withdrawalHoldCents ?? 0,
              invested: b?.investedCents ?? 0,
            },
            `ledger balances of ${userId}`,
          ).toEqual({ ...want, invested: 0 });
        }
        for (const inv of investors) {
          const wantHolds = commands
            .filter(
              (c) => c.by === inv.browser && (c.kind === 'invest' || c.kind === 'withdraw') && accepted(c),
            )
            .map((c) =>
              c.kind === 'invest'
                ? `investment ${c.final!.body.investment._id}`
                : `withdrawal ${c.final!.body.withdrawal._id}`,
            )
            .sort();
          expect([...(holds.get(inv.id) ?? [])].sort(), `holds of ${inv.email}`).toEqual(wantHolds);
        }
      } finally {
        await store.close();
      }
      lap('ledger checked');

      const count = (pred: (c: Command) => boolean) => commands.filter(pred).length;
      // retried commands whose effect was already made before the kill (the answer was what got lost)
      const madeBeforeKill = (c: Command) => {
        const b = c.final!.body;
        const at = b?.transaction?.createdAt ?? b?.investment?.createdAt ?? b?.withdrawal?.requestDate;
        return c.final!.status === 409 || (typeof at === 'string' && at < killedAt);
      };
      const replays = count((c) => retried(c) && madeBeforeKill(c));
      expect(replays, 'retries of commands the process had carried out before it died').toBeGreaterThan(0);
      console.log(
        `[kill -9 drill] answered before the kill: ${answeredBeforeKill}/200, retried: ${unanswered}` +
          ` (5xx before the kill: ${count((c) => c.attempts[0] >= 500)}),` +
          ` accepted: ${count(accepted)}, refused: ${count((c) => !accepted(c))}` +
          ` (invest ${count((c) => c.kind === 'invest' && !accepted(c))},` +
          ` withdraw ${count((c) => c.kind === 'withdraw' && !accepted(c))},` +
          ` deduct ${count((c) => c.kind === 'adjust' && !accepted(c))});` +
          ` retries answered with an effect made before the kill: ${replays};` +
          ` timings ms ${JSON.stringify(timings)}`,
      );
    },
  );
});
