/**
 * `make bench`: throughput and latency of Meridian as ratios against baselines measured in the same run
 * on the same machine, so the figures mean something whatever the machine. Not a test: it prints tables,
 * writes bench/results/latest.json (the run before is kept as previous.json) and compares the two.
 *
 *   1. HTTP (http.ts): bare Node HTTP and an Express hello route (baselines) vs the gateway's /healthz
 *      and an authenticated GET api/users/getUser, with autocannon.
 *   2. Admin decision → investor socket push latency p50/p99 (socket.ts) vs a bare socket.io emit.
 *   3. Ledger postings/s through gRPC (grpc.ts), many accounts vs one hot account, vs a raw grpc-js echo.
 *
 * Servers run in child processes (the standalone target; bench/baselineServer.ts for the baselines),
 * the load generators here. Every target is on 127.0.0.1; every run is bounded by BENCH_SECONDS
 * (default 5) and a maximum count; children are stopped on exit, on errors and on Ctrl+C.
 *
 * Knobs: BENCH_SECONDS, BENCH_CONNECTIONS (autocannon, 20), BENCH_GRPC_CONCURRENCY (16),
 * BENCH_MAX_CALLS (gRPC calls per run, 50000), BENCH_SPREAD_USERS (1000), BENCH_ROUNDS (the HTTP runs
 * and the gRPC runs are each interleaved in this many slices, 2), BENCH_MAX_DECISIONS (200),
 * ADMIN_EMAIL / ADMIN_PASSWORD (the standalone target's admin; generated when unset), BENCH_WRITE_README=1
 * (also quote the run in the committed bench/results/README.md).
 */
import { cpus, loadavg } from 'node:os';
import { benchGrpc } from './grpc.js';
import { measureHttpInterleaved, registerInvestor } from './http.js';
import type { LoadFigure } from './load.js';
import { writeMarkdownReport } from './report.js';
import { headlineOf, machine, saveAndCompare, table, type BenchResult } from './results.js';
import { benchSocket } from './socket.js';
import { startBaselines, startStandaloneTarget } from './standalone.js';

const num = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const settings = {
  seconds: num('BENCH_SECONDS', 5),
  connections: num('BENCH_CONNECTIONS', 20),
  grpcConcurrency: num('BENCH_GRPC_CONCURRENCY', 16),
  maxCalls: num('BENCH_MAX_CALLS', 50_000),
  spreadUsers: num('BENCH_SPREAD_USERS', 1000),
  maxDecisions: num('BENCH_MAX_DECISIONS', 200),
  rounds: num('BENCH_ROUNDS', 2),
};

