import type { StoredEvent } from '../eventSourcing/types.js';

/**
 * Integration events between services. Topic per producing service (`meridian.<service>.events`),
 * consumer group per consuming service. At-least-once, ordered per stream (key = streamId).
 *
 * Adapters: in-process (durable SQLite log with committed offsets per group) and Kafka (kafkajs,
 * idempotent producer, consumer groups). One conformance suite (testing/eventBus.conformance.ts).
 */
export interface EventBus {
  /** Resolves once the events are durably accepted by the bus. */
  publish(topic: string, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Delivers every event published on `topic` that group `group` has not committed yet, in order per
   * stream. The handler's success commits the event's offset for the group; a thrown error redelivers
   * (after backoff) — so handlers must be idempotent (see ServiceStore.markProcessed). What a failure
   * does depends on its kind (adapters/busShared.ts failureKindOf):
   * - transient (a service or store unavailable, a deadline, a lost connection, a write conflict): retried
   *   with capped backoff for as long as it lasts; the partition waits (the lag metric shows it);
   * - permanent (a PermanentEventError, a schema-invalid event, a domain refusal): dead-lettered at once;
   * - anything else: retried up to the adapter's `maxAttempts` (default DEFAULT_MAX_ATTEMPTS), then
   *   dead-lettered.
   * An event that cannot be decoded is dead-lettered at once. A dead letter goes to the topic
   * `deadLetterTopicOf(topic)` with its reason, is logged, and is committed: the subscription moves on.
   * `make dlq` lists them, `make dlq-redrive` puts them back (scripts/dlq.ts, DeadLetters below).
   * `fromBeginning` applies to a group with no committed offset (default true).
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Resolves when the bus can reach its broker now (readiness), rejects with why not. Optional so that test
   * doubles need not implement it (a bus without one counts as up); the in-process bus is up while open.
   */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

export interface SubscribeOptions {
  topic: string;
  group: string;
  handler: (event: StoredEvent) => Promise<void>;
  /**
   * Optional: several consecutive events of the topic (log order) handled at once, all or nothing (one
   * store transaction). Resolving counts every one of them as handled (their offsets are committed);
   * throwing means none had an effect: the adapter then hands them to `handler` one at a time, with its
   * usual retries and dead letters, so a failing event never takes the others down with it. Adapters that
   * do not batch ignore it and call `handler`.
   */
  handleBatch?: (events: StoredEvent[]) => Promise<void>;
  fromBeginning?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
}

export const topicOf = (service: string) => `meridian.${service}.events`;

/** Where a subscription puts an event it cannot handle (poison message), for an operator to inspect and replay. */
export const deadLetterTopicOf = (topic: string) => `${topic}.dlq`;

/**
 * Handler attempts before an event whose failure is neither transient nor permanent is dead-lettered
 * (capped exponential backoff: about a minute and a half). Transient failures are retried without limit.
 */
export const DEFAULT_MAX_ATTEMPTS = 20;

/**
 * Thrown by a handler for an event it can never handle (whatever is retried): the bus dead-letters the
 * event at once instead of retrying it.
 */
export class PermanentEventError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentEventError';
  }
}

/** A dead-lettered event as an operator sees it (`make dlq`). */
export interface DeadLetter {
  /** The topic the event was published on (its dead letters are on `deadLetterTopicOf(topic)`). */
  topic: string;
  /** The consumer group that could not handle it. */
  group: string;
  event: StoredEvent;
  /** Why: 'undecodable', 'permanent', or 'handler failed N times'. */
  reason: string;
  /** The handler's error message. */
  error: string;
  /** When it was dead-lettered (ISO time). */
  at: string;
  /** When it was put back on its topic, if it was (ISO time). */
  redrivenAt?: string;
}

/**
 * The dead letters of a bus, for operators: list them, and put them back on the topic they came from (every
 * group of that topic sees the event again; groups that handled it before skip it, handlers being idempotent).
 */
export interface DeadLetters {
  /** Every dead letter, oldest first; of one topic when given. */
  list(topic?: string): Promise<DeadLetter[]>;
  /**
   * Publishes the dead letters of `topic` (those with an event id in `ids`, else all not yet redriven) back on
   * `topic` and marks them redriven; answers the ids put back.
   */
  redrive(topic: string, ids?: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}
