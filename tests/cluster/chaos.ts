/**
 * The nemesis of `make chaos` (tests/cluster/chaos.int.spec.ts): a mixed workload on both gateways of the
 * cluster while processes are killed, and the model the workload keeps of what must have happened.
 *
 * - Workload: sign-ups, and investors each running episodes (deposit → confirm → invest → approve → matures;
 *   KYC upload → approve; withdraw → approve; an admin's balance edit), several at once, on either gateway, two
 *   admins deciding. Every command is sent until it has a definite answer: a 503, 502 or 504, or a connection
 *   that failed, is sent again (the same Idempotency-Key, on the other gateway when one is down); a decision
 *   answered "already been …" after an earlier attempt got no answer counts as applied. Any other answer is an
 *   anomaly.
 * - Nemesis: 10-30 s after the last fault was recovered from, a random process is killed with SIGKILL (each
 *   service, each gateway; the supervisor restarts them), or the Kafka broker is killed and started again, or
 *   the cluster's own Redis is restarted (its append-only file: sessions, claims and live logs survive it).
 * - The model: each investor's Deposit Balance, Total Investment and Total Profit after every accepted command
 *   applied exactly once, and nothing refused applied.
 */
import { randomUUID } from 'node:crypto';
import { HttpSession, type HttpResult } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser } from '@meridian/gateway/testing/composition';
import { SERVICES, type Cluster, type ProcessName } from '../../scripts/cluster/cluster.js';
import { testPng } from '@meridian/platform/testing/testImage';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const RETRIED = new Set([502, 503, 504]);
const KYC_PNG = testPng();

export interface ChaosReport {
  faults: string[];
  commands: number;
  retries: number;
  anomalies: string[];
  investors: Array<{ id: string; browser: HttpSession; expected: ExpectedBalances }>;
}

export interface ExpectedBalances {
  balance: number;
  investmentBalance: number;
  totalMaturityAmount: number;
}

const cents = (dollars: number) => Math.round(dollars * 100);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/** Waits `ms`, or less when `stop` is set meanwhile (checked every 100 ms). */
async function pause(ms: number, stop: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until && !stop())
    await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
}

