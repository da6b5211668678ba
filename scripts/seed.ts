/**
 * `make seed USERS=100000 POSTINGS=1000000`: fills the standalone's store (DATA_DIR, default data) through
 * the services' own gRPC commands, never SQL: users register with identity (every seeded user shares ONE
 * argon2 hash of the seed password, computed once: 100,000 real hashes take hours), and postings go through
 * the ledger's AdjustBalance (an admin's credit to the user's deposit balance), every 20th as a deposit the
 * user requests (CreateDeposit), left pending so the admin queue has items. Then every QUEUE_EVERY-th user
 * (default 10) fills the other queues and histories through their own services: an investment it starts
 * (investment StartInvest, Starter $100, held and left pending), a withdrawal it requests (withdrawal
 * RequestWithdrawal of $50, after an admin's credit of its Total Profit; left pending), and KYC documents it
 * uploads (kyc's upload endpoint, two tiny sample files; left pending). The seed calls the services as the
 * gateway does, giving the facts the gateway would take from identity (verified email, KYC Approved for
 * the withdrawal).
 *
 * Resumable and idempotent: users are `seed-<n>@seed.meridian.local` (a re-run finds the ones already there
 * in DATA_DIR/seed-progress.json, and an email already registered is skipped), every posting carries the
 * idempotency key `seed-<kind>-<n>` (a retry answers without moving money again).
 *
 *   tsx scripts/seed.ts          env USERS (default 1000), POSTINGS (default 10 x USERS), QUEUE_EVERY (10),
 *                                DATA_DIR, SEED_CONCURRENCY (128)
 *
 * The services run in this process (startStandalone) while it seeds, and the seed calls their handlers
 * directly (the in-process gRPC transport the standalone's gateway uses); `make start` on the same
 * DATA_DIR serves the result. Prints progress, the rate and the process's CPU time per item of each
 * phase, and the process's RSS at the end.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash, verify } from '@node-rs/argon2';
import Database from 'better-sqlite3';
import { openSecret } from '@meridian/platform/crypto';
import { startStandalone } from '@meridian/standalone';
import * as grpc from '@grpc/grpc-js';
import { callUnary as callOnce, createGrpcClient } from '@meridian/platform/grpc/client';
import { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import {
  AdjustmentOperation,
  BalanceAccount,
  LedgerServiceClient,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';

const USERS = Number(process.env.USERS ?? 1000);
const POSTINGS = Number(process.env.POSTINGS ?? USERS * 10);
/** Calls in flight: more of them share each group commit (0.71 CPU ms per posting at 32, 0.5 at 100-200). */
const CONCURRENCY = Number(process.env.SEED_CONCURRENCY ?? 128);
/** Every QUEUE_EVERY-th seeded user has a pending investment, withdrawal and KYC submission. */
const QUEUE_EVERY = Math.max(1, Number(process.env.QUEUE_EVERY ?? 10));
/** Two valid document files (kyc checks the bytes): a PNG front and a PDF back, a few bytes each. */
const KYC_FRONT = Buffer.from([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  13,
  ...Buffer.from('IHDR'),
  ...Buffer.alloc(64),
]);
const KYC_BACK = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64)]);
/**
 * A user's postings follow each other (postings i..i+RUN-1 go to one user): the commands in flight together
 * touch a few users, so the ledger's group commit writes each one's state and balances once per group and
 * the consumers (identity's user view, the live pushes) handle each user once per batch. 10 is what
 * USERS x 10 postings gives each user.
 */
const RUN = 10;
const DATA_DIR = process.env.DATA_DIR ?? 'data';
const PASSWORD = process.env.SEED_PASSWORD ?? 'Seed-pass-1';
/** The acting admin of the seeded balance credits (maker-checker: never one of the seeded users). */
const SEED_ADMIN = 'seed-admin';

const emailOf = (n: number) => `seed-${n}@seed.meridian.local`;
const progressFile = join(DATA_DIR, 'seed-progress.json');

interface Progress {
  /** user ids by seed number (index n-1) */
  users: Array<string | null>;
  /** postings done: 1..postings */
  postings: number;
  /** queue items done (users whose investment, withdrawal and KYC were made), by seeded-user index */
  queued?: number;
}

function loadProgress(): Progress {
  if (!existsSync(progressFile)) return { users: [], postings: 0 };
  return JSON.parse(readFileSync(progressFile, 'utf8')) as Progress;
}

