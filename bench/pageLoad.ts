/**
 * `make bench` module `pageload`: bytes transferred and Largest Contentful Paint of `/`, `/login` and
 * `/dashboard` (signed in) in headless Chromium on an emulated slow link (CDP
 * Network.emulateNetworkConditions: 1.6 Mbps down, 750 kbps up, 150 ms round trip; every load in a new
 * browser context with the cache cleared), against a baseline measured in the same run on the same
 * target: the same pages with compression refused (`Accept-Encoding: identity` on every request, through
 * CDP Network.setExtraHTTPHeaders), i.e. as a server that compresses nothing sends them. The goal: LCP
 * ≤ 2.5 s on every page with compression.
 *
 * The target is the standalone serving a production build of web/ made in this run into a temporary
 * folder (WEB_DIST; web/dist is left alone), with its precompressed .br/.gz files. Each page is loaded
 * PAGELOAD_ROUNDS times per variant, the variants interleaved; the figures are medians. A page whose LCP
 * is within 20% of the goal or over it gets its heaviest requests listed, with their times (where the time goes).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession } from 'playwright-core';
import { buildSpa } from '../web/scripts/bundleSize.js';
import { launchChromium } from '../tests/support/browser.js';
import { registerInvestor } from './http.js';
import { startStandaloneTarget } from './standalone.js';
import { table } from './table.js';

declare module './results.js' {
  interface BenchResult {
    /** Module `pageload` (bench/pageLoad.ts): absent from runs that did not select it. */
    pageLoad?: PageLoadResult;
  }
}

/** The emulated link: 1.6 Mbps down, 750 kbps up (in bytes/s, as CDP takes them), 150 ms latency. */
export const NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: 1_600_000 / 8,
  uploadThroughput: 750_000 / 8,
};
export const LCP_GOAL_MS = 2_500;
const PAGELOAD_ROUNDS = 3;
const PAGES = [
  { path: '/', signedIn: false },
  { path: '/login', signedIn: false },
  { path: '/dashboard', signedIn: true },
] as const;
type Variant = 'baseline' | 'compressed';

/** One request of a load: what crossed the (emulated) wire. */
interface RequestFigure {
  path: string;
  /** bytes received, headers included (CDP encodedDataLength) */
  bytes: number;
  /** request sent → last byte, ms */
  ms: number;
  encoding: string;
}

/** What a load of a page took (for one load, or the medians over the rounds). */
interface PageLoad {
  bytes: number;
  requests: number;
  lcpMs: number;
  /** The Content-Encoding values seen (identity when none). */
  encodings: string[];
}

interface LoadFigure extends PageLoad {
  heaviest: RequestFigure[];
}

export interface PageLoadFigure {
  page: string;
  /** medians over the rounds */
  baseline: PageLoad;
  compressed: PageLoad;
  bytesRatio: number;
  lcpRatio: number;
  goalMet: boolean;
  /** The compressed load's heaviest requests (where the time goes), for a page within 20% of the goal or over it. */
  where?: RequestFigure[];
}

export type PageLoadResult =
  | {
      network: typeof NETWORK;
      rounds: number;
      goalMs: number;
      pages: PageLoadFigure[];
      /** The build's files and their precompressed siblings. */
      build: { files: number; br: number; gz: number; seconds: number };
      goalMet: boolean;
    }
  | { skipped: string };

