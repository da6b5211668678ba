/**
 * What an operator watches Meridian with, read without a container engine or a cluster:
 * docker compose's `observability` profile, infra/compose.observability.yml laid over docker-compose.yml (Prometheus scraping every Node container on the metrics
 * port it serves on, with infra/grafana/alerts.yml as rules; Grafana provisioned with the Prometheus
 * datasource and infra/grafana/dashboards; an OpenTelemetry collector) and the ServiceMonitors of
 * infra/k8s/base (one per Node deployable, selecting its Service's `metrics` port).
 */
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_METRICS_PORT, metricsPortOf } from '@meridian/platform/config';
import { DEPLOYABLES, filesUnder, interpolate, readText, readYamlDocs } from './infra.env.js';

interface ComposeService {
  image?: string;
  profiles?: string[];
  command?: string[] | string;
  environment?: Record<string, unknown>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, unknown> | string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
const OBSERVABILITY_FILE = 'infra/compose.observability.yml';
const main = parse(readText('docker-compose.yml')) as ComposeFile;
const observability = parse(readText(OBSERVABILITY_FILE)) as ComposeFile;
/** The services compose runs with both files: the second adds services and never redefines one of the first. */
const services = { ...main.services, ...observability.services };
/** The exporters of the data stores, and the port each serves /metrics on by default. */
const EXPORTERS: Record<string, number> = {
  'kafka-exporter': 9308,
  'mongodb-exporter': 9216,
  'redis-exporter': 9121,
};
const OBSERVABILITY = ['prometheus', 'grafana', 'otel-collector', 'jaeger', ...Object.keys(EXPORTERS)];

/** The repository path a container path of `service` comes from (its read-only bind mounts). */
function hostPathOf(service: string, containerPath: string): string | undefined {
  for (const v of services[service]?.volumes ?? []) {
    const [source, target] = String(v).split(':') as [string, string];
    if (!source.startsWith('./')) continue;
    if (containerPath === target) return posix.normalize(source);
    if (containerPath.startsWith(`${target}/`))
      return posix.join(source, posix.relative(target, containerPath));
  }
  return undefined;
}

/** The value of a `--flag=value` of a container's command. */
const flag = (service: string, name: string) =>
  [services[service]?.command ?? []]
    .flat()
    .map(String)
    .find((a) => a.startsWith(`--${name}=`))
    ?.slice(name.length + 3);

/** The metrics port a compose service serves on, as its own config decides (0 = none). */
function composeMetricsPort(schema: (typeof DEPLOYABLES)[number][1], name: string): number {
  const env = Object.fromEntries(
    Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(v)]),
  );
  return metricsPortOf(schema.parse(env) as Parameters<typeof metricsPortOf>[0]);
}

const prometheusConfigPath = hostPathOf('prometheus', flag('prometheus', 'config.file') ?? '');
const prometheus = parse(readText(prometheusConfigPath ?? 'infra/prometheus/prometheus.yml')) as {
  rule_files: string[];
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
};
const scraped = prometheus.scrape_configs.flatMap((j) =>
  j.static_configs.flatMap((s) => s.targets.map((target) => ({ job: j.job_name, target }))),
);

