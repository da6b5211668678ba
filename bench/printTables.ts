/** The bench run's results as tables on the console (bench/run.ts prints them after the run). */
import { grpcFigureRows } from './grpc.js';
import type { LoadFigure } from './load.js';
import type { BenchResult } from './results.js';
import { table } from './table.js';

export function printTables(r: BenchResult): void {
  const m = r.machine;
  console.log(
    `\n=== results === (${m.cpus} × ${m.cpuModel}, ${m.node}, 1-min load ${m.loadAverage.start} at start, ${m.loadAverage.end} at end)`,
  );
  if ('figures' in r.http) {
    console.log('\nHTTP (autocannon, req/s; latency ms, slices weighted)');
    const [b, e] = r.http.figures;
    table(
      ['run', 'req/s', 'p50', 'p99', 'non-2xx', '÷ bare', '÷ express'],
      r.http.figures.map((f) => [
        f.name,
        f.rps,
        f.p50,
        f.p99,
        f.non2xx + f.errors,
        +(f.rps / b.rps).toFixed(3),
        +(f.rps / e.rps).toFixed(3),
      ]),
    );
  } else console.log(`\nHTTP: skipped: ${r.http.skipped}`);

  if ('figures' in r.grpc) {
    console.log('\ngRPC unary (calls/s; latency per call ms)');
    const { echo: echoFig, echoTls, spread } = r.grpc.figures;
    const isEcho = (f: LoadFigure) => f === echoFig || f === echoTls;
    table(
      ['run', 'calls/s', 'p50', 'p99', 'calls', 'errors', '÷ echo', '÷ TLS echo', '÷ spread'],
      grpcFigureRows(r.grpc.figures).map((f) => [
        f.name,
        f.perSecond,
        f.p50,
        f.p99,
        f.count,
        f.errors,
        +(f.perSecond / echoFig.perSecond).toFixed(3),
        +(f.perSecond / echoTls.perSecond).toFixed(3),
        isEcho(f) ? '–' : +(f.perSecond / spread.perSecond).toFixed(3),
      ]),
    );
    console.log(
      `  ÷ echo: against the plaintext echo (the goal's baseline); ÷ TLS echo: against the same echo over mutual TLS, the ledger's transport (spread ÷ TLS echo ${r.grpc.ratios.spreadVsEchoTls})`,
    );
    console.log(
      `  hot account: ${r.grpc.hotPostings} postings on one user's ledger stream by the end; the long hot stream held ${r.grpc.hotStreamEvents?.long ?? '?'} events at its start (a command reads its state row, not its stream)`,
    );
    if (r.grpc.ledgers)
      console.log(
        `  the goal's figures are the first ledger's (${r.grpc.ledgers[0]}); ÷ spread is against its spread run`,
      );
  } else console.log(`\ngRPC: skipped: ${r.grpc.skipped}`);

  if ('decisionToPush' in r.socket) {
    console.log('\nadmin decision → investor socket push (ms, one decision at a time)');
    const s = r.socket;
    table(
      ['run', 'count', 'p50', 'p99', 'max', '÷ baseline p50'],
      [s.baseline, s.decisionToPush, s.decisionHttp].map((f) => [
        f.name,
        f.count,
        f.p50,
        f.p99,
        f.max,
        +(f.p50 / s.baseline.p50).toFixed(1),
      ]),
    );
  } else console.log(`\nadmin decision → investor socket push: skipped: ${r.socket.skipped}`);

  if ('throughput' in r.kafkaBus) {
    const k = r.kafkaBus;
    console.log(
      `\nevent bus, publish → handled, one subscription (batches of ${k.batchSize}; latency: one event at a time, ms)`,
    );
    const [inproc] = k.throughput;
    table(
      ['bus', 'events/s', 'handled', 'published', 'seconds', 'publish/s', '÷ in-process'],
      k.throughput.map((f) => [
        f.name,
        f.perSecond,
        f.events,
        f.published,
        f.seconds,
        f.publishPerSecond,
        +(f.perSecond / inproc.perSecond).toFixed(3),
      ]),
    );
    const [li] = k.latency;
    table(
      ['latency', 'count', 'p50', 'p99', 'max', '÷ in-process p50'],
      k.latency.map((f) => [f.name, f.count, f.p50, f.p99, f.max, +(f.p50 / li.p50).toFixed(1)]),
    );
  } else console.log(`\nevent bus: skipped: ${r.kafkaBus.skipped}`);

  if ('push' in r.cluster) {
    const c = r.cluster;
    console.log(
      `\ncluster (every service its own process on Kafka, two gateways; up in ${c.startSeconds} s)`,
    );
    if ('decisionToPush' in c.push) {
      const standalone = c.push.standalone;
      console.log(
        'admin decision → investor socket push (ms, one decision at a time; admin on gateway B, investor on A)',
      );
      table(
        ['run', 'count', 'p50', 'p99', 'max', 'p50 ÷ standalone', 'p99 ÷ standalone'],
        [
          ...(standalone
            ? [[standalone.name, standalone.count, standalone.p50, standalone.p99, standalone.max, 1, 1]]
            : []),
          [
            c.push.decisionToPush.name,
            c.push.decisionToPush.count,
            c.push.decisionToPush.p50,
            c.push.decisionToPush.p99,
            c.push.decisionToPush.max,
            c.push.p50VsStandalone,
            c.push.p99VsStandalone,
          ],
          [
            c.push.decisionHttp.name,
            c.push.decisionHttp.count,
            c.push.decisionHttp.p50,
            c.push.decisionHttp.p99,
            c.push.decisionHttp.max,
            '–',
            '–',
          ],
        ],
      );
    } else console.log(`admin decision → investor push: skipped: ${c.push.skipped}`);
    if ('rounds' in c.restart) {
      const rs = c.restart;
      console.log(
        'ledger kill -9 → first successful posting through the gateway (ms; the supervisor restarts it)',
      );
      table(
        [
          'round',
          'kill → posting',
          'kill → new pid',
          'new pid → posting',
          'of which pid → port open',
          'attempts',
          'kill → posting ÷ steady p50',
        ],
        rs.rounds.map((x, i) => [
          `#${i + 1}`,
          x.killToPostingMs,
          x.killToPidMs,
          x.pidToPostingMs,
          x.pidToListenMs,
          x.attempts,
          +(x.killToPostingMs / rs.steady.p50).toFixed(1),
        ]),
      );
      console.log(
        `  median: kill → posting ${rs.median.killToPostingMs} ms (${rs.ratios.killToPostingVsSteadyP50} × steady p50), ` +
          `new pid → posting ${rs.median.pidToPostingMs} ms (${rs.ratios.pidToPostingVsSteadyP50} × steady p50)`,
      );
      console.log(
        `  steady state: ${rs.steady.name}: ${rs.steady.count} calls, p50 ${rs.steady.p50} ms, p99 ${rs.steady.p99} ms`,
      );
    } else console.log(`ledger kill -9 → first posting: skipped: ${c.restart.skipped}`);
  } else console.log(`\ncluster: skipped: ${r.cluster.skipped}`);
}
