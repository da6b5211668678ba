/**
 * `make bench`: throughput and latency of Meridian as ratios against baselines measured in the same run
 * on the same machine, so the figures mean something whatever the machine. Not a test: it prints tables,
 * writes bench/results/latest.json (the run before is kept as previous.json) and compares the two.
 *
 *   1. HTTP (http.ts): bare Node HTTP and an Express hello route (baselines) vs the gateway's /healthz
 *      and an authenticated GET api/users/getUser, with autocannon.
 *   2. Admin decision → investor socket push latency p50/p99 (socket.ts) vs a bare socket.io emit.
 *   3. Ledger postings/s through gRPC (grpc.ts), many accounts vs one hot account, vs a raw grpc-js echo
 *      over plaintext and over mutual TLS.
 *   4. Events/s and publish → handled latency through the Kafka bus on a real broker (kafkaBus.ts) vs the
 *      in-process bus on a SQLite file.
 *   5. The cluster (cluster.ts: every service its own process on that broker, two gateways): admin decision
 *      → investor push across gateways vs the standalone's (module 2), and kill -9 of the ledger → its first
 *      successful posting vs the same call's steady-state latency.
 *
 * Modules: BENCH_ONLY=http,socket,grpc,kafka,cluster (comma-separated; default all; `spa`, bench/spa.ts:
 * the SPA's gzipped JS by route from a production build; `logins`, bench/logins.ts: password logins vs the
 * bare argon2id verify; `livescale`, bench/liveScale.ts: decision → push with 10,000 sockets connected;
 * `support`, bench/support.ts: support chat message → the other side's socket with 1,000 open conversations;
 * `pageload`, bench/pageLoad.ts: bytes and Largest Contentful Paint of /, /login and /dashboard in headless
 * Chromium on an emulated slow link, compressed vs uncompressed).
 * `cluster` brings `socket` along (its baseline). Modules 4 and 5 need Java and Maven for the broker (scripts/kafka/broker.ts):
 * without them they print why and are skipped.
 *
 * Servers run in child processes (the standalone target; bench/baselineServer.ts for the baselines; the
 * broker and the cluster's processes), the load generators here. Every target is on 127.0.0.1; every run
 * is bounded by BENCH_SECONDS (default 5) and a maximum count; children are stopped on exit, on errors
 * and on Ctrl+C.
 *
 * Knobs: BENCH_SECONDS, BENCH_CONNECTIONS (autocannon, 20), BENCH_GRPC_CONCURRENCY (16),
 * BENCH_MAX_CALLS (gRPC calls per run, 50000), BENCH_SPREAD_USERS (1000), BENCH_ROUNDS (the HTTP runs
 * and the gRPC runs are each interleaved in this many slices, 2), BENCH_MAX_DECISIONS (200),
 * BENCH_BUS_EVENTS (events through each bus, 20000), BENCH_BUS_LATENCY (one-at-a-time events per bus, 200),
 * BENCH_RESTARTS (ledger kill -9 rounds, 3), ADMIN_EMAIL / ADMIN_PASSWORD (the standalone target's admin;
 * generated when unset), BENCH_WRITE_README=1 (also quote the run in the committed bench/results/README.md;
 * the sections of modules not run are kept from the file as it was).
 */
import { benchNumber, benchText, type BenchNumberKnob } from './config.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaUnavailableReason, startKafkaBroker, type KafkaBroker } from '../scripts/kafka/broker.js';
import { benchCluster } from './cluster.js';
import { benchGrpc } from './grpc.js';
import { startBenchLedger, type BenchLedger } from './children.js';
import { benchKafkaBus } from './kafkaBus.js';
import { benchLiveScale, liveScaleSettings } from './liveScale.js';
import { liveScaleHeadline, printLiveScale } from './liveScalePrint.js';
import { benchLogins, loginsHeadline, printLogins } from './logins.js';
import { benchSpa, printSpa, spaHeadline } from './spa.js';
import { benchPageLoad, pageLoadHeadline, printPageLoad } from './pageLoad.js';
import { benchMaturity, maturityHeadline, printMaturity } from './maturity.js';
import { benchLists, listsHeadline, printLists } from './lists.js';
import { measureHttpInterleaved, registerInvestor } from './http.js';
import type { LoadFigure } from './load.js';
import { printTables } from './printTables.js';
import { writeMarkdownReport } from './report.js';
import { headlineOf, machine, notSelected, saveAndCompare, type BenchResult } from './results.js';
import { benchSocket } from './socket.js';
import { benchSupport, printSupport, supportHeadline, supportSettings } from './support.js';
import { startBaselines, startStandaloneTarget } from './standalone.js';

