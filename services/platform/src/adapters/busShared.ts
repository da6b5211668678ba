import { metrics } from '../metrics.js';
import { DEFAULT_MAX_ATTEMPTS } from '../ports/eventBus.js';
import { backoffMs } from '../util/async.js';

/** How an EventBus adapter retries a failing handler before it dead-letters the event. */
export interface HandlerRetryOptions {
  /** Backoff bounds for a failing handler (ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * Handler attempts before an event whose failure is neither transient nor permanent goes to `<topic>.dlq`
   * (default DEFAULT_MAX_ATTEMPTS); transient failures are retried without limit, permanent ones not at all.
   */
  maxAttempts?: number;
}

/** The attempts allowed and the wait after failed attempt n (capped exponential backoff, at most 5 s). */
export function handlerRetries(options: HandlerRetryOptions, defaultBaseMs: number) {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  return {
    maxAttempts,
    delayMs: (attempt: number) =>
      backoffMs(attempt, options.retryBaseMs ?? defaultBaseMs, options.retryMaxMs ?? 5_000),
    /**
     * After failed attempt `attempt`: retry (a transient failure always, any other below maxAttempts), or
     * dead-letter with the reason.
     */
    afterFailure(err: unknown, attempt: number): { retry: true } | { retry: false; reason: string } {
      const kind = failureKindOf(err);
      if (kind === 'transient') return { retry: true };
      if (kind === 'permanent') return { retry: false, reason: 'permanent' };
      return attempt >= maxAttempts
        ? { retry: false, reason: `handler failed ${attempt} times` }
        : { retry: true };
    },
  };
}

export type FailureKind = 'transient' | 'permanent' | 'other';

/** gRPC status codes (grpc.status) of a call that may succeed when repeated later. */
const TRANSIENT_GRPC = new Set([1 /* CANCELLED */, 4 /* DEADLINE_EXCEEDED */, 8, 10 /* ABORTED */, 14]);
/** gRPC status codes of a refusal that repeating the same request will not change. */
const PERMANENT_GRPC = new Set([3 /* INVALID_ARGUMENT */, 6 /* ALREADY_EXISTS */, 9, 11 /* OUT_OF_RANGE */]);
const TRANSIENT_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
]);
const TRANSIENT_NAMES = new Set([
  'ConcurrencyError',
  'LeaseLostError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MaxRetriesPerRequestError',
]);
/** Domain refusals (DomainError kinds) that the same event will meet every time. */
const PERMANENT_KINDS = new Set(['invalid', 'precondition', 'conflict', 'forbidden', 'unauthenticated']);

/**
 * What a handler's failure is: transient (an outage: a service or store unavailable, a deadline, a lost
 * connection, a write conflict; retried for as long as it lasts), permanent (a PermanentEventError, a
 * schema-invalid event, a domain refusal; never retried) or other (a bug or an unknown error; retried a
 * bounded number of times). The error's `cause` chain is read too.
 */
export function failureKindOf(err: unknown): FailureKind {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as {
      name?: unknown;
      code?: unknown;
      kind?: unknown;
      permanent?: unknown;
      retriable?: unknown;
      errorLabels?: unknown;
      cause?: unknown;
    };
    if (x.permanent === true || x.name === 'ZodError') return 'permanent';
    if (typeof x.name === 'string' && TRANSIENT_NAMES.has(x.name)) return 'transient';
    if (x.name === 'DomainError' || x.name === 'UserKeyDestroyedError') {
      if (x.kind === 'unavailable' || x.kind === 'rate_limited') return 'transient';
      if (typeof x.kind === 'string' && PERMANENT_KINDS.has(x.kind)) return 'permanent';
    }
    if (typeof x.code === 'number' && 'metadata' in x) {
      if (TRANSIENT_GRPC.has(x.code)) return 'transient';
      if (PERMANENT_GRPC.has(x.code)) return 'permanent';
    }
    if (typeof x.code === 'string' && TRANSIENT_ERRNO.has(x.code)) return 'transient';
    if (x.retriable === true) return 'transient'; // kafkajs' retriable errors
    if (Array.isArray(x.errorLabels) && x.errorLabels.includes('RetryableWriteError')) return 'transient';
    e = x.cause;
  }
  return 'other';
}

/** What every EventBus adapter records per (group, topic) of a subscription (metrics.ts). */
export const busMetrics = {
  handled: metrics.counter(
    'meridian_events_handled_total',
    'Events a consumer group handled successfully (committed).',
    ['group', 'topic'],
  ),
  retried: metrics.counter(
    'meridian_events_retried_total',
    'Handler failures that the bus retries after a backoff.',
    ['group', 'topic'],
  ),
  deadLettered: metrics.counter(
    'meridian_events_dead_lettered_total',
    'Events moved to the dead-letter topic (undecodable, a permanent failure, or another failure maxAttempts times).',
    ['group', 'topic'],
  ),
  handling: metrics.histogram(
    'meridian_event_handling_seconds',
    'Time a consumer group took to handle one event (successful attempts).',
    ['group', 'topic'],
  ),
  /** Messages on the topic the group has not committed yet (read at scrape time from each subscription). */
  lag: metrics.sampledGauge(
    'meridian_consumer_lag_events',
    'Messages published on the topic that the consumer group has not committed yet.',
    ['group', 'topic'],
  ),
};
