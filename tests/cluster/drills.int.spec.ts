/**
 * Fault drills on the production topology (scripts/cluster/cluster.ts, as `make cluster` runs it): every
 * service its own OS process on a real Kafka broker, two gateways sharing Redis. Each drill ends with the
 * invariant check of ./invariants.ts. Skipped, with the reason printed, where Java/Maven (the broker) or
 * Redis are missing.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  AdjustBalanceRequest,
  AdjustmentOperation,
  BalanceAccount,
  LedgerServiceClient,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { callUnary } from '@meridian/platform/grpc/client';
import { meshChannelCredentials } from '@meridian/platform/grpc/mesh';
import { keptMeshCertificates } from '@meridian/standalone/meshCertificates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { HttpSession, listMail, type MailJson } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser, type Account } from '@meridian/gateway/testing/composition';
import { approveKyc, uploadKyc } from '@meridian/gateway/testing/kyc';
import {
  FAST_PLANS,
  balancesOf,
  confirmDeposit,
  isBalancePush,
  openSocket,
  requestDeposit,
  waitForBalances,
  type RecordingSocket,
} from '@meridian/gateway/testing/money';
import type { Cluster } from '../../scripts/cluster/cluster.js';
import { editsOver, editsThroughKill } from './balanceEdits.js';
import { expectClusterInvariants, invariantAccount } from './invariants.js';
import { clusterSkipReason, runSpecJourneyAcrossGateways, startTestCluster } from './testCluster.js';

const skipReason = clusterSkipReason();
if (skipReason) console.log(`[skip] cluster fault drills: ${skipReason}`);

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const SLOW = { timeoutMs: 60_000, intervalMs: 100 };

describe.skipIf(skipReason !== null)(
  'fault drills on the cluster (each service its own process, Kafka, two gateways)',
  () => {
    let cluster: Cluster;
    let A: string;
    let B: string;
    let admin: HttpSession; // on gateway B
    const users: Account[] = [];
    const sockets: RecordingSocket[] = [];

    let starting: ReturnType<typeof startTestCluster> | undefined;
    beforeAll(async () => {
      ({ cluster } = await (starting = startTestCluster({
        grpcBase: 30050, // below the ephemeral port range (32768-60999 on Linux)
        env: {
          PLANS_JSON: FAST_PLANS,
          LOG_LEVEL: 'info',
          ADMIN_EMAIL: 'drill-admin@example.com',
          ADMIN_PASSWORD: 'Drill-Admin-Passw0rd!',
        },
      })));
      [A, B] = cluster.urls;
      admin = new HttpSession(B);
      await signIn(admin, cluster.admin.email, cluster.admin.password);
    }, 240_000);

    afterAll(async () => {
      for (const s of sockets) s.close();
      // a start still running when beforeAll timed out is stopped once it is up (it cleans up itself if it fails)
      await (await starting?.catch(() => undefined))?.stop();
    }, 360_000);

    const investor = async () => {
      const u = await verifiedUser(A);
      users.push(u);
      return u;
    };
    const on = (url: string, from: HttpSession) => {
      const s = new HttpSession(url);
      for (const [k, v] of from.cookies) s.cookies.set(k, v);
      return s;
    };
    const socket = async (url: string, b: HttpSession, lastPosition: string | null = null) => {
      const s = await openSocket(url, b, lastPosition);
      sockets.push(s);
      return s;
    };
    const mails = async (to: string, subject: string): Promise<MailJson[]> =>
      (await listMail(A, to)).filter((m) => m.subject === subject);
    /** Waits for a balances/changed push on `live` that shows a Deposit Balance of `balance`. */
    const balancePushed = (live: RecordingSocket, balance: number, message: string) =>
      waitFor(() => live.pushes.find(isBalancePush(balance)), { ...SLOW, message });

    it("a process on this machine cannot forge a money call: no certificate, another service's, or the gateway's without a signed user", async () => {
      const inv = await investor();
      const forged = AdjustBalanceRequest.fromPartial({
        caller: { userId: 'someone', sessionId: 'forged' },
        callerRole: 'admin',
        userId: inv.id,
        account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: '100.00',
        reason: 'forged',
      });
      const ids = keptMeshCertificates(join(cluster.dir, 'mesh'));
      const as = (name: string) => ids.find((id) => id.name === name)!;
      const attempts: Array<[string, grpc.ChannelCredentials, number[]]> = [
        // plaintext, or TLS without a client certificate: the handshake fails
        ['no credentials', grpc.credentials.createInsecure(), [grpc.status.UNAVAILABLE]],
        [
          'no client certificate',
          grpc.credentials.createSsl(as('ledger').ca),
          [grpc.status.UNAVAILABLE, grpc.status.UNAUTHENTICATED],
        ],
        ['kyc', meshChannelCredentials(as('kyc'), 'ledger'), [grpc.status.PERMISSION_DENIED]],
        // the gateway's certificate, but no user assertion signed with its key
        ['gateway, unsigned', meshChannelCredentials(as('gateway'), 'ledger'), [grpc.status.UNAUTHENTICATED]],
      ];
      for (const [who, credentials, codes] of attempts) {
        const client = new LedgerServiceClient(cluster.grpc.ledger, credentials);
        try {
          const err = (await callUnary(client, 'adjustBalance', forged).then(
            () => null,
            (e: grpc.ServiceError) => e,
          )) as grpc.ServiceError | null;
          expect({ who, code: err?.code }).toEqual({ who, code: expect.toBeOneOf(codes) });
        } finally {
          client.close();
        }
      }
      expect(await balancesOf(inv.browser)).toMatchObject({ balance: 0 });
    });

    it(
      'the whole journey across processes: investor on gateway A, admin on gateway B, live both ways, emails once, history',
      { timeout: 180_000 },
      async () => {
        const inv = await investor();
        const [invLive, adminLive] = await Promise.all([socket(A, inv.browser), socket(B, admin)]);

        // KYC: upload on A, the admin's queue on B shows it live, approve on B
        expect((await uploadKyc(inv)).status).toBe(200);
        await waitFor(
          () => adminLive.pushes.find((p) => p.event === 'queue/itemAdded' && p.payload.queue === 'kyc'),
          { ...SLOW, message: 'kyc queue push on B' },
        );
        await approveKyc(admin, inv, { ...SLOW, message: 'kyc approved on A' });

        // deposit on A → queue on B → confirm on B → balance pushed to A
        const depositId = await requestDeposit(inv.browser, 600);
        await waitFor(
          () => adminLive.pushes.find((p) => p.event === 'queue/itemAdded' && p.payload.queue === 'deposits'),
          { ...SLOW, message: 'deposit queue push on B' },
        );
        await confirmDeposit(admin, depositId);
        await balancePushed(invLive, 600, 'balance push on A');

        // invest on A → approve on B → the 1.2 s plan matures (scheduler) → Total Profit
        const started = await inv.browser.post('/api/invest/start-invest', {
          amount: '200',
          planName: 'Starter',
        });
        expect(started.status).toBe(201);
        const investmentId = started.body.investment._id as string;
        await waitFor(
          () =>
            adminLive.pushes.find((p) => p.event === 'queue/itemAdded' && p.payload.queue === 'investments'),
          { ...SLOW, message: 'investment queue push on B' },
        );
        expect((await admin.put(`/api/invest/${investmentId}/approve`)).status).toBe(200);
        await waitFor(
          () =>
            invLive.pushes.find(
              (p) =>
                p.event === 'status/changed' && p.payload.id === investmentId && p.payload.status === 'Ended',
            ),
          { ...SLOW, message: 'matured push on A' },
        );
        await waitForBalances(
          inv.browser,
          { balance: 400, investmentBalance: 0, totalMaturityAmount: 224 },
          SLOW,
        );

        // withdraw on A → approve on B
        const w = await inv.browser.post('/api/withDraw/create', { amount: '60', walletAddress: WALLET });
        expect(w.status).toBe(201);
        const withdrawalId = w.body.withdrawal._id as string;
        await waitFor(
          () =>
            adminLive.pushes.find((p) => p.event === 'queue/itemAdded' && p.payload.queue === 'withdrawals'),
          { ...SLOW, message: 'withdrawal queue push on B' },
        );
        expect((await admin.put(`/api/withDraw/approve/${withdrawalId}`)).status).toBe(200);
        await waitForBalances(
          inv.browser,
          { balance: 400, investmentBalance: 0, totalMaturityAmount: 164 },
          SLOW,
        );

        // every email once
        for (const subject of [
          'Your investment is active',
          'Your investment has matured',
          'We received your withdrawal request',
          'Your withdrawal was approved',
        ]) {
          await waitFor(async () => (await mails(inv.email, subject)).length > 0, {
            ...SLOW,
            message: subject,
          });
          expect(await mails(inv.email, subject), subject).toHaveLength(1);
        }
        // history, read through the other gateway
        const history = await on(B, inv.browser).get('/api/invest/getTransactionHistory');
        expect(history.status).toBe(200);
        expect((history.body.history as Array<{ type: string }>).map((i) => i.type).sort()).toEqual([
          'Investment',
          'Transaction',
          'Withdrawal',
        ]);
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'a client of spec §7 alone: the investor on gateway A, the admin lists on A and decides on B, no claims call',
      { timeout: 240_000 },
      async () => {
        const { investor, referred, calls } = await runSpecJourneyAcrossGateways(cluster, SLOW.timeoutMs);
        expect(calls.some((c) => c.includes('/claims'))).toBe(false);
        // the invariant check reads getUser with each account's cookies
        users.push(invariantAccount(A, investor), invariantAccount(A, referred));
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'kill -9 the ledger during 200 concurrent money commands; each command applies once after retries',
      { timeout: 240_000 },
      async () => {
        const investors = await Promise.all(Array.from({ length: 10 }, () => investor()));
        const { edits, expected } = editsOver(investors, 200, 'drill');
        const ledgerPid = cluster.pid('ledger');
        const { doneAtKill, retried } = await editsThroughKill(
          edits,
          () => admin,
          () => cluster.kill('ledger'),
        );
        expect(doneAtKill).toBeLessThan(200);
        expect(cluster.pid('ledger')).not.toBe(ledgerPid); // the supervisor restarted it
        // how many attempts the client repeated depends on timing (calls waiting for the ledger's port may
        // get through once it is back without an error reaching the client); what must hold is below
        console.log(
          `ledger kill drill: ${retried} client retries, ${200 - doneAtKill} commands after the kill`,
        );
        // an admin edit adds to Total Profit (totalMaturityAmount)
        for (const u of investors)
          await waitForBalances(u.browser, { balance: 0, totalMaturityAmount: expected.get(u.id)! }, SLOW);
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'kill -9 notification while emails are pending: every email is sent exactly once',
      { timeout: 180_000 },
      async () => {
        const browsers = Array.from({ length: 15 }, () => new HttpSession(B));
        const emails = browsers.map(() => `drill.${randomUUID().slice(0, 8)}@example.com`);
        const registered = await Promise.all(
          browsers.map((b, i) =>
            b.post('/api/users/register', {
              name: 'Drill User',
              email: emails[i],
              password: 'Passw0rd!',
              phone: '+15550100',
              country: 'Germany',
            }),
          ),
        );
        for (const r of registered) expect(r.status).toBe(201);
        const pid = cluster.pid('notification');
        await cluster.kill('notification');
        await waitFor(
          () => cluster.pid('notification') !== undefined && cluster.pid('notification') !== pid,
          { ...SLOW, message: 'notification restarted' },
        );
        await cluster.waitReady('notification');
        for (const email of emails) {
          await waitFor(async () => (await listMail(A, email)).length > 0, {
            ...SLOW,
            message: `mail to ${email}`,
          });
        }
        for (const email of emails) {
          const got = await listMail(A, email);
          expect(
            got.filter((m) => m.links.some((l) => l.includes('/verify/'))),
            email,
          ).toHaveLength(1);
        }
        users.push(
          ...registered.map((r, i) => ({
            email: emails[i],
            password: 'Passw0rd!',
            id: r.body._id as string,
            browser: browsers[i],
          })),
        );
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'kill -9 the ledger while users register: their balance edits answer 2xx or 503 (never another 4xx) and apply once',
      { timeout: 180_000 },
      async () => {
        const register = async () => {
          const browser = new HttpSession(A);
          const email = `late.${randomUUID().slice(0, 8)}@example.com`;
          const r = await browser.post('/api/users/register', {
            name: 'Late User',
            email,
            password: 'Passw0rd!',
            phone: '+15550100',
            country: 'Germany',
          });
          expect(r.status).toBe(201);
          return { email, password: 'Passw0rd!', id: r.body._id as string, browser };
        };
        const statuses: number[] = [];
        /** The admin's credit of $10, repeated with the same Idempotency-Key while the answer is 503. */
        const credit = async (userId: string) => {
          const key = `late-credit-${userId}`;
          for (;;) {
            const r = await admin.put(
              `/api/users/editDepositBalance/${userId}`,
              { operation: 'add', amount: '10' },
              { headers: { 'Idempotency-Key': key } },
            );
            statuses.push(r.status);
            if (r.status !== 503) return r;
            const retryAfter = Number(r.headers.get('retry-after'));
            expect(retryAfter).toBeGreaterThan(0);
            await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000)); // as the answer asks
          }
        };
        const pid = cluster.pid('ledger');
        await cluster.kill('ledger');
        const during = await Promise.all(Array.from({ length: 10 }, register));
        const crediting = during.map((u) => credit(u.id));
        await waitFor(() => cluster.pid('ledger') !== undefined && cluster.pid('ledger') !== pid, {
          ...SLOW,
          message: 'ledger restarted',
        });
        const after = await Promise.all(Array.from({ length: 10 }, register));
        crediting.push(...after.map((u) => credit(u.id)));
        const answers = await Promise.all(crediting);
        for (const a of answers) expect(a.status).toBe(200);
        expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
        console.log(
          `ledger restart drill: ${statuses.length} balance edits sent for 20 users, ${statuses.filter((s) => s === 503).length} answered 503`,
        );
        for (const u of [...during, ...after]) await waitForBalances(u.browser, { balance: 10 }, SLOW);
        users.push(...during, ...after);
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      "kill -9 the gateway an investor's socket is on: it resumes on the other gateway and misses nothing",
      { timeout: 180_000 },
      async () => {
        const inv = await investor();
        const live = await socket(A, inv.browser);
        const first = await requestDeposit(inv.browser, 100);
        await confirmDeposit(admin, first);
        await balancePushed(live, 100, 'first push');
        const seen = live.lastPosition();
        expect(seen).not.toBeNull();

        await cluster.kill('gateway-a');
        live.close();
        // while the investor is away: two more deposits confirmed on B
        const onB = on(B, inv.browser);
        for (const amount of [50, 25]) await confirmDeposit(admin, await requestDeposit(onB, amount));
        await waitForBalances(onB, { balance: 175 }, SLOW);

        const resumed = await socket(B, onB, seen);
        await balancePushed(resumed, 175, 'missed pushes replayed on B');
        expect(resumed.pushes.some((p) => p.event === 'live/resync')).toBe(false);
        const replayed = resumed.pushes
          .filter((p) => p.event === 'balances/changed')
          .map((p) => (p.payload.balances as { balance: number }).balance);
        expect(replayed).toEqual([150, 175]);
        const positions = resumed.pushes
          .map((p) => p.payload.position)
          .filter((p): p is string => typeof p === 'string');
        expect(new Set(positions).size).toBe(positions.length); // no duplicate
        await cluster.waitReady('gateway-a'); // supervised: back
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'restart the Kafka broker mid-flow: decisions made during the outage reach identity, emails and sockets after it',
      { timeout: 240_000 },
      async () => {
        const inv = await investor();
        const live = await socket(A, inv.browser);
        const deposits = await Promise.all([120, 130].map((amount) => requestDeposit(inv.browser, amount)));
        await cluster.broker!.stop();
        // the services keep answering: the decisions land in their stores and outboxes
        for (const id of deposits) await confirmDeposit(admin, id);
        await cluster.broker!.start();
        await waitForBalances(inv.browser, { balance: 250 }, SLOW);
        await balancePushed(live, 250, 'push after the outage');
        await waitFor(async () => (await mails(inv.email, 'Your deposit was confirmed')).length >= 2, {
          ...SLOW,
          message: 'deposit emails',
        });
        expect(await mails(inv.email, 'Your deposit was confirmed')).toHaveLength(2);
        await expectClusterInvariants(cluster, users, 120_000);
      },
    );
  },
);
