/**
 * A closed-loop load generator for promise-returning calls (gRPC unary, HTTP round trips): `concurrency`
 * workers each issue one call after another until `seconds` have passed or `maxCount` calls were
 * started, whichever comes first. Latency per call from process.hrtime; failures are counted, not timed.
 */
export interface LoadFigure {
  name: string;
  /** Successful calls per second over the run's wall time. */
  perSecond: number;
  count: number;
  errors: number;
  p50: number;
  p99: number;
  /** Wall time of the run, seconds. */
  seconds: number;
  firstError?: string;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i];
}

export const round = (n: number, digits = 2) => (Number.isFinite(n) ? +n.toFixed(digits) : n);

/** One bounded run: raw latencies (ms) and wall time; `figure()` turns one or more runs into a LoadFigure. */
export interface LoadSlice {
  latencies: number[];
  errors: number;
  wall: number;
  firstError?: string;
}

export async function runSlice(options: {
  seconds: number;
  maxCount: number;
  concurrency: number;
  call: (i: number) => Promise<unknown>;
}): Promise<LoadSlice> {
  const { seconds, maxCount, concurrency, call } = options;
  const latencies: number[] = [];
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = process.hrtime.bigint();
  const deadline = t0 + BigInt(Math.round(seconds * 1e9));

  const worker = async () => {
    while (started < maxCount && process.hrtime.bigint() < deadline) {
      const i = started++;
      const s = process.hrtime.bigint();
      try {
        await call(i);
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      } catch (err) {
        errors++;
        firstError ??=
          (err as { details?: string; message?: string }).details ?? (err as Error).message ?? String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    latencies,
    errors,
    wall: Number(process.hrtime.bigint() - t0) / 1e9,
    ...(firstError ? { firstError } : {}),
  };
}

/** The figure of one or more slices of the same run: calls/s over their summed wall time, merged percentiles. */
export function figure(name: string, slices: LoadSlice[]): LoadFigure {
  const latencies = slices.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const wall = slices.reduce((a, s) => a + s.wall, 0);
  const errors = slices.reduce((a, s) => a + s.errors, 0);
  const firstError = slices.find((s) => s.firstError)?.firstError;
  return {
    name,
    perSecond: wall > 0 ? Math.round(latencies.length / wall) : 0,
    count: latencies.length,
    errors,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    seconds: round(wall),
    ...(firstError ? { firstError } : {}),
  };
}

/** Latency of one-at-a-time operations (ms): count, p50, p99, max. */
export interface LatencyFigure {
  name: string;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function latencyFigure(name: string, ms: number[]): LatencyFigure {
  const s = [...ms].sort((a, b) => a - b);
  return {
    name,
    count: s.length,
    p50: round(percentile(s, 50)),
    p99: round(percentile(s, 99)),
    max: round(s[s.length - 1] ?? NaN),
  };
}

/** A monotonic clock in ms. */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
