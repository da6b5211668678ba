/**
 * Password logins per second (≥ 20 logins/s per core at OWASP's argon2id parameters, the login
 * path adding < 10 % over the bare hash of the same run).
 *
 * Three runs, at the same concurrency (`concurrency`: by default the libuv threadpool's size, where
 * @node-rs/argon2 runs its work), all through the identity service's own hasher
 * (services/identity/src/adapters/passwordHasher.argon2.ts: its default parameters m=19 MiB, t=2, p=1,
 * and its hash pool: at most cores − 1 hashes at once), each process with the same UV_THREADPOOL_SIZE:
 * - bare: the argon2id verify called in this process;
 * - bare over HTTP (the goal's baseline): the same verify behind a bare Node HTTP server in a child
 *   process (bench/loginBaseline.ts), POSTed {email, password} by the same browser-like client as the
 *   logins. It pays what every login pays that is not the login path: the client's request and answer
 *   (fetch, here, in the bench process) and one bare HTTP exchange. On 2 cores the client alone costs
 *   about a fifth of a hash, so comparing logins with the in-process verify would count it as the path's;
 * - logins: POST api/users/login {email, password} from a browser the account trusts (registered there,
 *   so the answer is 200 with a session, not the new-browser 400), `concurrency` browsers of their own
 *   users at once, against a standalone target of its own whose rate limits are lifted through the
 *   existing override variables (GATEWAY_RATE_LIMITS_JSON, IDENTITY_RATE_LIMITS_JSON): this target only,
 *   never a default.
 * They run interleaved in `rounds` slices (bare, over HTTP, login; login, over HTTP, bare; …) so drifting
 * load weighs on all. Overhead = 1 − logins/s ÷ bare-over-HTTP verifies/s.
 *
 * CPU per operation: the CPU time (Linux /proc, every thread: the event loop, the pool's hash threads, V8's
 * GC helpers) of the server process and of this process, over each slice, ÷ the operations it completed.
 * Unlike calls/s it does not depend on how much of the machine other processes take, so on a busy
 * machine "CPU ÷" (bare over HTTP's CPU per operation ÷ the login's) is the steadier estimate of the
 * ratio a quiet machine saturated by logins would show. The server's event loop's run-queue wait per
 * operation (/proc schedstat) tells how much of a login's latency was waiting for a core, not working.
 */
import { cpus } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { createArgon2PasswordHasher } from '@meridian/identity/adapters/passwordHasher.argon2';
import { startChild, type Child } from './children.js';
import { brief, BrowserSession, registerInvestor } from './http.js';
import { figure, round, runSlice, type LoadFigure, type LoadSlice } from './load.js';
import { table } from './table.js';
import { startStandaloneTarget } from './standalone.js';

/** CPU ms per completed operation, over the slices of one run. */
export interface CpuPerOp {
  /** the server's event loop (main thread) */
  serverMain: number;
  /** the server's other threads: the pool's hash threads, V8's helpers */
  serverThreads: number;
  /** this process (the client; for the in-process bare verify, the whole of it) */
  client: number;
  total: number;
  /**
   * how long the server's event loop waited, runnable, for a core (/proc schedstat): on a busy machine the
   * login path's many hops each wait, which the bare baselines' few do not
   */
  serverLoopWait: number;
}

export type LoginsBenchResult =
  | { skipped: string }
  | {
      cores: number;
      concurrency: number;
      threadpool: number;
      /** argon2 hashes at once in each process's hash pool (the identity hasher's default) */
      hashConcurrency?: number;
      bare: LoadFigure;
      /** the bare verify behind a bare HTTP server, called like the logins (the goal's baseline) */
      bareHttp?: LoadFigure;
      login: LoadFigure;
      /** logins/s ÷ cores */
      loginsPerCore: number;
      bareVerifiesPerCore: number;
      /** logins/s ÷ bare (in-process) verifies/s */
      ratio: number;
      /** (1 − ratio) × 100 */
      overheadPct: number;
      /** logins/s ÷ bare-over-HTTP verifies/s */
      ratioHttp?: number;
      /** (1 − ratioHttp) × 100: what the login path adds (goal < 10 %) */
      overheadHttpPct?: number;
      cpu?: { bare: CpuPerOp; bareHttp: CpuPerOp; login: CpuPerOp };
      /** bare over HTTP's CPU per operation ÷ the login's */
      cpuRatio?: number;
    };

