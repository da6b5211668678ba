/**
 * bench/results/README.md (committed): the last run quoted as markdown. Written only when asked
 * (`BENCH_WRITE_README=1 make bench`), so ordinary runs leave the committed file alone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './children.js';
import type { BenchResult } from './results.js';

const n = (v: number) => (Number.isFinite(v) ? String(v) : '–');

export function markdownReport(r: BenchResult): string {
  const m = r.machine;
  const out: string[] = [
    '# bench/results',
    '',
    '`make bench` writes `latest.json` here (the run before becomes `previous.json`; both git-ignored, as is',
    "`standalone.log`, the target's output). This file quotes the last run written with",
    '`BENCH_WRITE_README=1 make bench`:',
    '',
    `- ${r.at}, ${m.cpus} × ${m.cpuModel}, node ${m.node}, ${m.platform}; 1-min load average ${m.loadAverage.start} at start, ${m.loadAverage.end} at end`,
    `- settings: ${Object.entries(r.settings).map(([k, v]) => `${k}=${v}`).join(', ')}`,
    '',
    'The figures that mean something across machines are the ratios against the baselines measured in the',
    'same run; absolute numbers depend on the machine and on whatever else it was doing.',
    '',
  ];
  if ('figures' in r.http) {
    const [b, e] = r.http.figures;
    out.push('## HTTP (autocannon; runs interleaved, p50/p99 weighted over slices)', '', '| run | req/s | p50 ms | p99 ms | non-2xx | ÷ bare node | ÷ express |', '|---|---:|---:|---:|---:|---:|---:|');
    for (const f of r.http.figures)
      out.push(`| ${f.name} | ${f.rps} | ${f.p50} | ${f.p99} | ${f.non2xx + f.errors} | ${(f.rps / b.rps).toFixed(3)} | ${(f.rps / e.rps).toFixed(3)} |`);
    out.push('');
  } else out.push(`## HTTP`, '', `skipped: ${r.http.skipped}`, '');

  if ('figures' in r.grpc) {
    const [echoFig, spread] = r.grpc.figures;
    out.push(
      '## Ledger postings through gRPC (standalone target)',
      '',
      `One posting per call (admin AdjustBalance add $1 to a Deposit Balance), ${r.settings.grpcConcurrency} calls in flight,`,
      `the three runs interleaved in ${r.settings.rounds} slices. Hot account: ${r.grpc.hotPostings} postings on one user's stream by the end.`,
      '',
      '| run | calls/s | p50 ms | p99 ms | calls | errors | ÷ grpc echo | ÷ spread |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const f of r.grpc.figures)
      out.push(
        `| ${f.name} | ${f.perSecond} | ${f.p50} | ${f.p99} | ${f.count} | ${f.errors} | ${(f.perSecond / echoFig.perSecond).toFixed(3)} | ${f === echoFig ? '–' : (f.perSecond / spread.perSecond).toFixed(3)} |`,
      );
    out.push('');
  } else out.push('## Ledger postings through gRPC', '', `skipped: ${r.grpc.skipped}`, '');

  if ('decisionToPush' in r.socket) {
    const s = r.socket;
    out.push(
      '## Admin decision → investor socket push',
      '',
      'Investor POST api/payments/create → admin PATCH api/payments/confirmPayment → the investor\'s socket receives',
      "'balances/changed' with the new balance; one decision at a time, timed from just before the PATCH.",
      '',
      '| run | count | p50 ms | p99 ms | max ms | p50 ÷ baseline p50 |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const f of [s.baseline, s.decisionToPush, s.decisionHttp])
      out.push(`| ${f.name} | ${f.count} | ${n(f.p50)} | ${n(f.p99)} | ${n(f.max)} | ${(f.p50 / s.baseline.p50).toFixed(1)} |`);
    if (s.decisionToPush.count < 100) out.push('', `With ${s.decisionToPush.count} decisions, p99 is the slowest one.`);
    out.push('');
  } else out.push('## Admin decision → investor socket push', '', `skipped: ${r.socket.skipped}`, '');
  if (m.loadAverage.start > m.cpus)
    out.push(`Note: the machine was busy with other work (load ${m.loadAverage.start} on ${m.cpus} cores); absolute figures are low and noisy.`, '');
  return `${out.join('\n')}`;
}

export function writeMarkdownReport(r: BenchResult): void {
  writeFileSync(join(root, 'bench/results/README.md'), markdownReport(r));
  console.log('quoted in bench/results/README.md');
}
