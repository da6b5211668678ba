/**
 * infra/grafana: the overview dashboard and the Prometheus alert rules parse, and every PromQL
 * expression in them names only metrics that the code registers (platform, gateway, notification).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { collectDefaultMetrics, metricsRegistry } from '@meridian/platform/metrics';
import { ROOT } from './infra.env.js';

// What registers metrics when loaded: the platform's relay, buses and gRPC server, the gateway, the email sender,
// the ledger and investment gauges.
await import('@meridian/platform');
await import('@meridian/gateway');
await import('@meridian/notification');
// the ledger's and investment's operator gauges (their app/metrics.ts, loaded by their main)
await import('@meridian/ledger');
await import('@meridian/investment');

const GRAFANA = join(ROOT, 'infra/grafana');

/** Every series name the registry can expose (histograms: _bucket, _sum, _count). */
async function registeredNames(): Promise<Set<string>> {
  collectDefaultMetrics();
  const names = new Set<string>();
  for (const m of await metricsRegistry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

const PROMQL_WORDS = new Set([
  // aggregations, functions, operators, modifiers
  ...'sum min max avg count stddev stdvar topk bottomk quantile count_values group'.split(' '),
  ...'rate irate increase delta idelta deriv histogram_quantile clamp_min clamp_max abs ceil floor round'.split(
    ' ',
  ),
  ...'absent absent_over_time avg_over_time max_over_time min_over_time sum_over_time time vector scalar'.split(
    ' ',
  ),
  ...'and or unless by without on ignoring group_left group_right offset bool'.split(' '),
]);

/** The metric names an expression uses (label matchers, grouping labels, strings and durations removed). */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b\d+(\.\d+)?(e-?\d+)?\b/g, ' ');
  const words = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(words.filter((w) => !PROMQL_WORDS.has(w)))];
}

interface DashboardJson {
  uid: string;
  title: string;
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
}

const dashboard = JSON.parse(
  readFileSync(join(GRAFANA, 'dashboards/meridian-overview.json'), 'utf8'),
) as DashboardJson;
const alerts = parse(readFileSync(join(GRAFANA, 'alerts.yml'), 'utf8')) as {
  groups: Array<{
    name: string;
    rules: Array<{ alert: string; expr: string; labels?: { severity?: string } }>;
  }>;
};

const queries: Array<[string, string]> = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t): [string, string] => [`panel "${p.title}"`, t.expr])),
  ...alerts.groups.flatMap((g) => g.rules.map((r): [string, string] => [`alert ${r.alert}`, r.expr])),
];

describe('infra/grafana', () => {
  it('the dashboard is a Grafana dashboard with panels that query Prometheus', () => {
    expect(dashboard.uid).toBe('meridian-overview');
    expect(dashboard.panels.length).toBeGreaterThan(5);
    for (const p of dashboard.panels) expect(p.targets.length, p.title).toBeGreaterThan(0);
  });

  it('the alert rules cover consumer lag, outbox backlog, 5xx rate and dead letters', () => {
    const exprs = alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)).join('\n');
    for (const metric of [
      'meridian_consumer_lag_events',
      'meridian_outbox_backlog_events',
      'http_server_request_duration_seconds_count{status_code=~"5.."}',
      'meridian_events_dead_lettered_total',
    ])
      expect(exprs).toContain(metric);
    for (const r of alerts.groups.flatMap((g) => g.rules)) expect(r.labels?.severity, r.alert).toBeTruthy();
  });

  it('reads metric names out of PromQL', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.95, sum by (le, route) (rate(http_server_request_duration_seconds_bucket{route!="x"}[5m])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket']);
    expect(metricNamesOf('max by (group) (a_total) > 0 and sum(rate(b_total[1m])) == 0')).toEqual([
      'a_total',
      'b_total',
    ]);
  });

  it.each(queries)('%s names only metrics the code registers', async (_where, expr) => {
    const names = metricNamesOf(expr);
    expect(names.length, expr).toBeGreaterThan(0);
    const known = await registeredNames();
    expect(
      names.filter((n) => !known.has(n)),
      expr,
    ).toEqual([]);
  });
});
