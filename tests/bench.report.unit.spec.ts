/**
 * bench/results/README.md as bench/report.ts writes it: every module selected gets its section (the
 * modules whose table is their console print quote that print), modules not selected keep the section an
 * earlier run wrote, and sections written by hand survive a rewrite in their place (above or below the modules').
 */
import { describe, expect, it } from 'vitest';
import { markdownReport } from '../bench/report.js';
import type { BenchResult } from '../bench/results.js';

const skipped = { skipped: 'not selected (BENCH_ONLY=lists)' };
const base = {
  at: '2026-11-23T08:00:00.000Z',
  machine: {
    cpus: 2,
    cpuModel: 'test cpu',
    node: 'v20',
    platform: 'linux-x64',
    loadAverage: { start: 1, end: 1 },
  },
  settings: { seconds: 3 },
  modules: ['lists'],
  http: skipped,
  grpc: skipped,
  socket: skipped,
  kafkaBus: skipped,
  cluster: skipped,
  headline: {},
} as unknown as BenchResult;

const figure = (name: string, p99: number) => ({
  name,
  count: 10,
  perSecond: 100,
  p50: 1,
  p99,
  max: p99,
  errors: 0,
});

/** A README section between its markers, as markdownReport writes one. */
const section = (name: string, heading: string) =>
  [`<!-- bench:${name} -->`, heading, `<!-- /bench:${name} -->`].join('\n');
const GRPC_SECTION = section('grpc', '## Ledger postings through gRPC (an earlier run)');
const GOALS_SECTION = section('goals', '## Goals summary written by hand');

describe('bench README report', () => {
  it("quotes the lists module's printed table, keeps other modules' old sections and hand-written ones", () => {
    const previous = [GRPC_SECTION, GOALS_SECTION].join('\n\n');
    const r = {
      ...base,
      lists: {
        users: 1234,
        seeded: [figure('userStats', 42.5)],
        empty: [figure('userStats', 3.25)],
        rssMiB: 200,
      },
    } as unknown as BenchResult;
    const md = markdownReport(r, previous);
    const lists = md.slice(md.indexOf('<!-- bench:lists -->'), md.indexOf('<!-- /bench:lists -->'));
    expect(lists).toContain('Run 2026-11-23T08:00:00.000Z');
    expect(lists).toContain('userStats');
    expect(lists).toContain('42.5');
    expect(md).toContain('## Ledger postings through gRPC (an earlier run)');
    expect(md).toContain('## Goals summary written by hand');
    expect(md.indexOf('<!-- bench:goals -->')).toBeGreaterThan(md.indexOf('<!-- /bench:lists -->'));
    expect(md).not.toContain('<!-- bench:logins -->');
  });

  it('keeps a section written by hand above the modules on top', () => {
    const previous = [section('summary', '## Summary written by hand'), GRPC_SECTION, GOALS_SECTION].join(
      '\n\n',
    );
    const r = { ...base, lists: { skipped: 'no store' } } as unknown as BenchResult;
    const md = markdownReport(r, previous);
    expect(md).toContain('## Summary written by hand');
    expect(md.indexOf('<!-- /bench:summary -->')).toBeLessThan(md.indexOf('<!-- bench:grpc -->'));
    expect(md.indexOf('<!-- bench:goals -->')).toBeGreaterThan(md.indexOf('<!-- /bench:lists -->'));
    expect(md.match(/<!-- bench:summary -->/g)).toHaveLength(1);
  });

  it('a selected module that skipped keeps the section of the last run that measured it', () => {
    const measured = section(
      'lists',
      '## List routes on a seeded store (a run with a seeded store)\n| getUsers pages | 36.6 |',
    );
    const noStore = { skipped: 'no seeded store in data (run `make seed`, or set LISTS_DATA_DIR)' };
    const r = { ...base, modules: ['lists'], lists: noStore } as unknown as BenchResult;
    expect(markdownReport(r, measured)).toContain(measured);
    // an earlier section that only said it skipped is replaced by this run's reason
    const earlierSkip = measured.replace('| getUsers pages | 36.6 |', 'skipped: an older reason');
    const md = markdownReport(r, earlierSkip);
    expect(md).not.toContain('an older reason');
    expect(md).toContain('skipped: no seeded store in data');
  });

  it('a selected module that skipped says why', () => {
    const r = { ...base, modules: ['maturity'], maturity: { skipped: 'no store' } } as unknown as BenchResult;
    const md = markdownReport(r, '');
    expect(md).toMatch(
      /<!-- bench:maturity -->\n## Due investments[^\n]*\n\nskipped: no store\n<!-- \/bench:maturity -->/,
    );
  });
});