const num = (name: BenchNumberKnob, fallback: number) => benchNumber(name) ?? fallback;
const settings = {
  seconds: num('BENCH_SECONDS', 5),
  connections: num('BENCH_CONNECTIONS', 20),
  grpcConcurrency: num('BENCH_GRPC_CONCURRENCY', 16),
  maxCalls: num('BENCH_MAX_CALLS', 50_000),
  spreadUsers: num('BENCH_SPREAD_USERS', 1000),
  hotEvents: num('BENCH_HOT_EVENTS', 100_000),
  maxDecisions: num('BENCH_MAX_DECISIONS', 200),
  rounds: num('BENCH_ROUNDS', 2),
  busEvents: num('BENCH_BUS_EVENTS', 20_000),
  busLatency: num('BENCH_BUS_LATENCY', 200),
  restarts: num('BENCH_RESTARTS', 3),
};

const MODULES = [
  'http',
  'socket',
  'grpc',
  'kafka',
  'cluster',
  'logins',
  'livescale',
  'spa',
  'maturity',
  'lists',
  'support',
  'pageload',
] as const;
type Module = (typeof MODULES)[number];
function selectedModules(): Set<Module> {
  const raw = benchText('BENCH_ONLY')?.trim();
  if (!raw) return new Set(MODULES);
  const names = raw
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !(MODULES as readonly string[]).includes(n));
  if (unknown.length)
    throw new Error(
      `BENCH_ONLY: unknown module(s) ${unknown.join(', ')}; choose among ${MODULES.join(', ')}`,
    );
  const chosen = new Set(names as Module[]);
  if (chosen.has('cluster')) chosen.add('socket'); // the cluster's push is compared with the standalone's of the same run
  return chosen;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One module of the run, when selected: its header, then what it measured. A module that cannot run answers
 * `{ skipped }` (or throws, which is answered the same way), and the reason is printed.
 */
async function runModule<R extends object>(
  selected: boolean,
  header: string,
  run: () => R | Promise<R>,
): Promise<R | { skipped: string } | undefined> {
  if (!selected) return undefined;
  console.log(`\n${header}`);
  let result: R | { skipped: string };
  try {
    result = await run();
  } catch (err) {
    result = { skipped: errorText(err) };
  }
  if ('skipped' in result) console.log(`  skipped: ${String(result.skipped)}`);
  return result;
}

