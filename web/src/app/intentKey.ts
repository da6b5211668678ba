/**
 * One Idempotency-Key per user intent, on every money command (deposit, start-invest, withdrawal) and balance
 * edit. The gateway turns the key into the request's id at the service, so a request sent again with it (the
 * user submitting again after a lost answer, a proxy retrying a PUT) applies once.
 *
 * The intent is what the form says (its values): submitting the same values again after an unknown outcome (no
 * answer, or a 5xx) reuses the key; once the server has decided (a 2xx or a 4xx answer), or the values change,
 * the next submit is a new intent with a new key (a refused investment retried after a deposit must not be
 * answered with the recorded refusal).
 */
import { useMemo, useRef } from 'react';
import { ApiError } from './apiClient';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A fresh key: 128 random bits (crypto.getRandomValues works outside secure contexts too). */
export function newIntentKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `spa-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The request config that sends `key` (for api.post / api.put). */
export const withIntentKey = (key: string) => ({ headers: { [IDEMPOTENCY_HEADER]: key } });

/** Whether a failed request's outcome is unknown (it may have been applied): no answer, or a 5xx. */
function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return !error.response || error.response.status >= 500;
}

export interface IntentKey {
  /** The key for these form values: the one already in use while the intent is unsettled, else a new one. */
  keyFor(intent: unknown): string;
  /** The request ended: with no error or a decided refusal the intent is over; after an unknown outcome it is kept. */
  settle(error?: unknown): void;
}

export function useIntentKey(): IntentKey {
  const current = useRef<{ intent: string; key: string } | null>(null);
  return useMemo(
    () => ({
      keyFor(intent) {
        const signature = JSON.stringify(intent);
        if (current.current?.intent !== signature)
          current.current = { intent: signature, key: newIntentKey() };
        return current.current.key;
      },
      settle(error) {
        if (error === undefined || !outcomeUnknown(error)) current.current = null;
      },
    }),
    [],
  );
}