const saveProgress = (p: Progress) => writeFileSync(progressFile, JSON.stringify(p));

/** Runs `work(i)` for i in [from, to) with `concurrency` in flight, reporting every `every`. */
async function pool(
  label: string,
  from: number,
  to: number,
  work: (i: number) => Promise<void>,
  onProgress: (done: number) => void,
): Promise<void> {
  let next = from;
  let done = 0;
  const started = Date.now();
  const cpuStarted = process.cpuUsage();
  let lastReport = started;
  const report = (final = false) => {
    const now = Date.now();
    if (!final && now - lastReport < 2_000) return;
    lastReport = now;
    const rate = done / Math.max(0.001, (now - started) / 1000);
    const left = to - from - done;
    const cpu = process.cpuUsage(cpuStarted);
    const cpuMs = (cpu.user + cpu.system) / 1000 / Math.max(1, done);
    console.log(
      `${label}: ${from + done}/${to}  ${rate.toFixed(0)}/s  CPU ${cpuMs.toFixed(2)} ms each` +
        (final
          ? `  in ${((now - started) / 1000).toFixed(1)} s`
          : `  ~${(left / Math.max(rate, 1)).toFixed(0)} s left`),
    );
    onProgress(from + done);
  };
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, Math.max(0, to - from)) }, async () => {
      while (next < to) {
        const i = next++;
        await work(i);
        done++;
        report();
      }
    }),
  );
  report(true);
}

/**
 * Signs the first admin in once with an emailed code (read from identity's own event, sealed with the
 * store's SECRETS_KEY: the mail waits behind the seeded users' verification emails) and keeps the browser
 * token it then trusts in DATA_DIR/seed-admin.json: `make bench` (bench/lists.ts) logs the admin in with
 * its password from that browser, with no code.
 */
async function trustAdminDevice(identity: IdentityServiceClient): Promise<void> {
  const secrets = JSON.parse(readFileSync(join(DATA_DIR, 'secrets.json'), 'utf8')) as Record<string, string>;
  const email = secrets.ADMIN_EMAIL ?? '';
  await callUnary(identity, 'sendLoginCode', { email, correlationId: randomUUID(), clientIp: '' });
  const db = new Database(join(DATA_DIR, 'identity.sqlite'), { readonly: true });
  const row = db
    .prepare<[], { data: string }>(
      "SELECT data FROM events WHERE type = 'LoginCodeRequested' ORDER BY position DESC LIMIT 1",
    )
    .get();
  db.close();
  const code = openSecret(
    (JSON.parse(row?.data ?? '{}') as { sealedCode?: string }).sealedCode ?? '',
    secrets.SECRETS_KEY!,
  );
  const auth = await callUnary(identity, 'loginWithCode', {
    email,
    loginCode: code,
    deviceToken: '',
    correlationId: randomUUID(),
    clientIp: '',
  });
  writeFileSync(join(DATA_DIR, 'seed-admin.json'), JSON.stringify({ email, deviceToken: auth.deviceToken }), {
    mode: 0o600,
  });
  console.log(`the admin ${email} trusts a bench browser (DATA_DIR/seed-admin.json)`);
}

/**
 * callUnary with the patience of a bulk load: a deadline of two minutes (hundreds of calls queue behind
 * each other), and the same request again after a deadline or an unavailable server (every seeded command
 * is idempotent: its key, its id, or an "already" answer).
 */
