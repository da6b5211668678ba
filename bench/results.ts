/**
 * bench/results/latest.json (the previous one is kept as previous.json; both git-ignored), the printed
 * tables, and the comparison with the previous run. What is compared are the "headline" figures: ratios
 * against baselines of the same run (machine-independent) and the latencies in ms.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { ClusterBenchResult } from './cluster.js';
import type { GrpcBenchResult } from './grpc.js';
import type { MaturityBenchResult } from './maturity.js';
import type { HttpFigure } from './http.js';
import type { KafkaBusResult } from './kafkaBus.js';
import type { SocketBenchResult } from './socket.js';
import type { SpaBenchResult } from './spa.js';
import type { LiveScaleResult } from './liveScale.js';
import type { LoginsBenchResult } from './logins.js';
import type { ListsBenchResult } from './lists.js';
import type { SupportBenchResult } from './support.js';
import { root } from './children.js';
import { table } from './table.js';

export interface BenchResult {
  at: string;
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    platform: string;
    /** 1-minute load average when the bench started and when it ended (other work on the machine). */
    loadAverage: { start: number; end: number };
  };
  settings: Record<string, number>;
  /** The modules run (BENCH_ONLY); the others are `{ skipped: 'not selected …' }`. */
  modules: string[];
  http:
    | { figures: HttpFigure[]; ratios: Record<string, { vsBare: number; vsExpress: number }> }
    | { skipped: string };
  grpc: GrpcBenchResult | { skipped: string };
  socket: SocketBenchResult;
  kafkaBus: KafkaBusResult;
  cluster: ClusterBenchResult;
  /** Module `spa` (bench/spa.ts): absent from runs that did not select it. */
  spa?: SpaBenchResult;
  /** Module `maturity` (bench/maturity.ts): absent from runs that did not select it. */
  maturity?: MaturityBenchResult;
  /** Module `logins` (bench/logins.ts): absent from runs that did not select it. */
  logins?: LoginsBenchResult;
  /** Module `livescale` (bench/liveScale.ts): absent from runs that did not select it. */
  liveScale?: LiveScaleResult;
  /** Module `lists` (bench/lists.ts): absent from runs that did not select it. */
  lists?: ListsBenchResult;
  /** Module `support` (bench/support.ts): absent from runs that did not select it. */
  support?: SupportBenchResult;
  /** The figures compared between runs (name → value). */
  headline: Record<string, number>;
}

export const NOT_SELECTED = 'not selected';

/** The result of a module left out by BENCH_ONLY. */
export function notSelected(only: string): { skipped: string } {
  return { skipped: `${NOT_SELECTED} (BENCH_ONLY=${only})` };
}

export const isNotSelected = (r: object): boolean =>
  'skipped' in r && String((r as { skipped: unknown }).skipped).startsWith(NOT_SELECTED);

export function machine(loadAtStart: number): BenchResult['machine'] {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: { start: +loadAtStart.toFixed(2), end: +loadavg()[0].toFixed(2) },
  };
}

export function headlineOf(r: Omit<BenchResult, 'headline'>): Record<string, number> {
  const h: Record<string, number> = {};
  if ('figures' in r.http) {
    for (const [name, q] of Object.entries(r.http.ratios)) {
      h[`${name} ÷ bare node (req/s)`] = q.vsBare;
      h[`${name} ÷ express (req/s)`] = q.vsExpress;
    }
  }
  if ('ratios' in r.grpc) {
    h['ledger spread ÷ grpc echo (calls/s)'] = r.grpc.ratios.spreadVsEcho;
    h['ledger spread ÷ grpc echo over mutual TLS (calls/s)'] = r.grpc.ratios.spreadVsEchoTls;
    h['ledger hot ÷ grpc echo (calls/s)'] = r.grpc.ratios.hotVsEcho;
    h['ledger hot ÷ spread (postings/s)'] = r.grpc.ratios.hotVsSpread;
    for (const [name, q] of Object.entries(r.grpc.ratios.others ?? {}))
      h[`ledger (${name}) spread ÷ grpc echo (calls/s)`] = q;
  }
  if ('decisionToPush' in r.socket) {
    h['decision → push p50 (ms)'] = r.socket.decisionToPush.p50;
    h['decision → push p99 (ms)'] = r.socket.decisionToPush.p99;
    h['decision → push p50 ÷ bare socket.io p50'] = r.socket.p50VsBaseline;
  }
  if (r.kafkaBus && 'ratios' in r.kafkaBus) {
    h['kafka bus ÷ in-process bus (events/s)'] = r.kafkaBus.ratios.throughputVsInproc;
    h['kafka bus publish → handled p50 (ms)'] = r.kafkaBus.latency[1].p50;
    h['kafka bus publish → handled p99 (ms)'] = r.kafkaBus.latency[1].p99;
    h['kafka bus p50 ÷ in-process p50'] = r.kafkaBus.ratios.p50VsInproc;
  }
  if (r.cluster && 'push' in r.cluster) {
    const c = r.cluster;
    if ('decisionToPush' in c.push) {
      h['cluster decision → push p50 (ms)'] = c.push.decisionToPush.p50;
      h['cluster decision → push p99 (ms)'] = c.push.decisionToPush.p99;
      if (Number.isFinite(c.push.p50VsStandalone))
        h['cluster push p50 ÷ standalone p50'] = c.push.p50VsStandalone;
      if (Number.isFinite(c.push.p99VsStandalone))
        h['cluster push p99 ÷ standalone p99'] = c.push.p99VsStandalone;
    }
    if ('median' in c.restart) {
      h['ledger kill -9 → first posting, median (ms)'] = c.restart.median.killToPostingMs;
      h['ledger new pid → first posting, median (ms)'] = c.restart.median.pidToPostingMs;
      h['ledger new pid → first posting ÷ steady p50'] = c.restart.ratios.pidToPostingVsSteadyP50;
    }
  }
  return h;
}

/** Rotates latest.json → previous.json, writes the new latest.json, prints the comparison. */
export function saveAndCompare(result: BenchResult): void {
  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const latest = join(dir, 'latest.json');
  let previous: Partial<BenchResult> | undefined;
  if (existsSync(latest)) {
    try {
      previous = JSON.parse(readFileSync(latest, 'utf8')) as Partial<BenchResult>;
    } catch {
      previous = undefined;
    }
    renameSync(latest, join(dir, 'previous.json'));
  }
  writeFileSync(latest, `${JSON.stringify(result, null, 2)}\n`);

  console.log('\nagainst the previous run:');
  if (!previous?.headline) {
    console.log(previous ? '  (the previous run has no comparable figures)' : '  (no previous run)');
  } else {
    const rows = Object.entries(result.headline).map(([name, now]): Array<string | number> => {
      const then = previous.headline?.[name];
      return [name, now, then ?? '–', then ? +(now / then).toFixed(2) : '–'];
    });
    const m = previous.machine;
    console.log(
      `  previous run: ${previous.at ?? '?'} on ${m?.cpus ?? '?'} cores (load ${m?.loadAverage?.start ?? '?'} → ${m?.loadAverage?.end ?? '?'}), ` +
        `BENCH_SECONDS=${previous.settings?.seconds ?? '?'}`,
    );
    table(['figure', 'now', 'then', 'now ÷ then'], rows);
  }
  console.log('\nwritten to bench/results/latest.json (previous run: bench/results/previous.json)');
}
