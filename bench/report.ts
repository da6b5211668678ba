/**
 * bench/results/README.md (committed): runs quoted as markdown. Written only when asked
 * (`BENCH_WRITE_README=1 make bench`), so ordinary runs leave the committed file alone.
 *
 * One section per module, between `<!-- bench:<module> -->` and `<!-- /bench:<module> -->`, each naming
 * the run it comes from: a run with BENCH_ONLY rewrites the sections of its modules and keeps the others
 * as the file had them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './children.js';
import { grpcFigureRows } from './grpc.js';
import type { LoadFigure } from './load.js';
import { isNotSelected, NOT_SELECTED, type BenchResult } from './results.js';
import { SPA_HEADER, spaGoalLine, spaRows } from './spa.js';
import { printLogins } from './logins.js';
import { printLiveScale } from './liveScalePrint.js';
import { printMaturity } from './maturity.js';
import { printLists } from './lists.js';
import { printSupport } from './support.js';
import { printPageLoad } from './pageLoad.js';

const n = (v: number) => (Number.isFinite(v) ? String(v) : '–');

const SECTIONS = [
  'http',
  'grpc',
  'socket',
  'kafka',
  'cluster',
  'spa',
  'logins',
  'livescale',
  'maturity',
  'lists',
  'support',
  'pageload',
] as const;
type Section = (typeof SECTIONS)[number];

function runLine(r: BenchResult): string {
  const m = r.machine;
  const busy = m.loadAverage.start > m.cpus ? ' — a busy machine: absolute figures low and noisy' : '';
  return `Run ${r.at}: ${m.cpus} × ${m.cpuModel}, node ${m.node}; 1-min load ${m.loadAverage.start} at start, ${m.loadAverage.end} at end${busy}; BENCH_SECONDS=${r.settings.seconds}.`;
}

function httpSection(r: BenchResult): string[] {
  if (!('figures' in r.http)) return ['## HTTP', '', `skipped: ${r.http.skipped}`];
  const [b, e] = r.http.figures;
  const out = [
    '## HTTP (autocannon; runs interleaved, p50/p99 weighted over slices)',
    '',
    runLine(r),
    '',
    '| run | req/s | p50 ms | p99 ms | non-2xx | ÷ bare node | ÷ express |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of r.http.figures)
    out.push(
      `| ${f.name} | ${f.rps} | ${f.p50} | ${f.p99} | ${f.non2xx + f.errors} | ${(f.rps / b.rps).toFixed(3)} | ${(f.rps / e.rps).toFixed(3)} |`,
    );
  return out;
}

function grpcSection(r: BenchResult): string[] {
  if (!('figures' in r.grpc)) return ['## Ledger postings through gRPC', '', `skipped: ${r.grpc.skipped}`];
  const { echo: echoFig, echoTls, spread } = r.grpc.figures;
  const isEcho = (f: LoadFigure) => f === echoFig || f === echoTls;
  const out = [
    `## Ledger postings through gRPC (${r.grpc.ledgers ? `the goal's: ${r.grpc.ledgers[0]}` : 'standalone target'})`,
    '',
    runLine(r),
    '',
    ...(r.grpc.ledgers && r.grpc.ledgers.length > 1
      ? [
          `Ledgers: ${r.grpc.ledgers.join(', ')}. The goals' figures are the first's: the ledger's program as its own process, as deployed;`,
          "the others ran the spread run beside it, for comparison (÷ spread is against the first's spread run).",
          '',
        ]
      : []),
    `One posting per call (SettleMaturity of a fresh investment: a three-entry transaction), ${r.settings.grpcConcurrency} calls in flight,`,
    `the runs interleaved in ${r.settings.rounds} slices. Hot account: ${r.grpc.hotPostings} postings on one user's stream by the end;`,
    `"hot 100k" starts with the stream already holding that many events (no command folds its stream).`,
    `÷ grpc echo is against the plaintext echo (the goal's baseline); ÷ TLS echo against the same echo over mutual TLS,`,
    `the transport of the ledger's calls: spread ÷ TLS echo ${n(r.grpc.ratios.spreadVsEchoTls)}.`,
    '',
    '| run | calls/s | p50 ms | p99 ms | calls | errors | ÷ grpc echo | ÷ TLS echo | ÷ spread |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of grpcFigureRows(r.grpc.figures))
    out.push(
      `| ${f.name} | ${f.perSecond} | ${f.p50} | ${f.p99} | ${f.count} | ${f.errors} | ${(f.perSecond / echoFig.perSecond).toFixed(3)} | ${(f.perSecond / echoTls.perSecond).toFixed(3)} | ${isEcho(f) ? '–' : (f.perSecond / spread.perSecond).toFixed(3)} |`,
    );
  const goalCpu = r.grpc.cpu?.[0];
  const b = r.grpc.breakdown;
  if (goalCpu && b)
    out.push(
      '',
      `Where a posting's time goes (the last three rows, grpc.ts BREAKDOWN): the ${goalCpu.ledger} ledger's event loop spent`,
      `${goalCpu.mainMsPerPosting} ms of CPU per posting (its other threads ${goalCpu.threadsMsPerPosting} ms); on a call that reads one document, ${b.readMainMsPerCall} ms`,
      `(the call layer); its command path alone, in the bench's process, ${b.pathCpuMsPerPosting} ms of CPU per posting.`,
      `Durability: that command path with the ledger's synchronous FULL (the WAL synced at every COMMIT) posts`,
      `${b.pathFullVsNormal} × as many postings per second as with NORMAL (synced at checkpoints only).`,
    );
  return out;
}

function socketSection(r: BenchResult): string[] {
  if (!('decisionToPush' in r.socket))
    return ['## Admin decision → investor socket push', '', `skipped: ${r.socket.skipped}`];
  const s = r.socket;
  const out = [
    '## Admin decision → investor socket push',
    '',
    runLine(r),
    '',
    "Investor POST api/payments/create → admin PATCH api/payments/confirmPayment → the investor's socket receives",
    "'balances/changed' with the new balance; one decision at a time, timed from just before the PATCH.",
    '',
    '| run | count | p50 ms | p99 ms | max ms | p50 ÷ baseline p50 |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const f of [s.baseline, s.decisionToPush, s.decisionHttp])
    out.push(
      `| ${f.name} | ${f.count} | ${n(f.p50)} | ${n(f.p99)} | ${n(f.max)} | ${(f.p50 / s.baseline.p50).toFixed(1)} |`,
    );
  if (s.decisionToPush.count < 100)
    out.push('', `With ${s.decisionToPush.count} decisions, p99 is the slowest one.`);
  return out;
}

function kafkaSection(r: BenchResult): string[] {
  if (!('throughput' in r.kafkaBus))
    return ['## Events through the Kafka bus', '', `skipped: ${r.kafkaBus.skipped}`];
  const k = r.kafkaBus;
  const [ti] = k.throughput;
  const [li] = k.latency;
  const out = [
    '## Events through the Kafka bus vs the in-process bus',
    '',
    runLine(r),
    '',
    `Publish → handled with one subscription (one group, fresh topic per slice, live before the clock starts): small`,
    `events in batches of ${k.batchSize}, each publish awaited, until ${r.settings.busEvents} events or BENCH_SECONDS; handled until all or`,
    'BENCH_SECONDS (a bus that cannot keep up is measured at its sustained rate). The in-process bus is on a SQLite',
    'file; Kafka is a single KRaft broker from the official jars on the same machine (3 partitions).',
    '',
    '| bus | events/s | handled | published | seconds | publish/s | ÷ in-process |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of k.throughput)
    out.push(
      `| ${f.name} | ${f.perSecond} | ${f.events} | ${f.published} | ${f.seconds} | ${f.publishPerSecond} | ${(f.perSecond / ti.perSecond).toFixed(3)} |`,
    );
  out.push(
    '',
    'One event at a time:',
    '',
    '| run | count | p50 ms | p99 ms | max ms | p50 ÷ in-process p50 |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const f of k.latency)
    out.push(
      `| ${f.name} | ${f.count} | ${n(f.p50)} | ${n(f.p99)} | ${n(f.max)} | ${(f.p50 / li.p50).toFixed(1)} |`,
    );
  return out;
}

function clusterSection(r: BenchResult): string[] {
  if (!('push' in r.cluster))
    return ['## The cluster (make cluster topology)', '', `skipped: ${r.cluster.skipped}`];
  const c = r.cluster;
  const out = [
    '## The cluster (make cluster topology)',
    '',
    runLine(r),
    '',
    `Every service its own process on the Kafka bus, Redis, two gateways (up in ${c.startSeconds} s).`,
    '',
  ];
  if ('decisionToPush' in c.push) {
    const p = c.push;
    const s = p.standalone;
    out.push(
      "Admin decision → investor push, as in the standalone's section, with the investor's socket on gateway A and the",
      "admin's HTTP calls on gateway B (the push crosses instances); the standalone row is the same run's.",
      '',
      '| run | count | p50 ms | p99 ms | max ms | p50 ÷ standalone | p99 ÷ standalone |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    if (s) out.push(`| ${s.name} | ${s.count} | ${n(s.p50)} | ${n(s.p99)} | ${n(s.max)} | 1 | 1 |`);
    out.push(
      `| ${p.decisionToPush.name} | ${p.decisionToPush.count} | ${n(p.decisionToPush.p50)} | ${n(p.decisionToPush.p99)} | ${n(p.decisionToPush.max)} | ${n(p.p50VsStandalone)} | ${n(p.p99VsStandalone)} |`,
    );
    out.push(
      `| ${p.decisionHttp.name} | ${p.decisionHttp.count} | ${n(p.decisionHttp.p50)} | ${n(p.decisionHttp.p99)} | ${n(p.decisionHttp.max)} | – | – |`,
    );
    out.push('');
  } else out.push(`Admin decision → investor push: skipped: ${c.push.skipped}`, '');
  if ('rounds' in c.restart) {
    const rs = c.restart;
    out.push(
      'Ledger `kill -9` (pid file; the supervisor restarts it) → the first successful admin PUT api/users/updateDepositBalance',
      'through gateway B (retried every 20 ms with one Idempotency-Key). "kill → new pid" includes the supervisor\'s delay',
      '(0.5 s, doubling while the process had been up less than 30 s).',
      '',
      '| round | kill → posting ms | kill → new pid ms | new pid → posting ms | of which new pid → gRPC port open ms | attempts |',
      '|---|---:|---:|---:|---:|---:|',
    );
    rs.rounds.forEach((x, i) =>
      out.push(
        `| #${i + 1} | ${x.killToPostingMs} | ${x.killToPidMs} | ${x.pidToPostingMs} | ${x.pidToListenMs} | ${x.attempts} |`,
      ),
    );
    out.push(
      `| median | ${rs.median.killToPostingMs} | | ${rs.median.pidToPostingMs} | | |`,
      '',
      `Baseline: ${rs.steady.name}, ${rs.steady.count} calls, p50 ${rs.steady.p50} ms, p99 ${rs.steady.p99} ms; median kill → posting = ` +
        `${rs.ratios.killToPostingVsSteadyP50} × that p50, new pid → posting = ${rs.ratios.pidToPostingVsSteadyP50} ×.`,
    );
  } else out.push(`Ledger kill -9 → first posting: skipped: ${c.restart.skipped}`);
  return out;
}

function spaSection(r: BenchResult): string[] {
  const spa = r.spa;
  if (!spa || 'skipped' in spa)
    return ["## The SPA's JavaScript by route", '', `skipped: ${spa?.skipped ?? NOT_SELECTED}`];
  return [
    "## The SPA's JavaScript by route",
    '',
    runLine(r),
    '',
    `Gzipped JS each route loads (vite's manifest: the entry and its static imports, plus the chunks the route`,
    `brings on demand), from a production build of the run (${spa.buildSeconds} s), against the whole app's JS`,
    'and a minimal React + ReactDOM hello built by the same vite in the same run. 1 KB = 1000 bytes.',
    '',
    `| ${SPA_HEADER.join(' | ')} |`,
    '|---|---:|---:|---:|---:|---:|',
    ...spaRows(spa).map((row) => `| ${row.join(' | ')} |`),
    '',
    spaGoalLine(spa) + '.',
  ];
}

/** What `print(result)` writes to the console, as lines (the module's own table is the one way to show it). */
function printed(print: () => void): string[] {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    print();
  } finally {
    console.log = log;
  }
  return lines.flatMap((l) => l.split('\n'));
}

