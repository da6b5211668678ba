/**
 * Lists at scale (every list route p99 ≤ 50 ms on a store of 100,000 users).
 *
 * - Target: the standalone on a store `make seed` filled (LISTS_DATA_DIR, default data; its admin from that
 *   folder's secrets.json). Without one it prints why and is skipped.
 * - Baseline: the same routes on a standalone with an empty store (its admin only), in the same run.
 * - Routes, one request in flight, `seconds` each: GET api/users/getUsers?limit=50 walking the pages by
 *   X-Next-Cursor (back to the first page at the end), the same with a search (`q`), and
 *   GET api/users/userStats; every admin queue (pending deposits, investments, withdrawals, KYC) a page of
 *   50 at a time the same way; then, as an investor (the admin impersonating them: on the seeded store
 *   LISTS_INVESTOR, default seed-20, one of the users `make seed` gave deposits, an investment and a
 *   withdrawal; on the empty store a fresh one), the transaction history and the investment history, a page
 *   of 50 at a time. Ratio = seeded p99 ÷ empty p99.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserSession, registerInvestor, signIn } from './http.js';
import { figure, type LoadFigure, type LoadSlice } from './load.js';
import { table } from './table.js';
import { startStandaloneTarget } from './standalone.js';

export type ListsBenchResult =
  | { skipped: string }
  | {
      users: number;
      seeded: LoadFigure[];
      empty: LoadFigure[];
      /** the seeded target's resident set after the lists (MiB) */
      rssMiB: number;
      /** the same once it answered ready and the admin signed in, before any list */
      rssStartMiB?: number;
      /** seconds from its start until it answered ready (the seeded store) */
      readySeconds?: number;
    };

interface Route {
  name: string;
  /** The next path to ask for, given the previous answer's X-Next-Cursor ('' : start over). */
  next(cursor: string): string;
}

const ROUTES: Route[] = [
  {
    name: 'getUsers pages (limit 50)',
    next: (c) => `/api/users/getUsers?limit=50${c ? `&cursor=${encodeURIComponent(c)}` : ''}`,
  },
  {
    name: "getUsers search q='seed-1' (limit 50)",
    next: (c) => `/api/users/getUsers?limit=50&q=seed-1${c ? `&cursor=${encodeURIComponent(c)}` : ''}`,
  },
  { name: 'userStats', next: () => '/api/users/userStats' },
  ...(
    [
      ['pending deposits', '/api/payments/pending-deposit'],
      ['pending investments', '/api/invest/adminPendingInvestment'],
      ['pending withdrawals', '/api/withDraw/pending'],
      ['pending KYC', '/api/users/kyc/pending'],
    ] as const
  ).map(([name, path]) => paged(`${name} (limit 50)`, path)),
];

/** The investor's lists, asked while the admin impersonates them. */
const INVESTOR_ROUTES: Route[] = [
  paged('transaction history (limit 50)', '/api/invest/getTransactionHistory'),
  paged('investment history (limit 50)', '/api/invest/investment-history'),
];

/** A list route walked a page of 50 at a time by X-Next-Cursor (back to the first page after the last). */
function paged(name: string, path: string): Route {
  return { name, next: (c) => `${path}?limit=50${c ? `&cursor=${encodeURIComponent(c)}` : ''}` };
}