const PASSWORD = 'Bench!Pass1';
/** Far above what a run can reach: the bench target's budgets only. */
const LIFTED = { max: 1_000_000_000, windowMs: 60_000 };

/**
 * The rate-limit overrides of the bench's own target (variables every service already reads), and the per-user
 * caps on pending deposits, investments and withdrawals lifted (a bench investor files many at once).
 */
export function liftedRateLimitsEnv(): Record<string, string> {
  const gateway = ['login', 'register', 'sendLoginCode', 'loginWithCode'];
  const identity = [
    'loginPerEmail',
    'loginPerClient',
    'loginPerDevice',
    'registerPerEmail',
    'registerPerClient',
    'sendCodePerEmail',
    'sendCodePerClient',
    'codeLoginPerClient',
    'verificationPerUser',
  ];
  return {
    GATEWAY_RATE_LIMITS_JSON: JSON.stringify(Object.fromEntries(gateway.map((k) => [k, LIFTED]))),
    IDENTITY_RATE_LIMITS_JSON: JSON.stringify(Object.fromEntries(identity.map((k) => [k, LIFTED]))),
    LEDGER_MAX_PENDING_DEPOSITS: String(LIFTED.max),
    INVESTMENT_MAX_PENDING: String(LIFTED.max),
    WITHDRAWAL_MAX_PENDING: String(LIFTED.max),
  };
}

export const threadpoolSize = () => {
  const n = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n > 0 ? n : 4;
};

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/** CPU time (ms) of a process's main thread and of its other threads, from /proc; NaN where unreadable. */
export function threadCpuMs(pid: number): { main: number; threads: number } {
  let main = NaN;
  let threads = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S; // utime + stime
      if (Number(tid) === pid) main = ms;
      else threads += ms;
    }
  } catch {
    return { main: NaN, threads: NaN };
  }
  return { main, threads };
}

/** ms the main thread of `pid` has waited in the run queue, runnable but not running (/proc schedstat). */
export function loopRunQueueWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

/** Sums a run's CPU over its slices; `perOp()` divides by the operations they completed. */
function cpuMeter(serverPid: () => number) {
  const sum = { serverMain: 0, serverThreads: 0, client: 0, serverLoopWait: 0 };
  let ops = 0;
  return {
    async around(slice: () => Promise<LoadSlice>): Promise<LoadSlice> {
      const pid = serverPid();
      const s0 = pid === process.pid ? { main: 0, threads: 0 } : threadCpuMs(pid);
      const w0 = loopRunQueueWaitMs(pid);
      const c0 = process.cpuUsage();
      const s = await slice();
      const c = process.cpuUsage(c0);
      sum.serverLoopWait += loopRunQueueWaitMs(pid) - w0;
      const s1 = pid === process.pid ? { main: 0, threads: 0 } : threadCpuMs(pid);
      sum.serverMain += s1.main - s0.main;
      sum.serverThreads += s1.threads - s0.threads;
      sum.client += (c.user + c.system) / 1000;
      ops += s.latencies.length;
      return s;
    },
    perOp(): CpuPerOp {
      const per = (ms: number) => (ops > 0 ? round(ms / ops, 2) : NaN);
      return {
        serverMain: per(sum.serverMain),
        serverThreads: per(sum.serverThreads),
        client: per(sum.client),
        total: per(sum.serverMain + sum.serverThreads + sum.client),
        serverLoopWait: per(sum.serverLoopWait),
      };
    },
  };
}

/** bench/loginBaseline.ts as a child process; resolves with its port once it listens. */
async function startLoginBaseline(): Promise<{ child: Child; url: string; hashConcurrency: number }> {
  const child = startChild(
    'bench/loginBaseline.ts',
    { ...process.env, LOGIN_BASELINE_PASSWORD: PASSWORD },
    { stdout: 'pipe', stderr: 'inherit' },
  );
  try {
    const ready = await new Promise<{ port: number; hashConcurrency: number }>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(
        () => reject(new Error('the login baseline server was not ready in 30 s')),
        30_000,
      );
      child.process.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        try {
          resolve(JSON.parse(buf.slice(0, nl)) as { port: number; hashConcurrency: number });
        } catch (err) {
          reject(err as Error);
        }
      });
      child.process.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the login baseline server exited with ${code}`));
      });
    });
    child.process.stdout?.resume();
    return { child, url: `http://127.0.0.1:${ready.port}`, hashConcurrency: ready.hashConcurrency };
  } catch (err) {
    await child.stop(3_000);
    throw err;
  }
}