/** A module whose table is its console print: the run line, what it measures, the table as printed. */
function printedSection(title: string, about: string[], result: object | undefined, print: () => void) {
  return (r: BenchResult): string[] => {
    if (!result || 'skipped' in result)
      return [
        `## ${title}`,
        '',
        `skipped: ${(result as { skipped?: string } | undefined)?.skipped ?? NOT_SELECTED}`,
      ];
    return [`## ${title}`, '', runLine(r), '', ...about, '', '```', ...printed(print), '```'];
  };
}

const builders: Record<Section, (r: BenchResult) => string[]> = {
  logins: (r) =>
    printedSection(
      'Password logins vs the bare argon2id verify',
      [
        "POST api/users/login with the right password at OWASP's argon2id parameters (19 MiB, t=2, p=1), rate limits",
        'lifted on the bench target only, against the same argon2id verify (same hasher and hash pool, same',
        "concurrency) called bare in process and behind a bare HTTP server from the same client (the goal's",
        'baseline); CPU ms per operation from /proc over every thread of the server and the client.',
      ],
      r.logins,
      () => r.logins && printLogins(r.logins),
    )(r),
  livescale: (r) =>
    printedSection(
      'Admin decision → investor push with 10,000 sockets connected',
      [
        'Authenticated sockets from several client processes, 50 decisions/s; the baseline is the same measurement',
        "with a handful of sockets (after 50 untimed decisions, each phase once the target's consumers caught",
        "up); memory is the gateway's per connected socket; the target's event-loop CPU per phase from /proc.",
      ],
      r.liveScale,
      () => r.liveScale && printLiveScale(r.liveScale),
    )(r),
  maturity: (r) =>
    printedSection(
      'Due investments settled in batches through the ledger',
      [
        'SettleMaturities batches against one-at-a-time SettleMaturity calls in the same run, in two topologies:',
        'the ledger service as its own process (as deployed; the goal is read there) and in one process with the',
        'investment side (the standalone).',
      ],
      r.maturity,
      () => r.maturity && printMaturity(r.maturity),
    )(r),
  lists: (r) =>
    printedSection(
      'List routes on a seeded store',
      ['p99 of each list route on a store seeded through the services’ commands vs an empty store.'],
      r.lists,
      () => r.lists && printLists(r.lists),
    )(r),
  support: (r) =>
    printedSection(
      "Support chat: message sent → the other side's socket",
      [
        "Investors each with an open conversation, authenticated sockets from client processes (the admin's and",
        "some investors' measuring sockets in the bench process), messages at a steady rate, open loop, alternating",
        "investor → the admin's sockets and the admin's reply → the investor's socket; timed from just before the POST",
        'until the socket has it. Baseline: a bare socket.io POST → emit in the same run.',
      ],
      r.support,
      () => r.support && printSupport(r.support),
    )(r),
  pageload: (r) =>
    printedSection(
      'Page load on a slow link: compressed vs uncompressed',
      [
        'Bytes transferred and Largest Contentful Paint of /, /login and /dashboard (signed in) in headless Chromium',
        'on an emulated 1.6 Mbps down / 750 kbps up / 150 ms link, cache cleared, against the same pages with',
        'compression refused (Accept-Encoding: identity) in the same run. Goal: LCP ≤ 2.5 s on every page.',
      ],
      r.pageLoad,
      () => r.pageLoad && printPageLoad(r.pageLoad),
    )(r),
  http: httpSection,
  grpc: grpcSection,
  socket: socketSection,
  kafka: kafkaSection,
  cluster: clusterSection,
  spa: spaSection,
};
const resultOf: Record<Section, (r: BenchResult) => object> = {
  http: (r) => r.http,
  grpc: (r) => r.grpc,
  socket: (r) => r.socket,
  kafka: (r) => r.kafkaBus,
  cluster: (r) => r.cluster,
  spa: (r) => r.spa ?? { skipped: NOT_SELECTED },
  logins: (r) => r.logins ?? { skipped: NOT_SELECTED },
  livescale: (r) => r.liveScale ?? { skipped: NOT_SELECTED },
  maturity: (r) => r.maturity ?? { skipped: NOT_SELECTED },
  lists: (r) => r.lists ?? { skipped: NOT_SELECTED },
  support: (r) => r.support ?? { skipped: NOT_SELECTED },
  pageload: (r) => r.pageLoad ?? { skipped: NOT_SELECTED },
};

