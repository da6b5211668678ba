import { metrics } from '../metrics.js';
import { DEFAULT_MAX_ATTEMPTS } from '../ports/eventBus.js';
import { backoffMs } from '../util/async.js';

/** How an EventBus adapter retries a failing handler before it dead-letters the event. */
export interface HandlerRetryOptions {
  /** Backoff bounds for a failing handler (ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Handler attempts before the event goes to `<topic>.dlq` (default DEFAULT_MAX_ATTEMPTS). */
  maxAttempts?: number;
}

/** The attempts allowed and the wait after failed attempt n (capped exponential backoff, at most 5 s). */
export function handlerRetries(options: HandlerRetryOptions, defaultBaseMs: number) {
  return {
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    delayMs: (attempt: number) =>
      backoffMs(attempt, options.retryBaseMs ?? defaultBaseMs, options.retryMaxMs ?? 5_000),
  };
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
    'Events moved to the dead-letter topic (handler failed maxAttempts times, or undecodable).',
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