async function measure(baseUrl: string, browser: BrowserSession, route: Route, seconds: number) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let cursor = '';
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until && latencies.length < 100_000) {
    const t = performance.now();
    const res = await fetch(new URL(route.next(cursor), baseUrl), {
      headers: { accept: 'application/json', cookie: browser.cookieHeader() },
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    if (res.status !== 200) {
      errors++;
      firstError ??= `HTTP ${res.status}`;
      continue;
    }
    latencies.push(performance.now() - t);
    cursor = res.headers.get('x-next-cursor') ?? '';
  }
  const slice: LoadSlice = { latencies, wall: (performance.now() - started) / 1000, errors, firstError };
  return figure(route.name, [slice]);
}

export async function benchLists(o: { seconds: number }): Promise<ListsBenchResult> {
  const dataDir = process.env.LISTS_DATA_DIR ?? 'data';
  const secretsFile = join(dataDir, 'secrets.json');
  if (!existsSync(join(dataDir, 'identity.sqlite')) || !existsSync(secretsFile))
    return { skipped: `no seeded store in ${dataDir} (run \`make seed\`, or set LISTS_DATA_DIR)` };
  const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
  const adminEnv = { ADMIN_EMAIL: secrets.ADMIN_EMAIL ?? '', ADMIN_PASSWORD: secrets.ADMIN_PASSWORD ?? '' };

  const trusted = join(dataDir, 'seed-admin.json');
  if (!existsSync(trusted)) return { skipped: `${trusted} is missing (written by \`make seed\`)` };
  const device = JSON.parse(readFileSync(trusted, 'utf8')) as { email: string; deviceToken: string };

  const run = async (env: Record<string, string>, seeded: boolean) => {
    const starting = performance.now();
    const target = await startStandaloneTarget({ env, logName: 'lists' });
    const readySeconds = (performance.now() - starting) / 1000;
    try {
      let browser: BrowserSession;
      if (seeded) {
        // the admin's login code would wait behind the seeded users' emails: the browser the seed trusted
        browser = new BrowserSession(target.url);
        browser.jar.set('meridian_device', device.deviceToken);
        const res = await browser.post('/api/users/login', {
          email: device.email,
          password: adminEnv.ADMIN_PASSWORD,
        });
        if (res.status !== 200) throw new Error(`admin login on the seeded store: HTTP ${res.status}`);
      } else browser = await signIn(target.url, target.admin.email, target.admin.password);
      const rssStart = await rssOf(target.pid);
      const figures: LoadFigure[] = [];
      for (const route of ROUTES) figures.push(await measure(target.url, browser, route, o.seconds));
      const stats = (await browser.get('/api/users/userStats')).body as { total: number };
      // the investor's lists: the admin impersonates a seeded investor (a fresh one on the empty store)
      const investorId = seeded
        ? await seededUserId(browser, process.env.LISTS_INVESTOR ?? 'seed-20@seed.meridian.local')
        : (await registerInvestor(target.url, { verify: false })).id;
      const as = await browser.post(`/api/users/impersonate/${encodeURIComponent(investorId)}`);
      if (as.status !== 200) throw new Error(`impersonate ${investorId}: HTTP ${as.status}`);
      for (const route of INVESTOR_ROUTES) figures.push(await measure(target.url, browser, route, o.seconds));
      const rss = await rssOf(target.pid);
      return { figures, users: stats.total, rss, rssStart, readySeconds };
    } finally {
      await target.stop();
    }
  };
  const empty = await run({}, false);
  const seeded = await run({ ...adminEnv, DATA_DIR: dataDir }, true);
  return {
    users: seeded.users,
    seeded: seeded.figures,
    empty: empty.figures,
    rssMiB: seeded.rss,
    rssStartMiB: seeded.rssStart,
    readySeconds: Number(seeded.readySeconds.toFixed(1)),
  };
}

/** The id of the seeded user with that email (the users search, by the email's prefix). */
async function seededUserId(browser: BrowserSession, email: string): Promise<string> {
  const res = await browser.get(`/api/users/getUsers?limit=1&q=${encodeURIComponent(email)}`);
  const [user] = (res.body ?? []) as Array<{ _id: string }>;
  if (res.status !== 200 || !user) throw new Error(`no seeded user ${email} (HTTP ${res.status})`);
  return user._id;
}

/** The target's resident set (MiB) from /proc, 0 where there is none. */
async function rssOf(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

export function printLists(r: ListsBenchResult): void {
  if ('skipped' in r) return;
  const start =
    r.rssStartMiB === undefined ? '' : `ready in ${r.readySeconds} s, RSS ${r.rssStartMiB} MiB then, `;
  console.log(
    `\nLists on a store of ${r.users} users (${start}RSS after the run ${r.rssMiB} MiB) vs an empty store`,
  );
  table(
    ['route', 'seeded p50 ms', 'seeded p99 ms', 'empty p99 ms', 'p99 ratio', 'req/s'],
    r.seeded.map((f, i) => [
      f.name,
      f.p50,
      f.p99,
      r.empty[i]!.p99,
      r.empty[i]!.p99 > 0 ? (f.p99 / r.empty[i]!.p99).toFixed(2) : '-',
      f.perSecond,
    ]),
  );
}

export function listsHeadline(r: ListsBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  return Object.fromEntries(r.seeded.map((f, i) => [`lists.p99.${i}`, f.p99]));
}