const errorText = (err: unknown) => (err as Error)?.message ?? String(err);

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0];
  const cores = cpus().length;
  console.log(
    `\nMeridian bench: ${settings.seconds} s per run, ${settings.connections} HTTP connections, ` +
      `${settings.grpcConcurrency} concurrent gRPC calls, all on 127.0.0.1 (${cores} cores, node ${process.version}, load ${loadAtStart.toFixed(2)})`,
  );
  if (loadAtStart > cores) {
    console.log(`  note: the machine is busy (1-min load ${loadAtStart.toFixed(2)} > ${cores} cores): absolute figures will be low and noisy; the ratios less so.`);
  }
  const baselines = await startBaselines();
  let target: Awaited<ReturnType<typeof startStandaloneTarget>> | undefined;
  try {
    target = await startStandaloneTarget();
    const { url } = target;

    // ---- 1. HTTP
    console.log('\n[1/3] HTTP requests per second (autocannon, runs interleaved)');
    let http: BenchResult['http'];
    try {
      const { browser } = await registerInvestor(url, { verify: false });
      const cookie = browser.cookieHeader();
      const figures = await measureHttpInterleaved(
        [
          { name: 'baseline: bare node http', url: `http://127.0.0.1:${baselines.bare}/` },
          { name: 'baseline: express hello', url: `http://127.0.0.1:${baselines.express}/hello` },
          { name: 'gateway: GET /healthz', url: `${url}/healthz` },
          { name: 'gateway: GET getUser (session)', url: `${url}/api/users/getUser`, headers: { cookie } },
        ],
        { seconds: settings.seconds, connections: settings.connections, rounds: settings.rounds },
      );
      for (const f of figures) console.log(`  ${f.name.padEnd(32)} ${String(f.rps).padStart(7)} req/s`);
      const [b, e] = figures;
      const ratios = Object.fromEntries(
        figures.slice(2).map((f) => [f.name, { vsBare: +(f.rps / b.rps).toFixed(3), vsExpress: +(f.rps / e.rps).toFixed(3) }]),
      );
      http = { figures, ratios };
    } catch (err) {
      http = { skipped: errorText(err) };
      console.log(`  skipped: ${http.skipped}`);
    }

    // ---- 2. decision → socket push (before the gRPC flood, so the target's event pipeline is quiet)
    console.log('\n[2/3] admin decision → investor socket push');
    const socket = await benchSocket({
      url,
      baselineUrl: `http://127.0.0.1:${baselines.bare}`,
      admin: target.admin,
      seconds: settings.seconds,
      maxCount: settings.maxDecisions,
    });
    if ('skipped' in socket) console.log(`  skipped: ${socket.skipped}`);
    else console.log(`  ${socket.decisionToPush.count} decisions measured`);

    // ---- 3. ledger postings through gRPC
    console.log('\n[3/3] ledger postings per second through gRPC');
    let grpc: BenchResult['grpc'];
    try {
      grpc = await benchGrpc({
        seconds: settings.seconds,
        maxCount: settings.maxCalls,
        concurrency: settings.grpcConcurrency,
        spreadUsers: settings.spreadUsers,
        rounds: settings.rounds,
        echoAddress: `127.0.0.1:${baselines.grpc}`,
        ledgerAddress: target.ledgerAddress,
        log: (f: LoadFigure, unit: string) =>
          console.log(`  ${f.name.padEnd(36)} ${String(f.perSecond).padStart(7)} ${unit}${f.errors ? `   (${f.errors} errors: ${f.firstError})` : ''}`),
      });
    } catch (err) {
      grpc = { skipped: errorText(err) };
      console.log(`  skipped: ${grpc.skipped}`);
    }

    // ---- tables
    const partial: Omit<BenchResult, 'headline'> = { at: new Date().toISOString(), machine: machine(loadAtStart), settings, http, grpc, socket };
    const result: BenchResult = { ...partial, headline: headlineOf(partial) };
    printTables(result);
    saveAndCompare(result);
    if (process.env.BENCH_WRITE_README === '1') writeMarkdownReport(result);
  } finally {
    await Promise.all([target?.stop(), baselines.stop()]);
  }
}

function printTables(r: BenchResult): void {
  const m = r.machine;
  console.log(`\n=== results === (${m.cpus} × ${m.cpuModel}, ${m.node}, 1-min load ${m.loadAverage.start} at start, ${m.loadAverage.end} at end)`);
  if ('figures' in r.http) {
    console.log('\nHTTP (autocannon, req/s; latency ms, slices weighted)');
    const [b, e] = r.http.figures;
    table(
      ['run', 'req/s', 'p50', 'p99', 'non-2xx', '÷ bare', '÷ express'],
      r.http.figures.map((f) => [f.name, f.rps, f.p50, f.p99, f.non2xx + f.errors, +(f.rps / b.rps).toFixed(3), +(f.rps / e.rps).toFixed(3)]),
    );
  } else console.log(`\nHTTP: skipped: ${r.http.skipped}`);

  if ('figures' in r.grpc) {
    console.log('\ngRPC unary (calls/s; latency per call ms)');
    const [echoFig, spread] = r.grpc.figures;
    table(
      ['run', 'calls/s', 'p50', 'p99', 'calls', 'errors', '÷ echo', '÷ spread'],
      r.grpc.figures.map((f) => [
        f.name,
        f.perSecond,
        f.p50,
        f.p99,
        f.count,
        f.errors,
        +(f.perSecond / echoFig.perSecond).toFixed(3),
        f === echoFig ? '–' : +(f.perSecond / spread.perSecond).toFixed(3),
      ]),
    );
    console.log(`  hot account: ${r.grpc.hotPostings} postings on one user's ledger stream by the end (every command reads it whole)`);
  } else console.log(`\ngRPC: skipped: ${r.grpc.skipped}`);

  if ('decisionToPush' in r.socket) {
    console.log('\nadmin decision → investor socket push (ms, one decision at a time)');
    const s = r.socket;
    table(
      ['run', 'count', 'p50', 'p99', 'max', '÷ baseline p50'],
      [s.baseline, s.decisionToPush, s.decisionHttp].map((f) => [f.name, f.count, f.p50, f.p99, f.max, +(f.p50 / s.baseline.p50).toFixed(1)]),
    );
  } else console.log(`\nadmin decision → investor socket push: skipped: ${r.socket.skipped}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  },
);
