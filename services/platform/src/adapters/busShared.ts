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
