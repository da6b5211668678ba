/** The live-push scale run's results on the console, and its headline figures (bench/liveScale.ts runs it). */
import type { LiveScalePhase, LiveScaleResult } from './liveScale.js';
import { round } from './load.js';
import { table } from './table.js';

export function printLiveScale(r: LiveScaleResult): void {
  if ('skipped' in r) {
    console.log(`\nlive pushes at scale: skipped: ${r.skipped}`);
    return;
  }
  console.log(
    `\nlive pushes at scale: admin decision → investor push (ms; ${r.rate} decisions/s asked, open loop)`,
  );
  const rows = (name: string, ph: LiveScalePhase) =>
    [ph.toStatus, ph.toBalances, ph.http].map((f) => [
      `${name}: ${f.name}`,
      ph.sockets,
      f.count,
      ph.achievedRate,
      f.p50,
      f.p99,
      f.max,
      ph.failures,
      ph.loopCpuPct ?? NaN,
      ph.loopCpuMsPerDecision ?? NaN,
    ]);
  table(
    [
      'run',
      'sockets',
      'count',
      'per s',
      'p50',
      'p99',
      'max',
      'failures',
      'loop CPU %',
      'loop ms per decision',
    ],
    [...rows('baseline', r.baseline), ...rows('at scale', r.atScale)],
  );
  const m = r.memory;
  console.log(
    `  goal: p50 ≤ 10 ms, p99 ≤ 25 ms at 10,000 sockets; at scale ÷ baseline (status push): p50 ${round(r.atScale.toStatus.p50 / r.baseline.toStatus.p50, 2)}, p99 ${round(r.atScale.toStatus.p99 / r.baseline.toStatus.p99, 2)}`,
  );
  console.log(
    `  ${r.connect.connected} of ${r.connect.wanted} sockets connected in ${r.connect.seconds} s (${r.connect.failed} failed${r.connect.firstError ? `: ${r.connect.firstError}` : ''})`,
  );
  console.log(
    `  target memory: RSS ${m.rssBeforeMb} → ${m.rssAfterMb} MB (${m.rssPerSocketKb} KB per socket), V8 heap used ${m.heapBeforeMb} → ${m.heapAfterMb} MB (${m.heapPerSocketKb} KB per socket)`,
  );
  if (r.idle)
    console.log(
      `  target event loop CPU with no decisions (${r.idle.seconds} s): ${r.idle.loopCpuPctBefore} % before the sockets, ${r.idle.loopCpuPctAtScale} % with them (heartbeats, session checks)`,
    );
  console.log(
    `  the other users' sockets received ${r.crossTalk.statusChanged} status and ${r.crossTalk.balancesChanged} balances pushes meant for the investors (must be 0)`,
  );
  if (r.atScale.firstFailure) console.log(`  first failure: ${r.atScale.firstFailure}`);
}

export function liveScaleHeadline(r: LiveScaleResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  return {
    'live at scale: decision → push p50 (ms)': r.atScale.toStatus.p50,
    'live at scale: decision → push p99 (ms)': r.atScale.toStatus.p99,
    'live at scale p50 ÷ few-sockets p50': round(r.atScale.toStatus.p50 / r.baseline.toStatus.p50, 2),
    'gateway RSS per socket (KB)': r.memory.rssPerSocketKb,
  };
}