export async function benchPageLoad(opts: { log: (line: string) => void }): Promise<PageLoadResult> {
  const dist = mkdtempSync(join(tmpdir(), 'meridian-bench-pageload-dist-'));
  let target: Awaited<ReturnType<typeof startStandaloneTarget>> | undefined;
  let browser: Browser | undefined;
  try {
    const t0 = Date.now();
    buildSpa(dist);
    const build = { ...countBuild(dist), seconds: +((Date.now() - t0) / 1000).toFixed(1) };
    opts.log(
      `  build: ${build.files} files, ${build.br} .br and ${build.gz} .gz next to them (${build.seconds} s)`,
    );
    target = await startStandaloneTarget({ env: { WEB_DIST: dist }, logName: 'pageload' });
    const { browser: session } = await registerInvestor(target.url, { verify: true });
    const cookies = [...session.jar].map(([name, value]) => ({ name, value, url: target!.url }));
    browser = await launchChromium();

    const runs = new Map<string, LoadFigure[]>();
    for (let round = 0; round < PAGELOAD_ROUNDS; round++) {
      for (const page of PAGES) {
        for (const variant of ['baseline', 'compressed'] as const) {
          const context = await browser.newContext();
          try {
            if (page.signedIn) await context.addCookies(cookies);
            const figure = await loadOnce(context, `${target.url}${page.path}`, variant);
            const key = `${page.path} ${variant}`;
            runs.set(key, [...(runs.get(key) ?? []), figure]);
            opts.log(
              `  round ${round + 1}: ${page.path.padEnd(11)} ${variant.padEnd(10)} ${kb(figure.bytes)} KB, LCP ${figure.lcpMs} ms (${figure.encodings.join(', ')})`,
            );
          } finally {
            await context.close();
          }
        }
      }
    }

    const pages = PAGES.map(({ path }): PageLoadFigure => {
      const summary = (variant: Variant) => {
        const loads = runs.get(`${path} ${variant}`) ?? [];
        return {
          bytes: median(loads.map((l) => l.bytes)),
          lcpMs: median(loads.map((l) => l.lcpMs)),
          requests: median(loads.map((l) => l.requests)),
          encodings: [...new Set(loads.flatMap((l) => l.encodings))].sort(),
        };
      };
      const baseline = summary('baseline');
      const compressed = summary('compressed');
      const goalMet = compressed.lcpMs > 0 && compressed.lcpMs <= LCP_GOAL_MS;
      const loads = runs.get(`${path} compressed`) ?? [];
      return {
        page: path,
        baseline,
        compressed,
        bytesRatio: +(compressed.bytes / baseline.bytes).toFixed(3),
        lcpRatio: +(compressed.lcpMs / baseline.lcpMs).toFixed(3),
        goalMet,
        ...(compressed.lcpMs > 0.8 * LCP_GOAL_MS ? { where: loads[loads.length - 1]?.heaviest ?? [] } : {}),
      };
    });
    return {
      network: NETWORK,
      rounds: PAGELOAD_ROUNDS,
      goalMs: LCP_GOAL_MS,
      pages,
      build,
      goalMet: pages.every((p) => p.goalMet),
    };
  } finally {
    await browser?.close();
    await target?.stop();
    rmSync(dist, { recursive: true, force: true });
  }
}

