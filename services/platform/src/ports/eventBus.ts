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
   * (after backoff) — so handlers must be idempotent (see ServiceStore.markProcessed). An event whose
   * handler has failed the adapter's `maxAttempts` times (default DEFAULT_MAX_ATTEMPTS), or that cannot
   * be decoded, is published to the dead-letter topic `deadLetterTopicOf(topic)`, logged, and committed:
   * the subscription moves on instead of wedging its partition.
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

/** Handler attempts before an event is dead-lettered (capped exponential backoff: about a minute and a half). */
export const DEFAULT_MAX_ATTEMPTS = 20;
