/**
 * infra/grafana: the overview dashboard and the Prometheus alert rules parse, and every PromQL
 * expression in them names only metrics that the code registers (platform, gateway, notification).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { collectDefaultMetrics, metricsRegistry } from '@meridian/platform/metrics';
import { DEPLOYABLES, ROOT } from './infra.env.js';
import { PROMETHEUS_RULE_FILE, prometheusRule } from '../scripts/k8s/prometheusRule.js';

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

/**
 * Series that come from Prometheus itself (`up`) or from the exporters of the data stores, which compose's
 * observability profile and the Kubernetes observability component run (tests/infra.observability checks
 * they are scraped): metric -> where it comes from.
 */
const EXTERNAL_METRICS: Record<string, string> = {
  up: 'prometheus',
  kafka_brokers: 'kafka-exporter',
  kafka_topic_partition_under_replicated_partition: 'kafka-exporter',
  mongodb_up: 'mongodb-exporter',
  redis_up: 'redis-exporter',
  redis_memory_used_bytes: 'redis-exporter',
  redis_memory_max_bytes: 'redis-exporter',
};
const rules = alerts.groups.flatMap((g) =>
  g.rules.map((r) => r as typeof r & { for?: string; annotations?: Record<string, string> }),
);

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
      names.filter((n) => !known.has(n) && !EXTERNAL_METRICS[n]),
      expr,
    ).toEqual([]);
  });

  it('every metric not registered by the code comes from an exporter compose scrapes and Kubernetes monitors', () => {
    const prometheus = parse(readFileSync(join(ROOT, 'infra/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string }>;
    };
    const jobs = prometheus.scrape_configs.map((j) => j.job_name);
    const component = readFileSync(join(ROOT, 'infra/k8s/components/observability/exporters.yaml'), 'utf8');
    for (const source of new Set(Object.values(EXTERNAL_METRICS))) {
      if (source === 'prometheus') continue;
      expect(jobs, source).toContain(source);
      expect(component, source).toContain(`replacement: ${source}`);
    }
  });

  it('alerts fire when a target is down or absent, and on Kafka, MongoDB and Redis', () => {
    const exprs = rules.map((r) => r.expr.replace(/\s+/g, ' '));
    expect(exprs).toContain('up == 0');
    for (const [name] of DEPLOYABLES)
      expect(
        exprs.some((e) => e.includes(`absent(up{job="${name}"})`)),
        name,
      ).toBe(true);
    for (const dependency of ['kafka_', 'mongodb_', 'redis_'])
      expect(
        exprs.some((e) => e.includes(dependency)),
        dependency,
      ).toBe(true);
  });

  it('every alert has a runbook_url: a page of docs/runbooks/ that exists, at a heading it has', () => {
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .trim()
        .replace(/\s+/g, '-');
    for (const r of rules) {
      const url = r.annotations?.runbook_url ?? '';
      const [file, anchor] = url.split('#');
      expect(file, r.alert).toMatch(/^docs\/runbooks\/[a-z0-9-]+\.md$/);
      expect(existsSync(join(ROOT, file!)), `${r.alert}: ${file}`).toBe(true);
      if (anchor) {
        const headings = [...readFileSync(join(ROOT, file!), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
          slug(m[1]!),
        );
        expect(headings, `${r.alert}: #${anchor}`).toContain(anchor);
      }
    }
  });

  it('the PrometheusRule of Kubernetes holds exactly the groups of alerts.yml (scripts/k8s/prometheusRule.ts)', () => {
    const [doc] = parseAllDocuments(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).map((d) => d.toJS());
    expect(doc).toEqual(prometheusRule());
    expect(doc.spec.groups).toEqual(alerts.groups);
    // the check sees a drift: a rule changed in alerts.yml only
    const changed = readFileSync(join(GRAFANA, 'alerts.yml'), 'utf8').replace('> 1000', '> 2000');
    expect(prometheusRule(changed)).not.toEqual(doc);
  });
});
