/**
 * Prometheus metrics (prom-client) shared by everything in one process: one registry, the default
 * process metrics (CPU, memory, GC, event-loop lag as `nodejs_eventloop_lag_*`), and the metrics the
 * platform records itself (gRPC server, outbox, consumers). A service adds its own with
 * `metrics.counter(...)` / `metrics.gauge(...)` / `metrics.histogram(...)`: get-or-create by name, so
 * several services in one process (standalone) share one series set and tell theirs apart by label.
 *
 * The registry is served on a port of its own (`startMetricsServer`, METRICS_PORT), never on a public
 * API port. Names follow the Prometheus conventions: `meridian_` prefix, units in names (`_seconds`,
 * `_total`), bounded label values only (route patterns, method names, groups, topics — never ids or URLs).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import client from 'prom-client';
import type { Logger } from './logger.js';
import { listenOn } from './util/freePort.js';

export const metricsRegistry = new client.Registry();

/** The buckets of every request-duration histogram (seconds): 5 ms … 10 s. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One sample of a sampled gauge: label values and the value read at scrape time. */
export interface GaugeSample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

/** A gauge whose value is read when Prometheus scrapes, from every source added (one per relay, subscription…). */
export interface SampledGauge<L extends string> {
  /** Adds a source; returns a function that removes it (its series disappear at the next scrape). */
  add(source: () => Promise<Array<GaugeSample<L>>> | Array<GaugeSample<L>>): () => void;
}

const sampledSources = new Map<
  string,
  Set<() => Promise<Array<GaugeSample<string>>> | Array<GaugeSample<string>>>
>();

function existing<T>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

const registers = [metricsRegistry];

export const metrics = {
  registry: metricsRegistry,
  counter<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): client.Counter<L> {
    return existing<client.Counter<L>>(name) ?? new client.Counter({ name, help, labelNames, registers });
  },
  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): client.Gauge<L> {
    return existing<client.Gauge<L>>(name) ?? new client.Gauge({ name, help, labelNames, registers });
  },
  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: number[] = DURATION_BUCKETS,
  ): client.Histogram<L> {
    return (
      existing<client.Histogram<L>>(name) ??
      new client.Histogram({ name, help, labelNames, buckets, registers })
    );
  },
  /** A gauge read at scrape time from its sources (a failing source is skipped). */
  sampledGauge<L extends string>(name: string, help: string, labelNames: readonly L[]): SampledGauge<L> {
    let sources = sampledSources.get(name);
    if (!sources) {
      const set = new Set<() => Promise<Array<GaugeSample<string>>> | Array<GaugeSample<string>>>();
      sources = set;
      sampledSources.set(name, set);
      new client.Gauge<L>({
        name,
        help,
        labelNames,
        registers: [metricsRegistry],
        async collect() {
          this.reset();
          const read = await Promise.all(
            [...set].map(async (source) => {
              try {
                return await source();
              } catch {
                return [];
              }
            }),
          );
          for (const sample of read.flat())
            this.set(sample.labels as Partial<Record<L, string>>, sample.value);
        },
      });
    }
    const set = sources;
    return {
      add(source) {
        set.add(source);
        return () => void set.delete(source);
      },
    };
  },
};

let defaultsOn = false;
/** Registers the default process metrics (once per process). */
export function collectDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  client.collectDefaultMetrics({ register: metricsRegistry });
}

/** The exposition text of the registry (with the default metrics). */
export async function metricsExposition(): Promise<{ contentType: string; body: string }> {
  collectDefaultMetrics();
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

export interface MetricsServer {
  url: string;
  port: number;
  server: Server;
  stop(): Promise<void>;
}

/**
 * `GET /metrics` (and `routes`: the probes of readiness.ts) on `port` (0 = any free port); default host all
 * interfaces.
 */
export async function startMetricsServer(options: {
  port: number;
  host?: string;
  logger?: Logger;
  /** Other GET paths served here (readiness.ts `probeRoutes`: /healthz, /readyz). */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
}): Promise<MetricsServer> {
  collectDefaultMetrics();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const route = req.method === 'GET' ? options.routes?.[path] : undefined;
    if (route) {
      route(req, res);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    metricsExposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        options.logger?.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  const port = await listenOn(server, options.port, options.host);
  const url = `http://localhost:${port}/metrics`;
  options.logger?.info({ url }, 'metrics listening');
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    server,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

/**
 * Starts the metrics server when `port` is set and not 0 (METRICS_PORT); resolves to null otherwise.
 * For composition roots (runServiceProgram, the gateway's and the standalone's main).
 */
export async function startMetricsServerIf(
  port: number | undefined,
  options: Omit<Parameters<typeof startMetricsServer>[0], 'port'> = {},
): Promise<MetricsServer | null> {
  return port ? startMetricsServer({ port, ...options }) : null;
}

/** Seconds since `start` (a `process.hrtime.bigint()` reading). */
export const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