export async function runChaos(options: {
  cluster: Cluster;
  minutes: number;
  /** Restarts the Redis the cluster uses (shutdown, then start again). */
  restartRedis: () => Promise<void>;
  log: (line: string) => void;
}): Promise<ChaosReport> {
  const { cluster, log } = options;
  const urls = cluster.urls;
  const report: ChaosReport = { faults: [], commands: 0, retries: 0, anomalies: [], investors: [] };
  const anomaly = (what: string) => {
    report.anomalies.push(what);
    log(`ANOMALY ${what}`);
  };

  /** The same person's session on a gateway (cookies copied: sessions live in identity, not in a gateway). */
  const on = (url: string, from: HttpSession) => {
    const s = new HttpSession(url);
    for (const [k, v] of from.cookies) s.cookies.set(k, v);
    return s;
  };

  /**
   * Sends a command until it has a definite answer (see the header): the answer when `ok`; 'settled' when
   * `settled` accepts it (applied by an attempt whose answer was lost, or an expected refusal: the caller knows
   * which); null for an anomaly.
   */
  async function command(
    what: string,
    who: HttpSession,
    send: (s: HttpSession) => Promise<HttpResult>,
    ok: (r: HttpResult) => boolean,
    settled: (r: HttpResult, retried: boolean) => boolean = () => false,
  ): Promise<HttpResult | 'settled' | null> {
    report.commands++;
    let url = who.baseUrl;
    let retried = false;
    const deadline = Date.now() + 300_000;
    for (;;) {
      let r: HttpResult | undefined;
      try {
        r = await send(url === who.baseUrl ? who : on(url, who));
      } catch {
        r = undefined; // the gateway went away mid-request: its outcome is unknown
      }
      if (r && ok(r)) return r;
      if (r && settled(r, retried)) return 'settled';
      if (r && !RETRIED.has(r.status)) {
        anomaly(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        return null;
      }
      if (Date.now() > deadline) {
        anomaly(`${what}: no definite answer within 300 s`);
        return null;
      }
      report.retries++;
      retried = true;
      if (!r) url = urls[(urls.indexOf(url as (typeof urls)[number]) + 1) % urls.length]!;
      await new Promise((res) => setTimeout(res, r ? 500 : 250));
    }
  }
  /** A decision answered "already been …" after an attempt whose answer was lost: that attempt decided it. */
  const alreadyDecided = (r: HttpResult, retried: boolean) =>
    retried && (r.status === 409 || r.status === 400) && /already been/.test(String(r.body?.message));
  const answered = (r: HttpResult | 'settled' | null): r is HttpResult => r !== null && r !== 'settled';

  /**
   * A setup step (a sign-in, a new verified user) tried again while the cluster answers it 502, 503 or 504 or
   * drops the connection (warming up on a busy machine, or a fault): at most two minutes. Each try of
   * verifiedUser registers a new person, so a lost answer leaves a stranger behind and nothing doubled.
   */
  async function untilAvailable<T>(what: string, step: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        return await step();
      } catch (err) {
        const passing = /\b50[234]\b|ECONNREFUSED|ECONNRESET|socket hang up|fetch failed/.test(String(err));
        if (!passing || Date.now() > deadline) throw new Error(`${what}: ${String(err)}`, { cause: err });
        report.retries++;
        await new Promise((res) => setTimeout(res, 500));
      }
    }
  }

  // two admins: the cluster's first, and one it promotes
  const adminA = new HttpSession(urls[1]);
  await untilAvailable('the first admin signs in', () =>
    signIn(adminA, cluster.admin.email, cluster.admin.password),
  );
  const second = await untilAvailable('the second admin registers', () => verifiedUser(urls[0]));
  await untilAvailable('the second admin is promoted', async () => {
    const promoted = await adminA.post('/api/users/upgradeUser', { id: second.id, role: 'admin' });
    if (promoted.status !== 200) throw new Error(`promoting the second admin: ${promoted.status}`);
  });
  const adminB = new HttpSession(urls[0]);
  await untilAvailable('the second admin signs in', () => signIn(adminB, second.email, second.password));
  const admins = [adminA, adminB];

  let stopping = false;
  const endsAt = Date.now() + options.minutes * 60_000;
  const over = () => stopping || Date.now() >= endsAt;

  /** Starts the killed broker again; a JVM recovering its logs on a busy machine may need a second try. */
  async function startBroker() {
    for (let attempt = 1; ; attempt++) {
      try {
        return await cluster.broker!.start();
      } catch (err) {
        if (attempt >= 3) throw err;
        log(`broker start ${attempt} failed, again: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  }

  async function nemesis() {
    const targets: Array<ProcessName | 'kafka' | 'redis'> = [
      ...SERVICES,
      'gateway-a',
      'gateway-b',
      'kafka',
      'redis',
    ];
    while (!over()) {
      await pause(between(10_000, 30_000), over);
      if (over()) return;
      const target = pick(targets);
      const at = new Date().toISOString();
      try {
        if (target === 'kafka') {
          await cluster.broker!.kill();
          report.faults.push(`${at} ${target}`);
          await startBroker();
        } else if (target === 'redis') {
          await options.restartRedis();
          report.faults.push(`${at} ${target}`);
        } else {
          await cluster.kill(target);
          report.faults.push(`${at} ${target}`);
          await cluster.waitReady(target, 180_000); // the supervisor restarts it
        }
        log(
          `nemesis: ${target} ${target === 'redis' ? 'restarted' : 'killed'}, back after ${Date.now() - Date.parse(at)} ms`,
        );
      } catch (err) {
        anomaly(`nemesis could not fault ${target}: ${(err as Error).message}`);
      }
    }
  }

  async function signUps() {
    while (!over()) {
      const browser = new HttpSession(pick(urls));
      const email = `chaos.${randomUUID().slice(0, 8)}@example.com`;
      await command(
        'register',
        browser,
        (s) =>
          s.post('/api/users/register', {
            name: 'Chaos Visitor',
            email,
            password: 'Passw0rd!',
            phone: '+15550100',
            country: 'Germany',
          }),
        (r) => r.status === 201,
        // the first attempt registered them, its answer was lost
        (r, retried) => retried && r.status === 409 && /already registered/.test(String(r.body?.message)),
      );
      await pause(between(2_000, 6_000), over);
    }
  }

  async function investor(index: number) {
    const user = await untilAvailable(`investor ${index} registers`, () => verifiedUser(urls[index % 2]!));
    const expected: ExpectedBalances = { balance: 0, investmentBalance: 0, totalMaturityAmount: 0 };
    report.investors.push({ id: user.id, browser: user.browser, expected });
    let kyc = false;
    const money = { balance: 0, profit: 0 };
    const admin = () => pick(admins);
    while (!over()) {
      // deposit → confirm
      const amount = between(200, 600);
      const created = await command(
        'deposit',
        user.browser,
        keyedRequest('d', 'POST', '/api/payments/create', { amount }),
        (r) => r.status === 201,
      );
      if (answered(created)) {
        const id = created.body.transactionId as string;
        const decided = await command(
          'confirm deposit',
          admin(),
          (s) => s.patch('/api/payments/confirmPayment', { transactionId: id, status: 'Confirmed' }),
          (r) => r.status === 200,
          alreadyDecided,
        );
        if (decided !== null) money.balance += cents(amount);
      }
      // invest → approve (the Starter plan matures in 1.2 s)
      const invest = Math.min(500, Math.floor(money.balance / 100));
      if (invest >= 100) {
        const started = await command(
          'invest',
          user.browser,
          keyedRequest('i', 'POST', '/api/invest/start-invest', {
            amount: String(invest),
            planName: 'Starter',
          }),
          (r) => r.status === 201,
        );
        if (answered(started)) {
          money.balance -= cents(invest);
          const id = started.body.investment._id as string;
          const approved = await command(
            'approve investment',
            admin(),
            (s) => s.put(`/api/invest/${id}/approve`),
            (r) => r.status === 200,
            alreadyDecided,
          );
          if (approved !== null) money.profit += Math.round(cents(invest) * 1.12);
        }
      }
      // KYC once
      if (!kyc) {
        const form = () => {
          const f = new FormData();
          for (const side of ['front', 'back'])
            f.append(side, new Blob([new Uint8Array(KYC_PNG)], { type: 'image/png' }), `${side}.png`);
          return f;
        };
        const uploaded = await command(
          'kyc upload',
          user.browser,
          (s) => s.postForm('/api/users/uploadKycDocuments', form()),
          (r) => r.status === 200,
          (r, retried) => retried && r.status === 409 && /already under review/.test(String(r.body?.message)),
        );
        if (uploaded !== null)
          kyc =
            (await command(
              'kyc approve',
              admin(),
              (s) => s.patch(`/api/users/kyc/approve/${user.id}`),
              (r) => r.status === 200,
              alreadyDecided,
            )) !== null;
      }
      // withdraw → approve, from what has matured
      const withdraw = Math.floor(money.profit / 200);
      if (kyc && withdraw >= 10) {
        const requested = await command(
          'withdraw',
          user.browser,
          keyedRequest('w', 'POST', '/api/withDraw/create', {
            amount: String(withdraw),
            walletAddress: WALLET,
          }),
          (r) => r.status === 201,
          // refused, nothing moved: the maturity has not reached Total Profit yet, or the KYC approval has not
          // reached the withdrawal service yet (both arrive as events)
          (r) =>
            r.status === 400 &&
            /insufficient|KYC verification must be approved/i.test(String(r.body?.message)),
        );
        if (answered(requested)) {
          money.profit -= cents(withdraw);
          const id = requested.body.withdrawal._id as string;
          await command(
            'approve withdrawal',
            admin(),
            (s) => s.put(`/api/withDraw/approve/${id}`),
            (r) => r.status === 200,
            alreadyDecided,
          );
        }
      }
      // an admin's balance edit: $1 on the Deposit Balance
      const edited = await command(
        'balance edit',
        admin(),
        keyedRequest('e', 'PUT', `/api/users/editDepositBalance/${user.id}`, {
          operation: 'add',
          amount: '1',
        }),
        (r) => r.status === 200,
      );
      if (edited !== null) money.balance += 100;
      expected.balance = money.balance / 100;
      expected.totalMaturityAmount = money.profit / 100;
      await pause(between(500, 2_000), over);
    }
  }

  await Promise.all([nemesis(), signUps(), ...Array.from({ length: 4 }, (_, i) => investor(i))]).finally(
    () => {
      stopping = true;
    },
  );
  return report;
}

/**
 * A command's send for one user intent: its Idempotency-Key (`prefix`-…) is made once, here, so every retry of
 * that intent sends the same one.
 */
function keyedRequest(prefix: string, method: 'POST' | 'PUT', path: string, body: Record<string, unknown>) {
  const key = `${prefix}-${randomUUID()}`;
  return (s: HttpSession) => s.request(method, path, { body, headers: { 'Idempotency-Key': key } });
}