/** One load of `url` in a fresh context: the emulated link, an empty cache, and the variant's headers. */
async function loadOnce(context: BrowserContext, url: string, variant: Variant): Promise<LoadFigure> {
  // the largest paint so far, kept where the bench reads it (the bench's TypeScript has no DOM types)
  await context.addInitScript({
    content:
      'window.__lcp = 0; new PerformanceObserver((list) => { for (const e of list.getEntries()) ' +
      "window.__lcp = Math.max(window.__lcp, e.startTime); }).observe({ type: 'largest-contentful-paint', buffered: true });",
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const requests = watchRequests(cdp);
  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.emulateNetworkConditions', NETWORK);
  if (variant === 'baseline')
    await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  await requests.settled();
  const lcpMs = Math.round(Number(await page.evaluate('window.__lcp')));
  const done = requests.done();
  return {
    bytes: done.reduce((s, r) => s + r.bytes, 0),
    requests: done.length,
    lcpMs,
    encodings: [...new Set(done.map((r) => r.encoding))].sort(),
    heaviest: [...done].sort((a, b) => b.bytes - a.bytes).slice(0, 8),
  };
}

/**
 * The page's requests through CDP: bytes received (encodedDataLength), time and Content-Encoding.
 * `settled()` resolves once nothing but socket.io is in flight for 750 ms (the SPA's data calls are
 * done), within 60 s.
 */
function watchRequests(cdp: CDPSession) {
  const open = new Map<string, { path: string; start: number; encoding: string }>();
  const finished: RequestFigure[] = [];
  let lastChange = Date.now();
  const pathOf = (u: string) => {
    try {
      const x = new URL(u);
      return x.pathname + x.search;
    } catch {
      return u;
    }
  };
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!/^https?:/.test(e.request.url)) return;
    open.set(e.requestId, { path: pathOf(e.request.url), start: e.timestamp, encoding: 'identity' });
    lastChange = Date.now();
  });
  cdp.on('Network.responseReceived', (e) => {
    const r = open.get(e.requestId);
    if (!r) return;
    const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    r.encoding = String(h['content-encoding'] ?? 'identity');
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = open.get(e.requestId);
    if (!r) return;
    open.delete(e.requestId);
    finished.push({
      path: r.path,
      bytes: Math.round(e.encodedDataLength),
      ms: Math.round((e.timestamp - r.start) * 1000),
      encoding: r.encoding,
    });
    lastChange = Date.now();
  });
  cdp.on('Network.loadingFailed', (e) => {
    if (open.delete(e.requestId)) lastChange = Date.now();
  });
  return {
    done: () => finished,
    settled: async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const busy = [...open.values()].some((r) => !r.path.startsWith('/socket.io/'));
        if (!busy && Date.now() - lastChange >= 750) return;
        if (Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

function countBuild(dist: string): { files: number; br: number; gz: number } {
  const all = [
    ...readdirSync(dist).filter((f) => f !== '.vite' && f !== 'assets'),
    ...readdirSync(join(dist, 'assets')),
  ];
  const br = all.filter((f) => f.endsWith('.br')).length;
  const gz = all.filter((f) => f.endsWith('.gz')).length;
  return { files: all.length - br - gz, br, gz };
}

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}

const kb = (bytes: number) => +(bytes / 1000).toFixed(1);

/** Prints the module's table (after the other modules' tables). */
export function printPageLoad(r: PageLoadResult): void {
  if ('skipped' in r) {
    console.log(`\npage load: skipped: ${r.skipped}`);
    return;
  }
  const n = r.network;
  console.log(
    `\npage load in headless Chromium (${(n.downloadThroughput * 8) / 1e6} Mbps down, ${(n.uploadThroughput * 8) / 1e3} kbps up, ${n.latency} ms latency, cache cleared; median of ${r.rounds}; 1 KB = 1000 bytes)`,
  );
  table(
    ['page', 'variant', 'KB', 'requests', 'LCP ms', 'encodings', 'KB ÷ baseline', 'LCP ÷ baseline'],
    r.pages.flatMap((p) => {
      const row = (variant: string, load: PageLoad, bytesRatio: number, lcpRatio: number) => [
        p.page,
        variant,
        kb(load.bytes),
        load.requests,
        load.lcpMs,
        load.encodings.join(' '),
        bytesRatio,
        lcpRatio,
      ];
      return [
        row('baseline: no compression', p.baseline, 1, 1),
        row('compressed', p.compressed, p.bytesRatio, p.lcpRatio),
      ];
    }),
  );
  for (const p of r.pages)
    console.log(
      `  goal: ${p.page} LCP ≤ ${r.goalMs} ms: ${p.goalMet ? 'met' : 'NOT met'} (${p.compressed.lcpMs} ms; baseline ${p.baseline.lcpMs} ms)`,
    );
  for (const p of r.pages.filter((x) => x.where?.length)) {
    console.log(
      `  where ${p.page}'s time goes (LCP ${p.compressed.lcpMs} ms, within 20% of the goal or over it; the compressed load's heaviest requests):`,
    );
    table(
      ['request', 'KB', 'ms', 'encoding'],
      p.where!.map((w) => [
        w.path.length > 60 ? `${w.path.slice(0, 57)}...` : w.path,
        kb(w.bytes),
        w.ms,
        w.encoding,
      ]),
    );
  }
}

/** The figures compared between runs. */
export function pageLoadHeadline(r: PageLoadResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  const h: Record<string, number> = {};
  for (const p of r.pages) {
    h[`page load ${p.page} KB ÷ uncompressed`] = p.bytesRatio;
    h[`page load ${p.page} LCP ÷ uncompressed`] = p.lcpRatio;
    h[`page load ${p.page} LCP (ms)`] = p.compressed.lcpMs;
  }
  return h;
}