async function main(): Promise<void> {
  const only = selectedModules();
  const loadAtStart = loadavg()[0];
  const cores = cpus().length;
  console.log(
    `\nMeridian bench: ${settings.seconds} s per run, ${settings.connections} HTTP connections, ` +
      `${settings.grpcConcurrency} concurrent gRPC calls, all on 127.0.0.1 (${cores} cores, node ${process.version}, load ${loadAtStart.toFixed(2)})`,
  );
  console.log(`  modules: ${[...only].join(', ')}${benchText('BENCH_ONLY') ? ' (BENCH_ONLY)' : ''}`);
  if (loadAtStart > cores) {
    console.log(
      `  note: the machine is busy (1-min load ${loadAtStart.toFixed(2)} > ${cores} cores): absolute figures will be low and noisy; the ratios less so.`,
    );
  }
  const skippedBecause = notSelected(benchText('BENCH_ONLY') ?? '');
  let http: BenchResult['http'] = skippedBecause;
  let socket: BenchResult['socket'] = skippedBecause;
  let grpc: BenchResult['grpc'] = skippedBecause;
  let kafkaBus: BenchResult['kafkaBus'] = skippedBecause;
  let cluster: BenchResult['cluster'] = skippedBecause;

  const needsStandalone = only.has('http') || only.has('socket') || only.has('grpc');
  const baselines = needsStandalone ? await startBaselines() : undefined;
  let target: Awaited<ReturnType<typeof startStandaloneTarget>> | undefined;
  let broker: KafkaBroker | undefined;
  let brokerDir: string | undefined;
  try {
    if (needsStandalone && baselines) {
      const standalone = await startStandaloneTarget();
      target = standalone;
      const { url } = standalone;

      // ---- 1. HTTP
      http =
        (await runModule(
          only.has('http'),
          '[1/5] HTTP requests per second (autocannon, runs interleaved)',
          async () => {
            const { browser } = await registerInvestor(url, { verify: false });
            const cookie = browser.cookieHeader();
            const figures = await measureHttpInterleaved(
              [
                { name: 'baseline: bare node http', url: `http://127.0.0.1:${baselines.bare}/` },
                { name: 'baseline: express hello', url: `http://127.0.0.1:${baselines.express}/hello` },
                { name: 'gateway: GET /healthz', url: `${url}/healthz` },
                {
                  name: 'gateway: GET getUser (session)',
                  url: `${url}/api/users/getUser`,
                  headers: { cookie },
                },
              ],
              { seconds: settings.seconds, connections: settings.connections, rounds: settings.rounds },
            );
            for (const f of figures) console.log(`  ${f.name.padEnd(32)} ${String(f.rps).padStart(7)} req/s`);
            const [b, e] = figures;
            const ratios = Object.fromEntries(
              figures
                .slice(2)
                .map((f) => [
                  f.name,
                  { vsBare: +(f.rps / b.rps).toFixed(3), vsExpress: +(f.rps / e.rps).toFixed(3) },
                ]),
            );
            return { figures, ratios };
          },
        )) ?? http;

      // ---- 2. decision → socket push (before the gRPC flood, so the target's event pipeline is quiet)
      socket =
        (await runModule(only.has('socket'), '[2/5] admin decision → investor socket push', async () => {
          const pushed = await benchSocket({
            url,
            baselineUrl: `http://127.0.0.1:${baselines.bare}`,
            admin: standalone.admin,
            seconds: settings.seconds,
            maxCount: settings.maxDecisions,
          });
          if ('decisionToPush' in pushed) console.log(`  ${pushed.decisionToPush.count} decisions measured`);
          return pushed;
        })) ?? socket;

      // ---- 3. ledger postings through gRPC
      grpc =
        (await runModule(only.has('grpc'), '[3/5] ledger postings per second through gRPC', async () => {
          // the ledger measured: its program as its own process, as deployed (startBenchLedger)
          const ledgerDir = mkdtempSync(join(tmpdir(), 'meridian-bench-ledger-'));
          let ownLedger: BenchLedger | undefined;
          try {
            ownLedger = await startBenchLedger(ledgerDir, (line) => console.log(line));
            return await benchGrpc({
              seconds: settings.seconds,
              maxCount: settings.maxCalls,
              concurrency: settings.grpcConcurrency,
              spreadUsers: settings.spreadUsers,
              hotEvents: settings.hotEvents,
              rounds: settings.rounds,
              echoAddress: `127.0.0.1:${baselines.grpc}`,
              echoTls: { address: `127.0.0.1:${baselines.grpcTls}`, caller: baselines.echoCaller },
              ledgers: [
                {
                  name: 'own process',
                  address: ownLedger.address,
                  pid: ownLedger.pid,
                  meshDir: ownLedger.meshDir,
                },
                {
                  name: 'standalone target',
                  address: standalone.ledgerAddress,
                  pid: standalone.pid,
                  meshDir: standalone.meshDir,
                },
              ],
              log: (f: LoadFigure, unit: string) =>
                console.log(
                  `  ${f.name.padEnd(36)} ${String(f.perSecond).padStart(7)} ${unit}${f.errors ? `   (${f.errors} errors: ${f.firstError})` : ''}`,
                ),
            });
          } finally {
            await ownLedger?.stop();
            rmSync(ledgerDir, { recursive: true, force: true });
          }
        })) ?? grpc;
      // the standalone is done: its processes leave the cores to the broker and the cluster
      await Promise.all([standalone.stop(), baselines.stop()]);
      target = undefined;
    }

    // ---- password logins vs the bare argon2id verify (bench/logins.ts; a target of its own)
    const logins = await runModule(
      only.has('logins'),
      '[logins] password logins per second vs the bare argon2id verify',
      () => benchLogins({ seconds: settings.seconds, rounds: settings.rounds, maxCount: 100_000 }),
    );
    // ---- decision → push with 10,000 sockets connected (bench/liveScale.ts; a target of its own)
    const liveScale = await runModule(
      only.has('livescale'),
      '[livescale] admin decision → investor push with many sockets connected',
      () =>
        benchLiveScale({
          seconds: settings.seconds,
          ...liveScaleSettings(),
          log: (line) => console.log(line),
        }),
    );
    // ---- support chat: message → the other side's socket with many conversations and sockets (bench/support.ts)
    const support = await runModule(
      only.has('support'),
      "[support] support chat message → the other side's socket with many sockets connected",
      () =>
        benchSupport({ seconds: settings.seconds, ...supportSettings(), log: (line) => console.log(line) }),
    );
    // ---- maturity: due investments settled in batches vs one at a time (bench/maturity.ts; in process)
    const maturity = await runModule(
      only.has('maturity'),
      '[maturity] due investments settled in batches through the ledger vs one at a time',
      () =>
        benchMaturity({
          count: num('BENCH_MATURITIES', 20_000),
          baseline: num('BENCH_MATURITY_BASELINE', 1_000),
          standalone: benchText('BENCH_MATURITY_STANDALONE') !== '0',
          log: (line) => console.log(line),
        }),
    );
    // ---- lists: list routes' p99 on a seeded store vs an empty one (bench/lists.ts; targets of its own)
    const lists = await runModule(
      only.has('lists'),
      '[lists] getUsers pages, search and user statistics on a seeded store vs an empty one',
      () => benchLists({ seconds: settings.seconds }),
    );
    // ---- spa: the SPA's first-route JS vs the whole app and a React hello (bench/spa.ts; no servers)
    const spa = await runModule(
      only.has('spa'),
      "[spa] the SPA's gzipped JS by route (a production build)",
      () => benchSpa(),
    );
    // ---- page load: bytes and LCP of three pages on a slow link, compressed vs not (bench/pageLoad.ts; a target of its own)
    const pageLoad = await runModule(
      only.has('pageload'),
      '[pageload] bytes and LCP of /, /login and /dashboard in Chromium on a slow link, compressed vs not',
      () => benchPageLoad({ log: (line) => console.log(line) }),
    );

    // ---- 4 and 5 need a Kafka broker (one for both)
    if (only.has('kafka') || only.has('cluster')) {
      const reason = kafkaUnavailableReason();
      if (reason) {
        const skipped = { skipped: `no Kafka broker: ${reason}` };
        if (only.has('kafka')) kafkaBus = skipped;
        if (only.has('cluster')) cluster = skipped;
        console.log(`\n[4/5, 5/5] skipped: ${skipped.skipped}`);
      } else {
        console.log('\nstarting a Kafka broker (KRaft, official jars) ...');
        brokerDir = mkdtempSync(join(tmpdir(), 'meridian-bench-kafka-'));
        const t0 = Date.now();
        try {
          broker = await startKafkaBroker({ dir: brokerDir });
          console.log(
            `  broker at ${broker.brokers.join(',')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
          );
        } catch (err) {
          const skipped = { skipped: `the Kafka broker did not start: ${errorText(err)}` };
          if (only.has('kafka')) kafkaBus = skipped;
          if (only.has('cluster')) cluster = skipped;
          console.log(`  skipped: ${skipped.skipped}`);
        }
      }
    }

    if (broker) {
      const { brokers } = broker;
      // ---- 4. events through the Kafka bus vs the in-process bus
      kafkaBus =
        (await runModule(
          only.has('kafka'),
          '[4/5] events through the Kafka bus vs the in-process bus (publish → handled, one subscription)',
          async () => {
            const bus = await benchKafkaBus({
              brokers,
              seconds: settings.seconds,
              maxEvents: settings.busEvents,
              maxLatency: settings.busLatency,
              rounds: settings.rounds,
            });
            if ('throughput' in bus)
              for (const f of bus.throughput)
                console.log(
                  `  ${f.name.padEnd(36)} ${String(f.perSecond).padStart(7)} events/s (${f.events} of ${f.published} events handled in ${f.seconds} s)`,
                );
            return bus;
          },
        )) ?? kafkaBus;

      // ---- 5. the cluster: decision → push across gateways, ledger kill -9 → first posting
      const standalonePush = 'decisionToPush' in socket ? socket.decisionToPush : undefined;
      cluster =
        (await runModule(
          only.has('cluster'),
          '[5/5] the cluster (every service its own process on Kafka, two gateways); starting it ...',
          () =>
            benchCluster({
              kafkaBrokers: brokers,
              seconds: settings.seconds,
              maxDecisions: settings.maxDecisions,
              restarts: settings.restarts,
              standalone: standalonePush,
              log: (line) => console.log(line),
            }),
        )) ?? cluster;
    }

    // ---- tables
    const partial: Omit<BenchResult, 'headline'> = {
      at: new Date().toISOString(),
      machine: machine(loadAtStart),
      settings,
      modules: [...only],
      http,
      grpc,
      socket,
      kafkaBus,
      cluster,
    };
    const result: BenchResult = {
      ...partial,
      ...(logins ? { logins } : {}),
      ...(liveScale ? { liveScale } : {}),
      ...(spa ? { spa } : {}),
      ...(maturity ? { maturity } : {}),
      ...(lists ? { lists } : {}),
      ...(support ? { support } : {}),
      ...(pageLoad ? { pageLoad } : {}),
      headline: {
        ...headlineOf(partial),
        ...loginsHeadline(logins),
        ...liveScaleHeadline(liveScale),
        ...spaHeadline(spa),
        ...maturityHeadline(maturity),
        ...listsHeadline(lists),
        ...supportHeadline(support),
        ...pageLoadHeadline(pageLoad),
      },
    };
    printTables(result);
    if (logins) printLogins(logins);
    if (liveScale) printLiveScale(liveScale);
    if (spa) printSpa(spa);
    if (maturity) printMaturity(maturity);
    if (lists) printLists(lists);
    if (support) printSupport(support);
    if (pageLoad) printPageLoad(pageLoad);
    saveAndCompare(result);
    if (benchText('BENCH_WRITE_README') === '1') writeMarkdownReport(result);
  } finally {
    await Promise.all([target?.stop(), baselines?.stop(), broker?.stop()]);
    if (brokerDir) rmSync(brokerDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  },
);
