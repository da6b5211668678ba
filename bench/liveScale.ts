/**
 * Live pushes at scale (admin decision → investor push p50 ≤ 10 ms, p99 ≤ 25 ms while 10,000
 * sockets are connected and 50 decisions/s flow; the gateway's memory per connected socket).
 *
 * On a standalone target of its own (rate limits lifted for the registrations, METRICS_PORT for its heap):
 *   - `investors` verified investors, each with one measuring socket here and deposits asked for in
 *     advance; `users` more registered users (sessions only);
 *   - baseline: decisions at `rate` per second (admin PATCH api/payments/confirmPayment, open loop, round
 *     robin over the investors) with only the measuring sockets connected; the clock runs from just
 *     before the PATCH until the investor's measuring socket gets 'status/changed' for that deposit
 *     (and, second figure, 'balances/changed' showing it);
 *   - `sockets` more authenticated sockets held by `processes` child processes (bench/liveClients.ts),
 *     spread over the other users' sessions (~50 sockets per session by default: the rooms they join
 *     receive nothing here, as 10,000 users of whom 50 a second get a decision): the target's RSS (/proc)
 *     and V8 heap (its metrics) before and after = memory per socket;
 *   - the same decisions again with them all connected; the other users' sockets must have received
 *     none of the investors' pushes. One admin socket (the admins room gets its pushes too) throughout.
 * Fairness: 50 untimed decisions warm the target up before the baseline, and each phase starts once the
 * target's consumer groups have caught up (meridian_consumer_lag_events 0), not behind the setup's
 * backlog. The target's event-loop CPU (Linux /proc, its main thread) is read over each phase (% of the
 * wall time, and ms per decision: steadier than latency on a busy machine) and over a quiet window before
 * and after the sockets connect (what 10,000 idle sockets cost: heartbeats, session checks).
 */
import { benchNumber, type BenchNumberKnob } from './config.js';
import { readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { freePort } from '@meridian/platform/util/freePort';
import { sleep, startChild, type Child } from './children.js';
import { brief, registerInvestor, signIn, type BrowserSession } from './http.js';
import { latencyFigure, nowMs as now, round, type LatencyFigure } from './load.js';
import { liftedRateLimitsEnv, threadCpuMs } from './logins.js';
import { openSocket } from './socket.js';
import { startStandaloneTarget, type StandaloneTarget } from './standalone.js';

export interface LiveScalePhase {
  /** sockets connected to the gateway during the phase */
  sockets: number;
  decisions: number;
  /** decisions asked for per second (the achieved rate: decisions ÷ seconds) */
  achievedRate: number;
  toStatus: LatencyFigure;
  toBalances: LatencyFigure;
  http: LatencyFigure;
  failures: number;
  firstFailure?: string;
  /** the target's event loop (main thread): CPU time ÷ wall time over the phase, % (Linux /proc) */
  loopCpuPct?: number;
  /** the target's event loop CPU time over the phase ÷ decisions, ms (steadier than latency on a busy machine) */
  loopCpuMsPerDecision?: number;
}

export type LiveScaleResult =
  | { skipped: string }
  | {
      rate: number;
      baseline: LiveScalePhase;
      atScale: LiveScalePhase;
      connect: { wanted: number; connected: number; failed: number; seconds: number; firstError?: string };
      memory: {
        rssBeforeMb: number;
        rssAfterMb: number;
        heapBeforeMb: number;
        heapAfterMb: number;
        /** (after − before) ÷ sockets connected */
        rssPerSocketKb: number;
        heapPerSocketKb: number;
      };
      /**
       * The target's event loop with every socket connected and no decisions (heartbeats, session checks,
       * the services' timers): CPU time ÷ wall time over `idle.seconds`, %; and before the sockets came.
       */
      idle?: { seconds: number; loopCpuPctBefore: number; loopCpuPctAtScale: number };
      /** pushes the other users' sockets got during the scale phase: none of them was theirs (must be 0) */
      crossTalk: { statusChanged: number; balancesChanged: number };
    };

const AMOUNT = 10;

interface Investor {
  browser: BrowserSession;
  socket: Socket;
  deposits: string[];
  /** dollars confirmed so far (decisions sent) */
  expected: number;
  balance: number;
  pendingStatus: Map<string, (t: number) => void>;
  pendingBalance: Array<{ target: number; done: (t: number) => void }>;
}

export async function inBatches<T>(
  n: number,
  parallel: number,
  make: (i: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

export function sessionCookie(browser: BrowserSession): string {
  const v = browser.jar.get('meridian_session');
  if (!v) throw new Error('no session cookie after registering');
  return `meridian_session=${v}`;
}

/** The target's RSS (/proc) and V8 heap used (its Prometheus metrics), MB. */
async function memoryOf(pid: number, metricsUrl: string): Promise<{ rss: number; heap: number }> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  let heap = NaN;
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
    const m = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text);
    if (m) heap = Number(m[1]) / 2 ** 20;
  } catch {
    // no metrics: heap stays unknown
  }
  return { rss: rssKb / 1024, heap };
}