/** The section of `module` in an earlier README (markers included), if it has one. */
function previousSection(previous: string, module: Section): string | undefined {
  const open = `<!-- bench:${module} -->`;
  const close = `<!-- /bench:${module} -->`;
  const i = previous.indexOf(open);
  const j = previous.indexOf(close);
  return i >= 0 && j > i ? previous.slice(i, j + close.length) : undefined;
}

export function markdownReport(r: BenchResult, previous = ''): string {
  const out: string[] = [
    '# bench/results',
    '',
    '`make bench` writes `latest.json` here (the run before becomes `previous.json`; both git-ignored, as is',
    "`standalone.log`, the target's output). This file quotes runs written with `BENCH_WRITE_README=1 make bench`;",
    "each section names its run (a run with `BENCH_ONLY=…` rewrites only its modules' sections).",
    '',
    'The figures that mean something across machines are the ratios against the baselines measured in the',
    'same run; absolute numbers depend on the machine and on whatever else it was doing.',
    '',
  ];
  // sections written by hand (a summary of the last runs, the goals) keep their place: those the file had
  // before its first module's section stay on top, the others follow the modules'
  const handWritten = [...previous.matchAll(/<!-- bench:([\w-]+) -->/g)].flatMap((m) => {
    if ((SECTIONS as readonly string[]).includes(m[1])) return [];
    const close = `<!-- /bench:${m[1]} -->`;
    const j = previous.indexOf(close, m.index);
    return j > 0 ? [{ at: m.index, text: previous.slice(m.index, j + close.length) }] : [];
  });
  const firstModule = Math.min(
    ...SECTIONS.map((m) => previous.indexOf(`<!-- bench:${m} -->`)).filter((i) => i >= 0),
  );
  for (const h of handWritten) if (h.at < firstModule) out.push(h.text, '');
  for (const module of SECTIONS) {
    const result = resultOf[module](r);
    // a module this run did not measure (not selected, or skipped: no seeded store, no Java) keeps the
    // section of the last run that did
    const before = 'skipped' in result ? previousSection(previous, module) : undefined;
    const kept = before && (isNotSelected(result) || !/\nskipped: /.test(before)) ? before : undefined;
    if (kept) out.push(kept, '');
    else if (!isNotSelected(result))
      out.push(`<!-- bench:${module} -->`, ...builders[module](r), `<!-- /bench:${module} -->`, '');
  }
  for (const h of handWritten) if (h.at > firstModule) out.push(h.text, '');
  return `${out.join('\n')}`;
}

export function writeMarkdownReport(r: BenchResult): void {
  const file = join(root, 'bench/results/README.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  writeFileSync(file, markdownReport(r, previous));
  console.log('quoted in bench/results/README.md');
}