export async function benchLogins(o: {
  seconds: number;
  rounds: number;
  maxCount: number;
  concurrency?: number;
}): Promise<LoginsBenchResult> {
  const cores = cpus().length;
  const threadpool = threadpoolSize();
  const concurrency = o.concurrency ?? threadpool;
  const hasher = createArgon2PasswordHasher();
  const stored = await hasher.hash(PASSWORD);
  if (!(await hasher.verify(stored, PASSWORD))) return { skipped: 'the bare verify refused its own hash' };

  const target = await startStandaloneTarget({ env: liftedRateLimitsEnv(), logName: 'standalone-logins' });
  let baseline: Awaited<ReturnType<typeof startLoginBaseline>> | undefined;
  try {
    baseline = await startLoginBaseline();
    const baselineUrl = baseline.url;
    let users: Array<{ browser: BrowserSession; email: string }>;
    const bareBrowsers = Array.from({ length: concurrency }, () => new BrowserSession(baselineUrl));
    try {
      users = [];
      for (let i = 0; i < concurrency; i++) users.push(await registerInvestor(target.url, { verify: false }));
      const first = await users[0].browser.post('/api/users/login', {
        email: users[0].email,
        password: PASSWORD,
      });
      if (first.status !== 200)
        return { skipped: `a login from the registering browser failed: ${brief(first)}` };
      for (const b of bareBrowsers) {
        const res = await b.post('/api/users/login', { email: 'bench@example.com', password: PASSWORD });
        if (res.status !== 200) return { skipped: `the bare-over-HTTP baseline refused: ${brief(res)}` };
      }
    } catch (err) {
      return { skipped: `setup failed: ${(err as Error).message}` };
    }

    const slice = (call: (i: number) => Promise<unknown>) => () =>
      runSlice({ seconds: o.seconds / o.rounds, maxCount: o.maxCount, concurrency, call });
    const baselinePid = baseline.child.process.pid ?? 0;
    const runs = {
      bare: {
        meter: cpuMeter(() => process.pid),
        slices: [] as LoadSlice[],
        run: slice(async () => {
          if (!(await hasher.verify(stored, PASSWORD))) throw new Error('verify refused');
        }),
      },
      bareHttp: {
        meter: cpuMeter(() => baselinePid),
        slices: [] as LoadSlice[],
        run: slice(async (i) => {
          const res = await bareBrowsers[i % bareBrowsers.length].post('/api/users/login', {
            email: 'bench@example.com',
            password: PASSWORD,
          });
          if (res.status !== 200) throw new Error(`bare over HTTP: ${brief(res)}`);
        }),
      },
      login: {
        meter: cpuMeter(() => target.pid),
        slices: [] as LoadSlice[],
        run: slice(async (i) => {
          const u = users[i % users.length];
          const res = await u.browser.post('/api/users/login', { email: u.email, password: PASSWORD });
          if (res.status !== 200) throw new Error(`login: ${brief(res)}`);
        }),
      },
    };
    const order = ['bare', 'bareHttp', 'login'] as const;
    for (let r = 0; r < o.rounds; r++) {
      for (const k of r % 2 === 0 ? order : [...order].reverse()) {
        const x = runs[k];
        x.slices.push(await x.meter.around(x.run));
      }
    }
    const bareFig = figure('baseline: bare argon2id verify', runs.bare.slices);
    const bareHttpFig = figure('baseline: bare verify over HTTP', runs.bareHttp.slices);
    const loginFig = figure('gateway: POST api/users/login', runs.login.slices);
    const ratio = bareFig.perSecond > 0 ? loginFig.perSecond / bareFig.perSecond : NaN;
    const ratioHttp = bareHttpFig.perSecond > 0 ? loginFig.perSecond / bareHttpFig.perSecond : NaN;
    const cpu = {
      bare: runs.bare.meter.perOp(),
      bareHttp: runs.bareHttp.meter.perOp(),
      login: runs.login.meter.perOp(),
    };
    return {
      cores,
      concurrency,
      threadpool,
      hashConcurrency: hasher.concurrency,
      bare: bareFig,
      bareHttp: bareHttpFig,
      login: loginFig,
      loginsPerCore: round(loginFig.perSecond / cores, 1),
      bareVerifiesPerCore: round(bareFig.perSecond / cores, 1),
      ratio: round(ratio, 3),
      overheadPct: round((1 - ratio) * 100, 1),
      ratioHttp: round(ratioHttp, 3),
      overheadHttpPct: round((1 - ratioHttp) * 100, 1),
      cpu,
      cpuRatio: round(cpu.bareHttp.total / cpu.login.total, 3),
    };
  } finally {
    await Promise.all([target.stop(), baseline?.child.stop(3_000)]);
  }
}