/**
 * Waits until every consumer group of the target has committed everything published (the sum of its
 * meridian_consumer_lag_events is 0 twice in a row), so a timed phase does not start behind the setup's
 * backlog (registrations, deposits: mails, projections). Bounded by `timeoutMs`; resolves with the seconds
 * waited, or NaN when the metric is not there (no metrics, or a bus without it).
 */
export async function untilQuiet(metricsUrl: string, timeoutMs = 120_000): Promise<number> {
  const t0 = now();
  let zeros = 0;
  for (;;) {
    let lag = NaN;
    try {
      const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
      const values = [...text.matchAll(/^meridian_consumer_lag_events(?:\{[^}]*\})? ([0-9.e+-]+)$/gm)];
      if (values.length) lag = values.reduce((a, m) => a + Number(m[1]), 0);
    } catch {
      // not readable now: try again until the deadline
    }
    if (lag === 0) zeros += 1;
    else zeros = 0;
    if (zeros >= 2) return round((now() - t0) / 1000, 1);
    if (now() - t0 > timeoutMs) return Number.isNaN(lag) ? NaN : round((now() - t0) / 1000, 1);
    await sleep(250);
  }
}

/** Raises the target's open-file soft limit to its hard limit when it is below `needed` (prlimit). */
export function ensureNofile(pid: number, needed: number): string {
  const read = () =>
    /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  const m = read();
  if (!m) return 'unknown';
  const soft = m[1] === 'unlimited' ? Infinity : Number(m[1]);
  if (soft >= needed) return m[1];
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${m[2]}:${m[2]}`]);
  } catch (err) {
    return `${m[1]} (raising failed: ${(err as Error).message})`;
  }
  return read()?.[1] ?? 'unknown';
}

/** Decisions at `rate`/s, open loop, round robin over the investors; resolves when every push arrived. */
async function decide(
  admin: BrowserSession,
  investors: Investor[],
  o: { rate: number; seconds: number; count: number; sockets: number; pid: number },
): Promise<LiveScalePhase> {
  const cpu0 = threadCpuMs(o.pid).main;
  const wall0 = now();
  const toStatus: number[] = [];
  const toBalances: number[] = [];
  const http: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const n = Math.min(o.count, Math.round(o.rate * o.seconds));
  const start = now();
  const inFlight: Array<Promise<void>> = [];
  for (let k = 0; k < n; k++) {
    const due = start + (k * 1000) / o.rate;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    const inv = investors[k % investors.length];
    const transactionId = inv.deposits.shift();
    if (!transactionId) break;
    inv.expected += AMOUNT;
    const target = inv.expected;
    const status = new Promise<number>((resolve) => inv.pendingStatus.set(transactionId, resolve));
    const balance = new Promise<number>((resolve) => inv.pendingBalance.push({ target, done: resolve }));
    inFlight.push(
      (async () => {
        // the admin's claim on the deposit (gateway/src/live/claims.ts), as opening it does: not timed
        await admin.post('/api/admin/claims', { kind: 'deposit', id: transactionId }).catch(() => undefined);
        const t0 = now();
        const decided = await admin
          .patch('/api/payments/confirmPayment', { transactionId, status: 'Confirmed', notes: 'bench' })
          .catch((err: unknown) => ({ status: 0, body: (err as Error).message }));
        const t1 = now();
        if (decided.status !== 200) {
          failures += 1;
          firstFailure ??= `PATCH confirmPayment: ${brief(decided)}`;
          inv.pendingStatus.delete(transactionId);
          return;
        }
        const timeout = sleep(10_000).then(() => NaN);
        const [ts, tb] = await Promise.all([
          Promise.race([status, timeout]),
          Promise.race([balance, timeout]),
        ]);
        if (Number.isNaN(ts) || Number.isNaN(tb)) {
          failures += 1;
          firstFailure ??= `no push within 10 s for deposit ${transactionId}`;
          return;
        }
        http.push(t1 - t0);
        toStatus.push(ts - t0);
        toBalances.push(tb - t0);
      })(),
    );
  }
  const sent = inFlight.length;
  const seconds = (now() - start) / 1000;
  await Promise.all(inFlight);
  const loopCpuMs = threadCpuMs(o.pid).main - cpu0;
  const loopCpuPct = round((loopCpuMs / (now() - wall0)) * 100, 1);
  const loopCpuMsPerDecision = round(loopCpuMs / Math.max(1, sent), 2);
  return {
    sockets: o.sockets,
    decisions: sent,
    achievedRate: round(sent / Math.max(seconds, 1e-3), 1),
    toStatus: latencyFigure('decision → status/changed', toStatus),
    toBalances: latencyFigure('decision → balances/changed', toBalances),
    http: latencyFigure('admin PATCH confirmPayment', http),
    failures,
    ...(firstFailure ? { firstFailure } : {}),
    ...(Number.isFinite(loopCpuPct) ? { loopCpuPct, loopCpuMsPerDecision } : {}),
  };
}

/** The target's event loop CPU ÷ wall over `seconds` of quiet, %. */
async function loopCpuOver(pid: number, seconds: number): Promise<number> {
  const c0 = threadCpuMs(pid).main;
  const t0 = now();
  await sleep(seconds * 1000);
  return round(((threadCpuMs(pid).main - c0) / (now() - t0)) * 100, 1);
}

/**
 * Spreads `count` sockets over up to `processes` client processes (startClients), each connecting with the
 * sessions in `cookieFile`.
 */
export function startSocketClients(
  url: string,
  cookieFile: string,
  count: number,
  processes: number,
): ClientProcess[] {
  const clients: ClientProcess[] = [];
  const share = Math.ceil(count / processes);
  for (let p = 0; p < processes; p++) {
    const n = Math.min(share, count - p * share);
    if (n <= 0) break;
    clients.push(
      startClients({
        LIVE_URL: url,
        LIVE_COOKIES: cookieFile,
        LIVE_COUNT: String(n),
        LIVE_PARALLEL: String(Math.max(1, Math.floor(100 / processes))),
      }),
    );
  }
  return clients;
}

/** Asks each client process (SIGUSR2) for the pushes its sockets received, and waits for every report. */
export function receivedByClients(
  clients: readonly ClientProcess[],
): Promise<Array<Record<string, unknown>>> {
  return Promise.all(
    clients.map((c) => {
      const r = c.waitFor('received', 10_000);
      c.child.process.kill('SIGUSR2');
      return r;
    }),
  );
}

/** The client processes' 'connected' reports together: sockets connected, sockets failed, the first error. */
export function connectedTotals(done: ReadonlyArray<Record<string, unknown>>): {
  connected: number;
  failed: number;
  firstError: string | undefined;
} {
  return {
    connected: done.reduce((a, m) => a + Number(m.connected ?? 0), 0),
    failed: done.reduce((a, m) => a + Number(m.failed ?? 0), 0),
    firstError: done.map((m) => m.firstError).find((e): e is string => typeof e === 'string' && e !== ''),
  };
}

/**
 * The admin opens (claims: POST api/admin/claims) the deposits the next phase decides, before it starts:
 * a decision needs its admin's claim (gateway/src/live/claims.ts). Untimed; skipped where the gateway has
 * no claims (404).
 */
async function claimNext(admin: BrowserSession, investors: Investor[], decisions: number): Promise<void> {
  const each = Math.ceil(decisions / investors.length);
  const ids = investors.flatMap((inv) => inv.deposits.slice(0, each));
  await inBatches(ids.length, 4, async (i) => {
    const res = await admin.post('/api/admin/claims', { kind: 'deposit', id: ids[i] });
    if (res.status !== 200 && res.status !== 201 && res.status !== 404)
      throw new Error(`POST api/admin/claims failed: ${brief(res)}`);
  });
}

function listen(inv: Investor): void {
  inv.socket.on('status/changed', (p: { kind?: string; id?: string; status?: string }) => {
    if (p?.kind !== 'deposit' || p.status !== 'Confirmed' || !p.id) return;
    const done = inv.pendingStatus.get(p.id);
    if (!done) return;
    inv.pendingStatus.delete(p.id);
    done(now());
  });
  inv.socket.on('balances/changed', (p: { balances?: { balance?: unknown } }) => {
    const t = now();
    inv.balance = Math.max(inv.balance, Number(p?.balances?.balance ?? 0));
    inv.pendingBalance = inv.pendingBalance.filter((w) => {
      if (inv.balance < w.target) return true;
      w.done(t);
      return false;
    });
  });
}

export interface ClientProcess {
  child: Child;
  lines: Array<Record<string, unknown>>;
  waitFor(type: string, timeoutMs: number): Promise<Record<string, unknown>>;
}

export function startClients(env: Record<string, string>): ClientProcess {
  const child = startChild(
    'bench/liveClients.ts',
    { ...process.env, ...env },
    { stdout: 'pipe', stderr: 'inherit' },
  );
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ type: string; done: (m: Record<string, unknown>) => void }> = [];
  let buf = '';
  child.process.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      lines.push(m);
      for (const w of waiters.splice(0)) {
        if (w.type === m.type || m.type === 'error') w.done(m);
        else waiters.push(w);
      }
    }
  });
  return {
    child,
    lines,
    waitFor: (type, timeoutMs) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((m) => m.type === type);
        if (seen && type !== 'received') return resolve(seen);
        const timer = setTimeout(
          () => reject(new Error(`client process: no '${type}' in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const done = (m: Record<string, unknown>) => {
          clearTimeout(timer);
          if (m.type === 'error') reject(new Error(`client process: ${String(m.message)}`));
          else resolve(m);
        };
        waiters.push({ type, done });
        child.process.once('exit', (code) => done({ type: 'error', message: `exited with ${code}` }));
      }),
  };
}