const callUnary: typeof callOnce = async (client, method, request, options = {}) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await callOnce(client, method, request, { deadlineMs: 120_000, ...options });
    } catch (err) {
      const code = (err as { code?: number }).code;
      const transient = code === grpc.status.DEADLINE_EXCEEDED || code === grpc.status.UNAVAILABLE;
      if (!transient || attempt >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
};

/**
 * Waits until every consumer group of the in-process bus (DATA_DIR/bus.sqlite, read-only) has handled every
 * event of its topics: the seed ends with the projections, user views and audit caught up, so the first
 * start on the store is not minutes of catching up (a bus that is not that file: nothing to wait for).
 */
async function consumersCaughtUp(timeoutMs = 30 * 60_000): Promise<void> {
  const file = join(DATA_DIR, 'bus.sqlite');
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true });
  const behind = db.prepare<[], { n: number | null }>(
    `SELECT SUM((SELECT MAX("offset") FROM messages m WHERE m.topic = g.topic) - g."offset") AS n
     FROM group_offsets g`,
  );
  const started = Date.now();
  let reported = 0;
  // a group that no longer runs (a consumer of an older version) never moves: not waited for past 30 s
  let least = Infinity;
  let movedAt = started;
  try {
    for (;;) {
      const n = behind.get()?.n ?? 0;
      if (n < least) [least, movedAt] = [n, Date.now()];
      const stuck = Date.now() - movedAt > 30_000 || Date.now() - started > timeoutMs;
      if (n <= 0 || stuck) {
        console.log(
          `consumers: ${n <= 0 ? 'caught up' : `${n} events behind, gave up`} after ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
        return;
      }
      if (Date.now() - reported >= 5_000) {
        reported = Date.now();
        console.log(`consumers: ${n} events behind`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    db.close();
  }
}

/** A seed step a re-run may repeat: an answer that it was already done is fine. */
async function tolerateDone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (!/already|exists/i.test((err as { details?: string }).details ?? '')) throw err;
  }
}

/** The user's KYC documents through kyc's upload endpoint (as the gateway proxies them); once per user. */
async function uploadKyc(kycHttpUrl: string, token: string, userId: string, i: number): Promise<void> {
  const form = new FormData();
  form.append('front', new Blob([KYC_FRONT]), 'front.png');
  form.append('back', new Blob([KYC_BACK]), 'back.pdf');
  const res = await fetch(`${kycHttpUrl}/upload`, {
    method: 'POST',
    body: form,
    headers: {
      'x-internal-token': token,
      'x-correlation-id': randomUUID(),
      'x-user-id': userId,
      'x-user-role': 'subscriber',
      'x-user-verified': 'true',
      'x-user-name': encodeURIComponent(`Seed User q${i}`),
      'x-user-email': encodeURIComponent(`seed-q${i}@seed.meridian.local`),
    },
  });
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  if (res.status !== 200 && !/already/i.test(body.message ?? ''))
    throw new Error(`KYC upload for ${userId}: HTTP ${res.status} ${body.message ?? ''}`);
}

async function main() {
  mkdirSync(DATA_DIR, { recursive: true });
  const progress = loadProgress();
  // ONE real argon2id hash of the seed password; every seeded user stores it (the accounts log in with it).
  const sharedHash = await hash(PASSWORD, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  const lots = { max: 1e9, windowMs: 60_000 };
  const standalone = await startStandalone({
    dataDir: DATA_DIR,
    env: { ...process.env, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    identity: {
      passwordHasher: {
        hash: async (password) =>
          password === PASSWORD
            ? sharedHash
            : hash(password, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }),
        verify: async (stored, password) => verify(stored, password).catch(() => false),
      },
      rateLimits: { registerPerEmail: lots, registerPerClient: lots },
    },
  });
  // the seed calls the services as the standalone's gateway does: their handlers in this process directly
  const inProcess = { inProcess: true, caller: 'gateway' };
  const identity = createGrpcClient(IdentityServiceClient, standalone.identityAddress, inProcess);
  const ledger = createGrpcClient(LedgerServiceClient, standalone.money.ledger.grpcAddress, inProcess);
  const investment = createGrpcClient(
    InvestmentServiceClient,
    standalone.money.investment.grpcAddress,
    inProcess,
  );
  const withdrawal = createGrpcClient(
    WithdrawalServiceClient,
    standalone.money.withdrawal.grpcAddress,
    inProcess,
  );
  const t0 = Date.now();
  try {
    // ---- users (identity's Register) ----
    const firstHole = progress.users.findIndex((u) => u === null || u === undefined);
    await pool(
      'users',
      firstHole === -1 ? progress.users.length : firstHole,
      USERS,
      async (i) => {
        const n = i + 1;
        try {
          const out = await callUnary(identity, 'register', {
            name: `Seed User ${n}`,
            email: emailOf(n),
            password: PASSWORD,
            phone: '+254700000000',
            country: 'Kenya',
            referralCode: '',
            deviceToken: '',
            correlationId: randomUUID(),
            clientIp: '',
          });
          progress.users[i] = out.user!.id;
        } catch (err) {
          if ((err as { code?: number }).code !== grpc.status.ALREADY_EXISTS) throw err;
          progress.users[i] = ''; // registered by an earlier, interrupted run: no postings for it
        }
      },
      () => saveProgress(progress),
    );
    saveProgress(progress);

    // ---- postings (the ledger's AdjustBalance; every 20th a pending deposit) ----
    const users = progress.users.filter(Boolean);
    if (users.length === 0) throw new Error('no seeded user to post to');
    await pool(
      'postings',
      progress.postings,
      POSTINGS,
      async (i) => {
        const userId = users[Math.floor(i / RUN) % users.length]!;
        const correlationId = randomUUID();
        if (i % 20 === 19) {
          await callUnary(ledger, 'createDeposit', {
            caller: { userId, sessionId: '', impersonatorId: '', correlationId },
            callerRole: 'subscriber',
            amount: String(50 + (i % 500)),
            emailVerified: true,
            idempotencyKey: `seed-deposit-${i}`,
          });
        } else {
          await callUnary(ledger, 'adjustBalance', {
            caller: { userId: SEED_ADMIN, sessionId: '', impersonatorId: '', correlationId },
            callerRole: 'admin',
            userId,
            account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
            operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
            amount: `${1 + (i % 997)}.${String(i % 100).padStart(2, '0')}`,
            reason: 'seed',
            idempotencyKey: `seed-adjust-${i}`,
          });
        }
      },
      (done) => {
        // the ones below may still be in flight: a re-run redoes them (idempotency keys) rather than skips
        progress.postings = Math.max(progress.postings, done - CONCURRENCY);
        saveProgress(progress);
      },
    );
    progress.postings = Math.max(progress.postings, POSTINGS);
    saveProgress(progress);

    // ---- the other queues and histories: investments, withdrawals, KYC (every QUEUE_EVERY-th user) ----
    const secrets = JSON.parse(readFileSync(join(DATA_DIR, 'secrets.json'), 'utf8')) as Record<
      string,
      string
    >;
    const queued = users.filter((_, i) => i % QUEUE_EVERY === QUEUE_EVERY - 1);
    await pool(
      'queues',
      progress.queued ?? 0,
      queued.length,
      async (i) => {
        const userId = queued[i]!;
        const caller = { userId, sessionId: '', impersonatorId: '', correlationId: randomUUID() };
        const person = { caller, callerRole: 'subscriber', callerVerified: true };
        const credit = (account: BalanceAccount, amount: string, key: string) =>
          callUnary(ledger, 'adjustBalance', {
            caller: { ...caller, userId: SEED_ADMIN },
            callerRole: 'admin',
            userId,
            account,
            operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
            amount,
            reason: 'seed',
            idempotencyKey: key,
          });
        // three strands of its own: the $100 it invests and the $60 of Total Profit it withdraws from (an
        // admin's credits to different accounts, each before the request that needs it), and its documents
        await Promise.all([
          (async () => {
            await credit(BalanceAccount.BALANCE_ACCOUNT_DEPOSIT, '100', `seed-fund-${i}`);
            await tolerateDone(
              callUnary(investment, 'startInvest', {
                ...person,
                planName: 'Starter',
                amount: '100',
                investmentId: `seed-invest-${i}`,
              }),
            );
          })(),
          (async () => {
            await credit(BalanceAccount.BALANCE_ACCOUNT_PROFIT, '60', `seed-profit-${i}`);
            await tolerateDone(
              callUnary(withdrawal, 'requestWithdrawal', {
                ...person,
                callerKycStatus: 'Approved',
                amount: '50',
                walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
                withdrawalId: `seed-withdraw-${i}`,
              }),
            );
          })(),
          uploadKyc(standalone.kycHttpUrl, secrets.KYC_INTERNAL_TOKEN ?? '', userId, i),
        ]);
      },
      (done) => {
        progress.queued = Math.max(progress.queued ?? 0, done - CONCURRENCY);
        saveProgress(progress);
      },
    );
    progress.queued = queued.length;
    saveProgress(progress);
    await standalone.money.flushOutboxes(120_000).catch(() => undefined);
    await consumersCaughtUp();
    await trustAdminDevice(identity);
    const rss = process.memoryUsage().rss;
    console.log(
      `seeded ${USERS} users and ${POSTINGS} postings into ${DATA_DIR} in ${((Date.now() - t0) / 1000).toFixed(1)} s; RSS ${(rss / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    identity.close();
    ledger.close();
    investment.close();
    withdrawal.close();
    await standalone.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
