import type { Actor, EventMeta, StoredEvent } from '../eventSourcing/types.js';
import { withCorrelation } from '../logger.js';
import type { EventBus, Subscription } from '../ports/eventBus.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { consumeTraced } from '../tracing.js';

export interface IdempotentSubscribeOptions {
  bus: EventBus;
  store: ServiceStore;
  topic: string;
  /** Consumer group; also the name of the processed-markers set in the store. */
  group: string;
  /**
   * Applies the event's effect through tx (read models, appends, checkpoints). Runs inside
   * store.transaction together with the processed marker, so a redelivered event has no second
   * effect. Throwing rolls everything back and the bus redelivers after a backoff.
   * Events of types you do not care about: just return (better: leave them out of `types`).
   */
  handle: (event: StoredEvent, tx: StoreTx) => Promise<void>;
  /**
   * The event types `handle` acts on. Events of other types only advance the group's offset: no store
   * transaction, no processed marker (they have no effect to de-duplicate). Absent: every type.
   */
  types?: readonly string[];
  /**
   * Whether the handled events of one fetched batch may share ONE store transaction (each with its
   * processed marker; default true). A failure rolls the whole batch back and the bus then delivers
   * its events one at a time, each in a transaction of its own, so a failing event neither loses nor
   * doubles the others. Set false when `handle` has effects outside the transaction that must not run
   * again for the events of a batch rolled back.
   */
  batch?: boolean;
  fromBeginning?: boolean;
}

/**
 * Subscribes with exactly-once EFFECT on top of at-least-once delivery (markProcessed in the same tx).
 * Each delivery runs in a CONSUMER span, child of the trace context the event carries (tracing.ts).
 */
export function subscribeIdempotent(options: IdempotentSubscribeOptions): Promise<Subscription> {
  const { bus, store, topic, group, handle } = options;
  const types = options.types ? new Set(options.types) : null;
  const wanted = (event: StoredEvent) => !types || types.has(event.type);
  /** One event inside tx: its marker, then its effect (nothing when it was processed already). */
  const apply = (event: StoredEvent, tx: StoreTx) =>
    consumeTraced(topic, group, event, () =>
      withCorrelation(event.correlationId, async () => {
        if (!(await tx.markProcessed(group, event.id))) return;
        await handle(event, tx);
      }),
    );
  return bus.subscribe({
    topic,
    group,
    fromBeginning: options.fromBeginning,
    handler: async (event) => {
      if (!wanted(event)) return;
      await store.transaction((tx) => apply(event, tx));
    },
    ...(options.batch === false
      ? {}
      : {
          handleBatch: async (events: StoredEvent[]) => {
            const handled = events.filter(wanted);
            if (handled.length === 0) return;
            await store.transaction(async (tx) => {
              for (const event of handled) await apply(event, tx);
            });
          },
        }),
  });
}

/** What subscribing one consumer group to several topics takes: the bus, the store and the topics. */
export interface TopicsDeps {
  bus: EventBus;
  store: ServiceStore;
  topics?: readonly string[];
}

/**
 * subscribeIdempotent once per topic, one group on all of them; `handleOf(topic)` is the handler of
 * that topic's events. The subscriptions in the order of the topics.
 */
export async function subscribeIdempotentToTopics(
  options: Omit<IdempotentSubscribeOptions, 'topic' | 'handle'> & {
    topics: readonly string[];
    handleOf(topic: string): IdempotentSubscribeOptions['handle'];
  },
): Promise<Subscription[]> {
  const { topics, handleOf, ...rest } = options;
  const subs: Subscription[] = [];
  for (const topic of topics)
    subs.push(await subscribeIdempotent({ ...rest, topic, handle: handleOf(topic) }));
  return subs;
}

/** Metadata for events caused by `event` (process managers): same correlation id, causation = event id. */
export function causedBy(
  event: Pick<StoredEvent, 'id' | 'correlationId' | 'actor'>,
  actor?: Actor,
): EventMeta {
  const by = actor ?? event.actor ?? undefined;
  return { correlationId: event.correlationId, causationId: event.id, ...(by ? { actor: by } : {}) };
}
