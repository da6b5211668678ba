/**
 * Password logins per second (goal 6: ≥ 20 logins/s per core at OWASP's argon2id parameters, the login
 * path adding < 10 % over the bare hash of the same run).
 *
 * - Baseline: the bare argon2id verify of the identity service's own hasher
 *   (services/identity/src/adapters/passwordHasher.argon2.ts, its default parameters m=19 MiB, t=2, p=1),
 *   in this process, with as many calls in flight as the login path gets (`concurrency`: by default the
 *   libuv threadpool's size, where @node-rs/argon2 runs its work, in this process and in the target alike).
 * - Logins: POST api/users/login {email, password} from a browser the account trusts (registered there, so
 *   the answer is 200 with a session, not the new-browser 400), `concurrency` browsers of their own
 *   users at once, against a standalone target of its own whose rate limits are lifted through the
 *   existing override variables (GATEWAY_RATE_LIMITS_JSON, IDENTITY_RATE_LIMITS_JSON): this target only,
 *   never a default.
 * Both are run interleaved in `rounds` slices (bare, login, login, bare, …) so drifting load weighs on
 * both. Overhead = 1 − logins/s ÷ bare verifies/s.
 */
import { cpus } from 'node:os';
import { createArgon2PasswordHasher } from '../services/identity/src/adapters/passwordHasher.argon2.js';
import { brief, registerInvestor, type BrowserSession } from './http.js';
import { figure, round, runSlice, type LoadFigure, type LoadSlice } from './load.js';
import { table } from './results.js';
import { startStandaloneTarget } from './standalone.js';

export type LoginsBenchResult =
  | { skipped: string }
  | {
      cores: number;
      concurrency: number;
      threadpool: number;
      bare: LoadFigure;
      login: LoadFigure;
      /** logins/s ÷ cores */
      loginsPerCore: number;
      bareVerifiesPerCore: number;
      /** logins/s ÷ bare verifies/s */
      ratio: number;
      /** (1 − ratio) × 100 */
      overheadPct: number;
    };

const PASSWORD = 'Bench!Pass1';
/** Far above what a run can reach: the bench target's budgets only. */
const LIFTED = { max: 1_000_000_000, windowMs: 60_000 };

/** The rate-limit overrides of the bench's own target (variables every service already reads). */
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
    'codeLoginPerEmail',
    'codeLoginPerClient',
    'verificationPerUser',
  ];
  return {
    GATEWAY_RATE_LIMITS_JSON: JSON.stringify(Object.fromEntries(gateway.map((k) => [k, LIFTED]))),
    IDENTITY_RATE_LIMITS_JSON: JSON.stringify(Object.fromEntries(identity.map((k) => [k, LIFTED]))),
  };
}

export const threadpoolSize = () => {
  const n = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n > 0 ? n : 4;
};

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
  try {
    let users: Array<{ browser: BrowserSession; email: string }>;
    try {
      users = [];
      for (let i = 0; i < concurrency; i++) users.push(await registerInvestor(target.url, { verify: false }));
      const first = await users[0].browser.post('/api/users/login', {
        email: users[0].email,
        password: PASSWORD,
      });
      if (first.status !== 200)
        return { skipped: `a login from the registering browser failed: ${brief(first)}` };
    } catch (err) {
      return { skipped: `setup failed: ${(err as Error).message}` };
    }

    const bare = () =>
      runSlice({
        seconds: o.seconds / o.rounds,
        maxCount: o.maxCount,
        concurrency,
        call: async () => {
          if (!(await hasher.verify(stored, PASSWORD))) throw new Error('verify refused');
        },
      });
    const login = () =>
      runSlice({
        seconds: o.seconds / o.rounds,
        maxCount: o.maxCount,
        concurrency,
        call: async (i) => {
          const u = users[i % users.length];
          const res = await u.browser.post('/api/users/login', { email: u.email, password: PASSWORD });
          if (res.status !== 200) throw new Error(`login: ${brief(res)}`);
        },
      });
    const bareSlices: LoadSlice[] = [];
    const loginSlices: LoadSlice[] = [];
    for (let r = 0; r < o.rounds; r++) {
      if (r % 2 === 0) {
        bareSlices.push(await bare());
        loginSlices.push(await login());
      } else {
        loginSlices.push(await login());
        bareSlices.push(await bare());
      }
    }
    const bareFig = figure('baseline: bare argon2id verify', bareSlices);
    const loginFig = figure('gateway: POST api/users/login', loginSlices);
    const ratio = bareFig.perSecond > 0 ? loginFig.perSecond / bareFig.perSecond : NaN;
    return {
      cores,
      concurrency,
      threadpool,
      bare: bareFig,
      login: loginFig,
      loginsPerCore: round(loginFig.perSecond / cores, 1),
      bareVerifiesPerCore: round(bareFig.perSecond / cores, 1),
      ratio: round(ratio, 3),
      overheadPct: round((1 - ratio) * 100, 1),
    };
  } finally {
    await target.stop();
  }
}

export function printLogins(r: LoginsBenchResult): void {
  if ('skipped' in r) {
    console.log(`\npassword logins: skipped: ${r.skipped}`);
    return;
  }
  console.log(
    `\npassword logins at argon2id m=19 MiB, t=2, p=1 (${r.concurrency} in flight, libuv threadpool ${r.threadpool}, ${r.cores} cores)`,
  );
  table(
    ['run', 'per s', 'per s per core', 'p50 ms', 'p99 ms', 'count', 'errors', '÷ bare'],
    [r.bare, r.login].map((f) => [
      f.name,
      f.perSecond,
      round(f.perSecond / r.cores, 1),
      f.p50,
      f.p99,
      f.count,
      f.errors,
      f === r.bare ? 1 : r.ratio,
    ]),
  );
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
    'login p50 (ms)': r.login.p50,
    'login p99 (ms)': r.login.p99,
  };
}