export const knob = (name: BenchNumberKnob, fallback: number) => benchNumber(name) ?? fallback;

/** BENCH_LIVE_SOCKETS (10000), BENCH_LIVE_RATE (decisions/s, 50), BENCH_LIVE_USERS (200),
 * BENCH_LIVE_INVESTORS (10), BENCH_LIVE_PROCESSES (client processes, 4), BENCH_LIVE_MAX_DECISIONS (1000). */
export const liveScaleSettings = () => ({
  sockets: knob('BENCH_LIVE_SOCKETS', 10_000),
  rate: knob('BENCH_LIVE_RATE', 50),
  users: knob('BENCH_LIVE_USERS', 200),
  investors: knob('BENCH_LIVE_INVESTORS', 10),
  processes: knob('BENCH_LIVE_PROCESSES', 4),
  maxDecisions: knob('BENCH_LIVE_MAX_DECISIONS', 1_000),
});

export async function benchLiveScale(o: {
  seconds: number;
  rate: number;
  sockets: number;
  users: number;
  investors: number;
  processes: number;
  maxDecisions: number;
  log: (line: string) => void;
}): Promise<LiveScaleResult> {
  const metricsPort = await freePort();
  const target: StandaloneTarget = await startStandaloneTarget({
    env: { ...liftedRateLimitsEnv(), METRICS_PORT: String(metricsPort) },
    logName: 'standalone-livescale',
  });
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const cookieDir = mkdtempSync(join(tmpdir(), 'meridian-bench-live-'));
  const clients: ClientProcess[] = [];
  const investors: Investor[] = [];
  const sockets: Socket[] = [];
  try {
    const perPhase = Math.min(o.maxDecisions, Math.round(o.rate * o.seconds));
    /** untimed decisions first, so neither phase pays the target's warm-up (JIT, caches, first statements) */
    const warmUp = Math.min(50, perPhase);
    let admin: BrowserSession;
    const cookies: string[] = [];
    let adminSocket: Socket | undefined;
    try {
      const t0 = now();
      admin = await signIn(target.url, target.admin.email, target.admin.password);
      adminSocket = await openSocket(target.url, admin.cookieHeader());
      sockets.push(adminSocket);
      const regs = await inBatches(o.investors, 4, () => registerInvestor(target.url, { verify: true }));
      for (const r of regs) {
        const socket = await openSocket(target.url, r.browser.cookieHeader());
        const inv: Investor = {
          browser: r.browser,
          socket,
          deposits: [],
          expected: 0,
          balance: 0,
          pendingStatus: new Map(),
          pendingBalance: [],
        };
        listen(inv);
        investors.push(inv);
        sockets.push(socket);
      }
      const others = await inBatches(o.users, 4, () => registerInvestor(target.url, { verify: false }));
      for (const r of others) cookies.push(sessionCookie(r.browser));
      // deposits for both phases, asked for in advance (the timed loop sends decisions only)
      const perInvestor = Math.ceil((2 * perPhase + warmUp) / investors.length) + 1;
      await inBatches(investors.length * perInvestor, 4, async (i) => {
        const inv = investors[i % investors.length];
        const created = await inv.browser.post('/api/payments/create', { amount: AMOUNT });
        const id = String(created.body?.transactionId ?? '');
        if ((created.status !== 201 && created.status !== 200) || !id)
          throw new Error(`POST api/payments/create failed: ${brief(created)}`);
        inv.deposits.push(id);
      });
      o.log(
        `  set up in ${((now() - t0) / 1000).toFixed(1)} s: ${investors.length} verified investors, ${others.length} more users, ` +
          `${investors.length * perInvestor} deposits waiting`,
      );
    } catch (err) {
      return { skipped: `setup failed: ${(err as Error).message}` };
    }

    // ---- warm-up (untimed), then the baseline: only the measuring sockets
    await claimNext(admin, investors, warmUp);
    await decide(admin, investors, {
      rate: o.rate,
      seconds: warmUp / o.rate,
      count: warmUp,
      sockets: sockets.length,
      pid: target.pid,
    });
    await claimNext(admin, investors, perPhase);
    const settled = await untilQuiet(metricsUrl);
    o.log(
      `  ${warmUp} decisions to warm up; the target's consumers caught up with the setup in ${settled} s`,
    );
    const baseline = await decide(admin, investors, {
      rate: o.rate,
      seconds: o.seconds,
      count: perPhase,
      sockets: sockets.length,
      pid: target.pid,
    });
    o.log(
      `  baseline (${sockets.length} sockets): ${baseline.decisions} decisions, status p50 ${baseline.toStatus.p50} / p99 ${baseline.toStatus.p99} ms`,
    );

    // ---- connect the many
    const nofile = ensureNofile(target.pid, o.sockets + 1_000);
    const idleSeconds = Math.max(2, Math.min(10, o.seconds));
    const loopCpuPctBefore = await loopCpuOver(target.pid, idleSeconds);
    const before = await memoryOf(target.pid, metricsUrl);
    const cookieFile = join(cookieDir, 'cookies.json');
    writeFileSync(cookieFile, JSON.stringify(cookies), { mode: 0o600 });
    const tc = now();
    clients.push(...startSocketClients(target.url, cookieFile, o.sockets, o.processes));
    const limits = await Promise.all(clients.map((c) => c.waitFor('limits', 30_000)));
    const done = await Promise.all(clients.map((c) => c.waitFor('connected', 300_000)));
    const { connected, failed, firstError } = connectedTotals(done);
    const connectSeconds = round((now() - tc) / 1000, 1);
    o.log(
      `  ${connected} sockets connected (${failed} failed) in ${connectSeconds} s by ${clients.length} processes ` +
        `(open files: target ${nofile}, clients ${limits.map((l) => String(l.nofile)).join(', ')})`,
    );
    await sleep(2_000); // let the handshakes' garbage settle before reading memory
    const after = await memoryOf(target.pid, metricsUrl);
    const per = (a: number, b: number) => (connected > 0 ? round(((b - a) * 1024) / connected, 1) : NaN);
    const loopCpuPctAtScale = await loopCpuOver(target.pid, idleSeconds);
    o.log(
      `  target event loop CPU with no decisions: ${loopCpuPctBefore} % before the sockets, ${loopCpuPctAtScale} % with them`,
    );

    // ---- the same decisions with them all connected
    await claimNext(admin, investors, perPhase);
    await untilQuiet(metricsUrl);
    const atScale = await decide(admin, investors, {
      rate: o.rate,
      seconds: o.seconds,
      count: perPhase,
      sockets: connected + sockets.length,
      pid: target.pid,
    });
    o.log(
      `  at scale (${connected + sockets.length} sockets): ${atScale.decisions} decisions, status p50 ${atScale.toStatus.p50} / p99 ${atScale.toStatus.p99} ms`,
    );
    const received = await receivedByClients(clients);
    return {
      rate: o.rate,
      baseline,
      atScale,
      connect: {
        wanted: o.sockets,
        connected,
        failed,
        seconds: connectSeconds,
        ...(firstError ? { firstError } : {}),
      },
      memory: {
        rssBeforeMb: round(before.rss, 1),
        rssAfterMb: round(after.rss, 1),
        heapBeforeMb: round(before.heap, 1),
        heapAfterMb: round(after.heap, 1),
        rssPerSocketKb: per(before.rss, after.rss),
        heapPerSocketKb: per(before.heap, after.heap),
      },
      idle: { seconds: idleSeconds, loopCpuPctBefore, loopCpuPctAtScale },
      crossTalk: {
        statusChanged: received.reduce((a, m) => a + Number(m.statusChanged ?? 0), 0),
        balancesChanged: received.reduce((a, m) => a + Number(m.balancesChanged ?? 0), 0),
      },
    };
  } finally {
    for (const s of sockets) s.disconnect();
    await Promise.all(clients.map((c) => c.child.stop(5_000)));
    await target.stop();
    rmSync(cookieDir, { recursive: true, force: true });
  }
}
