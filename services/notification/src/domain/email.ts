/**
 * The email outbox record and its life cycle: pending -> sent | failed | dropped. Pure: time, ids and
 * errors come in. Secrets (tokens, login codes) stay SEALED in the record and are opened only
 * when the message is rendered for delivery, so the outbox never holds them in clear text. Personal
 * data (the address, names and every other text of the template data) is sealed too, with its owner's
 * personal-data key (app/queueEmail.ts): once the recipient is deleted the email is dropped unsent.
 */
import type { TemplateName } from './templates/registry.js';

/** `dropped`: never sent because its recipient was deleted (their personal-data key is gone). */
export type EmailStatus = 'pending' | 'sent' | 'failed' | 'dropped';

/** A type guard for the integration events named in `types` (with object data): those that ask for emails. */
export const eventGuard =
  <E extends { type: string; data: unknown }>(types: ReadonlySet<string>) =>
  (event: { type: string; data: unknown }): event is E =>
    types.has(event.type) && typeof event.data === 'object' && event.data !== null;

/** What a use case asks to send. */
export interface EmailRequest {
  template: TemplateName;
  to: string;
  /** Template data, without the secret fields. */
  data: Record<string, unknown>;
  /** Template data field -> sealed value (AES-256-GCM, SECRETS_KEY), opened at delivery. */
  sealed?: Record<string, string>;
  replyTo?: string;
  userId?: string;
}

/** An email plus the key that makes its id unique among the emails of one event ('' for the only one). */
export interface KeyedEmailRequest {
  key: string;
  request: EmailRequest;
}

/** The only email of an event, if it asks for one. */
export const onlyEmail = (request: EmailRequest | null): KeyedEmailRequest[] =>
  request ? [{ key: '', request }] : [];

export interface EmailRecord extends EmailRequest {
  /** = the causing event id (or the request id for SendAutomatedEmail): one email per cause; `<event id>:<recipient id>` when an event writes to several people. */
  id: string;
  causeEventId: string;
  correlationId: string;
  sealed: Record<string, string>;
  status: EmailStatus;
  attempts: number;
  /** ISO; the sender delivers a pending email once now >= nextAttemptAt. */
  nextAttemptAt: string;
  createdAt: string;
  lastError: string | null;
  sentAt: string | null;
  messageId: string | null;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

/** `cause.emailId` (default the cause's id) tells apart several emails of one event (one per admin). */
export function newEmail(
  request: EmailRequest,
  cause: { id: string; correlationId: string; emailId?: string },
  now: Date,
): EmailRecord {
  return {
    ...request,
    to: request.to.trim(),
    sealed: request.sealed ?? {},
    id: cause.emailId ?? cause.id,
    causeEventId: cause.id,
    correlationId: cause.correlationId,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now.toISOString(),
    createdAt: now.toISOString(),
    lastError: null,
    sentAt: null,
    messageId: null,
  };
}

export function isDue(email: EmailRecord, now: Date): boolean {
  return email.status === 'pending' && Date.parse(email.nextAttemptAt) <= now.getTime();
}

/** Delay before attempt n+1 after n failed attempts: base * 2^(n-1), capped. */
export function backoffDelayMs(failedAttempts: number, policy: RetryPolicy): number {
  const exp = policy.baseDelayMs * 2 ** Math.max(0, failedAttempts - 1);
  return Math.min(exp, policy.maxDelayMs);
}

export type EmailOutcomeEvent =
  | {
      type: 'EmailSent';
      data: { messageId: string; to: string; template: string; causeEventId: string; sentAt: string };
    }
  | {
      type: 'EmailFailed';
      data: { to: string; template: string; causeEventId: string; error: string; attempts: number };
    };

export function markDelivered(
  email: EmailRecord,
  messageId: string,
  now: Date,
): { email: EmailRecord; event: EmailOutcomeEvent } {
  const sentAt = now.toISOString();
  return {
    email: { ...email, status: 'sent', attempts: email.attempts + 1, sentAt, messageId, lastError: null },
    event: {
      type: 'EmailSent',
      data: { messageId, to: email.to, template: email.template, causeEventId: email.causeEventId, sentAt },
    },
  };
}

/** A failed attempt: schedule the next one with backoff, or give up after maxAttempts. */
export function markAttemptFailed(
  email: EmailRecord,
  error: string,
  now: Date,
  policy: RetryPolicy,
  options: { permanent?: boolean } = {},
): { email: EmailRecord; event: EmailOutcomeEvent | null } {
  const attempts = email.attempts + 1;
  if (options.permanent || attempts >= policy.maxAttempts) {
    return {
      email: { ...email, status: 'failed', attempts, lastError: error },
      event: {
        type: 'EmailFailed',
        data: { to: email.to, template: email.template, causeEventId: email.causeEventId, error, attempts },
      },
    };
  }
  const nextAttemptAt = new Date(now.getTime() + backoffDelayMs(attempts, policy)).toISOString();
  return { email: { ...email, attempts, nextAttemptAt, lastError: error }, event: null };
}

/** Why an email to a deleted user is not sent. */
export const RECIPIENT_DELETED = 'not sent: the recipient was deleted';

/**
 * An email that will never be sent because its recipient was deleted (crypto-shredding destroyed the key
 * that opens the address): dropped with the reason, and EmailFailed says so (no attempt was made).
 */
export function markDropped(
  email: EmailRecord,
  reason: string,
): { email: EmailRecord; event: EmailOutcomeEvent } {
  return {
    email: { ...email, status: 'dropped', lastError: reason },
    event: {
      type: 'EmailFailed',
      data: {
        to: email.to,
        template: email.template,
        causeEventId: email.causeEventId,
        error: reason,
        attempts: email.attempts,
      },
    },
  };
}

export const toEmailStreamId = (emailId: string) => `email-${emailId}`;