export function printLogins(r: LoginsBenchResult): void {
  if ('skipped' in r) {
    console.log(`\npassword logins: skipped: ${r.skipped}`);
    return;
  }
  const pool = r.hashConcurrency ? `, hash pool ${r.hashConcurrency}` : '';
  console.log(
    `\npassword logins at argon2id m=19 MiB, t=2, p=1 (${r.concurrency} in flight, libuv threadpool ${r.threadpool}${pool}, ${r.cores} cores)`,
  );
  const rows = [
    { f: r.bare, cpu: r.cpu?.bare },
    ...(r.bareHttp ? [{ f: r.bareHttp, cpu: r.cpu?.bareHttp }] : []),
    { f: r.login, cpu: r.cpu?.login },
  ];
  const ref = r.bareHttp ?? r.bare;
  table(
    [
      'run',
      'per s',
      'per s per core',
      'p50 ms',
      'p99 ms',
      'count',
      'errors',
      '÷ bare',
      '÷ over HTTP',
      'CPU ms per op',
    ],
    rows.map(({ f, cpu }) => [
      f.name,
      f.perSecond,
      round(f.perSecond / r.cores, 1),
      f.p50,
      f.p99,
      f.count,
      f.errors,
      r.bare.perSecond > 0 ? round(f.perSecond / r.bare.perSecond, 3) : NaN,
      ref.perSecond > 0 ? round(f.perSecond / ref.perSecond, 3) : NaN,
      cpu ? cpu.total : NaN,
    ]),
  );
  if (r.cpu) {
    const c = (x: CpuPerOp) =>
      `${x.total} (server loop ${x.serverMain}, server threads ${x.serverThreads}, client ${x.client})`;
    console.log(
      `  CPU ms per op, all threads: bare ${r.cpu.bare.total}; over HTTP ${c(r.cpu.bareHttp)}; login ${c(r.cpu.login)}`,
    );
    if (Number.isFinite(r.cpu.login.serverLoopWait))
      console.log(
        `  the server's event loop waited for a core (runnable, not running) ${r.cpu.bareHttp.serverLoopWait} ms per op over HTTP, ${r.cpu.login.serverLoopWait} ms per login`,
      );
  }
  if (r.overheadHttpPct !== undefined)
    console.log(
      `  the login path adds ${r.overheadHttpPct} % over the bare hash behind HTTP (goal < 10 %; CPU ÷ ${r.cpuRatio}), ` +
        `${r.overheadPct} % over the in-process verify; ${r.loginsPerCore} logins/s per core (goal ≥ 20)` +
        (r.login.firstError ? `; first error: ${r.login.firstError}` : ''),
    );
  else
    console.log(
      `  the login path adds ${r.overheadPct} % over the bare hash (goal < 10 %); ${r.loginsPerCore} logins/s per core (goal ≥ 20)` +
        (r.login.firstError ? `; first error: ${r.login.firstError}` : ''),
    );
}

export function loginsHeadline(r: LoginsBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  return {
    'logins/s per core': r.loginsPerCore,
    'logins ÷ bare argon2id verifies (per s)': r.ratio,
    ...(r.ratioHttp !== undefined ? { 'logins ÷ bare verifies over HTTP (per s)': r.ratioHttp } : {}),
    ...(r.cpuRatio !== undefined ? { 'bare over HTTP ÷ login, CPU per op': r.cpuRatio } : {}),
    'login p50 (ms)': r.login.p50,
    'login p99 (ms)': r.login.p99,
  };
}