describe('docker compose: the observability profile', () => {
  it('its containers, and only they, live in infra/compose.observability.yml, which make up-observability and make down lay over docker-compose.yml', () => {
    expect(Object.keys(observability.services).sort()).toEqual([...OBSERVABILITY].sort());
    expect(Object.keys(main.services).filter((name) => OBSERVABILITY.includes(name))).toEqual([]);
    expect(Object.keys(observability.volumes ?? {})).toEqual(['prometheus-data']);
    const make = readText('Makefile');
    const command = /^COMPOSE_OBSERVABILITY = (.+)$/m.exec(make)?.[1];
    expect(command).toBe(
      `docker compose -f docker-compose.yml -f ${OBSERVABILITY_FILE} --profile observability`,
    );
    for (const target of ['up-observability', 'down'])
      expect(new RegExp(`^${target}:.*\\n\\t.*\\$\\(COMPOSE_OBSERVABILITY\\)`, 'm').test(make), target).toBe(
        true,
      );
  });

  it('needs no secret of its own: every variable it requires is one docker-compose.yml requires (the .env make up writes has it)', () => {
    const required = (text: string) => new Set([...text.matchAll(/\$\{([A-Z0-9_]+):?\?/g)].map((m) => m[1]));
    const ownRequired = [...required(readText(OBSERVABILITY_FILE))];
    expect(ownRequired.length).toBeGreaterThan(0);
    const mainRequired = required(readText('docker-compose.yml'));
    for (const name of ownRequired) expect(mainRequired.has(name), name).toBe(true);
  });

  it('Prometheus, Grafana and the collector run only in it; the default profile neither has nor waits on them', () => {
    for (const name of OBSERVABILITY) expect(services[name]?.profiles, name).toEqual(['observability']);
    for (const [name, s] of Object.entries(services).filter(([n]) => !OBSERVABILITY.includes(n))) {
      expect(s.profiles, name).toBeUndefined();
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      expect(
        deps.filter((d) => OBSERVABILITY.includes(d)),
        name,
      ).toEqual([]);
    }
  });

  it('images are pinned by tag, and every published port is bound to this machine only', () => {
    for (const name of OBSERVABILITY) {
      expect(services[name]?.image, name).toMatch(/^[a-z0-9._/-]+:[0-9a-z][\w.-]*$/);
      expect(services[name]?.image, name).not.toMatch(/:latest$/);
      for (const p of services[name]?.ports ?? []) expect(p, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
    expect(services.prometheus?.ports).toContain('127.0.0.1:9090:9090');
    expect(services.grafana?.ports).toContain('127.0.0.1:3000:3000');
  });

  it('Prometheus loads infra/prometheus/prometheus.yml', () => {
    expect(prometheusConfigPath).toBe('infra/prometheus/prometheus.yml');
  });

  it.each(DEPLOYABLES)(
    '%s serves metrics in compose, and Prometheus scrapes it there (job = its name)',
    (name, schema) => {
      const port = composeMetricsPort(schema, name);
      expect(port, `${name} serves no metrics in compose`).toBe(DEFAULT_METRICS_PORT);
      expect(scraped.filter((s) => s.job === name).map((s) => s.target)).toEqual([`${name}:${port}`]);
    },
  );

  it('every scrape target is a compose service, at the port it serves metrics on', () => {
    const ports = new Map([
      ...DEPLOYABLES.map(([name, schema]): [string, number] => [name, composeMetricsPort(schema, name)]),
      ...Object.entries(EXPORTERS),
    ]);
    for (const { job, target } of scraped) {
      const [host, port] = target.split(':');
      expect(Object.keys(services), target).toContain(host);
      expect(ports.get(host!), `${job}: ${target}`).toBe(Number(port));
    }
  });

  it('the metrics port is never a port the same container serves its API on', () => {
    for (const [name] of DEPLOYABLES) {
      const env = services[name]?.environment ?? {};
      const apiPorts = Object.entries(env)
        .filter(([k]) => k === 'PORT' || /_(GRPC|HTTP)_ADDR$/.test(k))
        .map(([, v]) => Number(String(v).split(':').pop()));
      expect(apiPorts.length, name).toBeGreaterThan(0);
      expect(apiPorts, name).not.toContain(DEFAULT_METRICS_PORT);
    }
  });

  it('the rule file Prometheus loads is infra/grafana/alerts.yml (the one tests/infra.grafana checks)', () => {
    expect(prometheus.rule_files.length).toBeGreaterThan(0);
    for (const f of prometheus.rule_files)
      expect(hostPathOf('prometheus', f), f).toBe('infra/grafana/alerts.yml');
    const rules = parse(readText('infra/grafana/alerts.yml')) as { groups: Array<{ rules: unknown[] }> };
    expect(rules.groups.flatMap((g) => g.rules).length).toBeGreaterThan(0);
  });

  it('Grafana is provisioned with the compose Prometheus as default datasource and the dashboards of infra/grafana/dashboards', () => {
    const provisioning = hostPathOf('grafana', '/etc/grafana/provisioning');
    expect(provisioning).toBe('infra/grafana/provisioning');
    const sources = readYamlDocs(`${provisioning}/datasources/prometheus.yml`)[0]!.doc.datasources;
    const source = sources.find((d: any) => d.type === 'prometheus');
    expect(source.isDefault).toBe(true);
    const url = new URL(source.url);
    expect(url.hostname).toBe('prometheus');
    expect(services.prometheus?.ports?.map((p) => p.split(':').pop())).toContain(url.port);

    const providers = filesUnder(`${provisioning}/dashboards`, /\.ya?ml$/).flatMap(
      (f) => readYamlDocs(f)[0]!.doc.providers,
    );
    expect(providers.length).toBeGreaterThan(0);
    const dirs = providers.map((p: any) => hostPathOf('grafana', p.options.path));
    expect(dirs).toEqual(['infra/grafana/dashboards']);
    expect(filesUnder(dirs[0]!, /\.json$/)).toContain('infra/grafana/dashboards/meridian-overview.json');
    const home = String(services.grafana?.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH);
    expect(hostPathOf('grafana', home)).toBe('infra/grafana/dashboards/meridian-overview.json');
  });

  it('the collector loads infra/otel/collector.yml: OTLP in (gRPC and HTTP, published locally), traces out to Jaeger', () => {
    const path = hostPathOf('otel-collector', flag('otel-collector', 'config') ?? '');
    expect(path).toBe('infra/otel/collector.yml');
    const config = readYamlDocs(path!)[0]!.doc;
    const protocols = config.receivers.otlp.protocols;
    expect(Object.keys(protocols).sort()).toEqual(['grpc', 'http']);
    for (const [signal, pipeline] of Object.entries<any>(config.service.pipelines)) {
      expect(pipeline.receivers, signal).toEqual(['otlp']);
      expect(pipeline.exporters.length, signal).toBeGreaterThan(0);
    }
    // traces leave the collector for Jaeger (not only its log)
    const traceExporters = config.service.pipelines.traces.exporters as string[];
    expect(traceExporters).not.toEqual(['debug']);
    const jaeger = traceExporters
      .map((e) => config.exporters[e])
      .find((e: any) => /^jaeger:/.test(e?.endpoint));
    expect(jaeger, 'a traces exporter sends to jaeger').toBeDefined();
    expect(jaeger.endpoint).toBe('jaeger:4317');
    for (const p of Object.values<any>(protocols))
      expect(services['otel-collector']?.ports).toContain(
        `127.0.0.1:${p.endpoint.split(':').pop()}:${p.endpoint.split(':').pop()}`,
      );
  });

  it('Jaeger (all-in-one, v2: OTLP receiver on 4317 by default) runs in the profile, its UI on this machine only', () => {
    expect(services.jaeger?.image).toMatch(/^jaegertracing\/jaeger:2\.\d+\.\d+$/);
    expect(services.jaeger?.ports).toContain('127.0.0.1:16686:16686');
    const deps = services['otel-collector']?.depends_on;
    expect(Array.isArray(deps) ? deps : Object.keys(deps ?? {})).toContain('jaeger');
  });

  it('the Kubernetes component runs the same collector configuration, and Jaeger behind a Service named jaeger', () => {
    const dir = 'infra/k8s/components/observability';
    expect(readText(`${dir}/collector.yml`)).toBe(readText('infra/otel/collector.yml'));
    const docs = filesUnder(dir, /\.ya?ml$/)
      .flatMap((f) => readYamlDocs(f))
      .map((d) => d.doc)
      .filter((d) => d && d.kind);
    const jaegerService = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'jaeger');
    expect(jaegerService.spec.ports.map((p: any) => p.port)).toContain(4317);
    const jaeger = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'jaeger');
    expect(jaeger.spec.template.spec.containers[0].image).toBe(services.jaeger?.image);
  });

  it('each exporter the dependency alerts read runs in the profile and is scraped with its job name', () => {
    for (const [name, port] of Object.entries(EXPORTERS)) {
      expect(services[name]?.profiles, name).toEqual(['observability']);
      expect(scraped.filter((s) => s.job === name).map((s) => s.target)).toEqual([`${name}:${port}`]);
    }
  });
});

describe('infra/k8s/base: a ServiceMonitor per Node deployable', () => {
  const docs = filesUnder('infra/k8s/base', /\.ya?ml$/)
    .flatMap((f) => readYamlDocs(f))
    .map((d) => d.doc);
  const of = (kind: string) => docs.filter((d) => d.kind === kind);
  const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
    Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

  it.each(DEPLOYABLES)(
    '%s: its container and Service expose `metrics` and a ServiceMonitor scrapes that port',
    (name) => {
      const deployment = of('Deployment').find((d) => d.metadata.name === name);
      expect(deployment, `no Deployment ${name}`).toBeDefined();
      const pod = deployment.spec.template;
      const container = pod.spec.containers[0];
      const env = Object.fromEntries((container.env ?? []).map((e: any) => [e.name, e.value]));
      expect(env.NODE_ENV).toBe('production');
      const port = metricsPortOf({
        NODE_ENV: 'production',
        METRICS_PORT: env.METRICS_PORT === undefined ? undefined : Number(env.METRICS_PORT),
      });
      expect(container.ports).toContainEqual({ name: 'metrics', containerPort: port });

      const service = of('Service').find((s) => matches(s.spec.selector, pod.metadata.labels));
      expect(service, `no Service selects ${name}'s pods`).toBeDefined();
      expect(service.spec.ports).toContainEqual({ name: 'metrics', port, targetPort: 'metrics' });

      const monitors = of('ServiceMonitor').filter((m) =>
        matches(m.spec.selector.matchLabels, service.metadata.labels),
      );
      expect(
        monitors.map((m) => m.metadata.name),
        `ServiceMonitors selecting Service ${name}`,
      ).toEqual([name]);
      expect(monitors[0].apiVersion).toBe('monitoring.coreos.com/v1');
      expect(monitors[0].spec.endpoints).toContainEqual(
        expect.objectContaining({ port: 'metrics', path: '/metrics' }),
      );
      // a monitor selecting by label only must not catch another deployable's Service
      const others = of('Service').filter((s) => s !== service);
      expect(others.filter((s) => matches(monitors[0].spec.selector.matchLabels, s.metadata.labels))).toEqual(
        [],
      );
    },
  );

  it.each(DEPLOYABLES)('%s: the NetworkPolicies that fence its pods still let Prometheus in', (name) => {
    const labels = of('Deployment').find((d) => d.metadata.name === name).spec.template.metadata.labels;
    const fencing = of('NetworkPolicy').filter(
      (p) => p.spec.policyTypes.includes('Ingress') && matches(p.spec.podSelector.matchLabels ?? {}, labels),
    );
    if (fencing.length === 0) return;
    const open = fencing.some((policy) =>
      (policy.spec.ingress ?? []).some(
        (rule: any) =>
          (rule.from ?? []).some(
            (f: any) => f.namespaceSelector && Object.keys(f.namespaceSelector).length === 0,
          ) && (rule.ports ?? []).some((p: any) => p.port === 'metrics' || p.port === DEFAULT_METRICS_PORT),
      ),
    );
    expect(open, fencing.map((p) => p.metadata.name).join(', ')).toBe(true);
  });
});
