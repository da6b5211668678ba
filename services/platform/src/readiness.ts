/**
 * Liveness and readiness of a process:
 *
 * - liveness (`GET /healthz`): the event loop answers. It never looks at the store or the bus, so a
 *   database outage makes pods unready, never restarts them.
 * - readiness (`GET /readyz`): every dependency check passes (the service's store answers a ping, its bus
 *   reaches the broker) and the process is not draining. 503 names what is down.
 *
 * Both are served on the metrics port (`startMetricsServer({ routes: probeRoutes(readiness) })`), never on a
 * public or gRPC port. The checks also run every `intervalMs`, and `onChange` tells the gRPC health service
 * (grpc/server.ts `setGrpcServing`) so gRPC clients and probes see NOT_SERVING while not ready.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';

/** Resolves when the dependency is up, rejects with why not. */
export type ReadinessCheck = () => Promise<void>;

export interface ReadinessReport {
  ready: boolean;
  draining: boolean;
  /** 'ok', or 'down: <reason>' per check. */
  checks: Record<string, string>;
}

export interface Readiness {
  /** Runs every check now (a run already under way is shared) and reports. */
  check(): Promise<ReadinessReport>;
  /** The report of the last run (undefined before the first). */
  last(): ReadinessReport | undefined;
  /** From now on not ready, whatever the checks say (graceful shutdown's first step). */
  drain(): void;
  readonly draining: boolean;
  /** Told when readiness flips (and once with the first result). Returns an unsubscribe function. */
  onChange(listener: (ready: boolean) => void): () => void;
  /** Stops the periodic checks. */
  stop(): void;
}

export interface ReadinessOptions {
  checks: Record<string, ReadinessCheck | undefined>;
  /** A check that has not answered by then is down (default 3 s). */
  timeoutMs?: number;
  /** Periodic checks (default 3 s; 0 = only on demand). */
  intervalMs?: number;
  logger?: Logger;
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const intervalMs = options.intervalMs ?? 3_000;
  const checks = Object.entries(options.checks).filter(
    (entry): entry is [string, ReadinessCheck] => entry[1] !== undefined,
  );
  const listeners = new Set<(ready: boolean) => void>();
  let draining = false;
  let lastReport: ReadinessReport | undefined;
  let lastReady: boolean | undefined;
  let lastUp = true;
  let running: Promise<ReadinessReport> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const settle = (ready: boolean) => {
    if (ready === lastReady) return;
    lastReady = ready;
    for (const listener of listeners) listener(ready);
  };

  const runOne = async ([name, check]: [string, ReadinessCheck]): Promise<[string, string]> => {
    let t: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check(),
        new Promise<never>((_, reject) => {
          t = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return [name, 'ok'];
    } catch (err) {
      return [name, `down: ${(err as Error)?.message ?? String(err)}`];
    } finally {
      clearTimeout(t);
    }
  };

  const check = (): Promise<ReadinessReport> => {
    running ??= (async () => {
      try {
        const results = Object.fromEntries(await Promise.all(checks.map(runOne)));
        const up = Object.values(results).every((r) => r === 'ok');
        const report: ReadinessReport = { ready: up && !draining, draining, checks: results };
        if (up !== lastUp)
          options.logger?.[up ? 'info' : 'warn']({ checks: results }, up ? 'dependencies up' : 'not ready');
        lastUp = up;
        lastReport = report;
        settle(report.ready);
        return report;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  const schedule = () => {
    if (intervalMs <= 0 || draining) return;
    timer = setTimeout(() => void check().finally(schedule), intervalMs);
    timer.unref();
  };
  void check().finally(schedule);

  return {
    check,
    last: () => lastReport,
    drain() {
      if (draining) return;
      draining = true;
      clearTimeout(timer);
      if (lastReport) lastReport = { ...lastReport, ready: false, draining: true };
      settle(false);
    },
    get draining() {
      return draining;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      listeners.clear();
    },
  };
}

/** A request handler of the metrics server (see metrics.ts `startMetricsServer({ routes })`). */
export type ProbeRoute = (req: IncomingMessage, res: ServerResponse) => void;

/** `GET /healthz` (liveness) and `GET /readyz` (readiness: 200, or 503 naming what is down, or draining). */
export function probeRoutes(readiness: Readiness): Record<string, ProbeRoute> {
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  return {
    '/healthz': (_req, res) => json(res, 200, { status: 'ok' }),
    '/readyz': (_req, res) => {
      if (readiness.draining) {
        json(res, 503, { status: 'draining', checks: readiness.last()?.checks ?? {} });
        return;
      }
      readiness.check().then(
        (report) =>
          json(res, report.ready ? 200 : 503, {
            status: report.ready ? 'ready' : report.draining ? 'draining' : 'not ready',
            checks: report.checks,
          }),
        (err: unknown) => json(res, 503, { status: 'not ready', error: String(err) }),
      );
    },
  };
}
