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
   * Events of types you do not care about: just return.
   */
  handle: (event: StoredEvent, tx: StoreTx) => Promise<void>;
  fromBeginning?: boolean;
}

/**
 * Subscribes with exactly-once EFFECT on top of at-least-once delivery (markProcessed in the same tx).
 * Each delivery runs in a CONSUMER span, child of the trace context the event carries (tracing.ts).
 */
export function subscribeIdempotent(options: IdempotentSubscribeOptions): Promise<Subscription> {
  const { bus, store, topic, group, handle } = options;
  return bus.subscribe({
    topic,
    group,
    fromBeginning: options.fromBeginning,
    handler: (event) =>
      consumeTraced(topic, group, event, () =>
        withCorrelation(event.correlationId, () =>
          store.transaction(async (tx) => {
            if (!(await tx.markProcessed(group, event.id))) return;
            await handle(event, tx);
          }),
        ),
      ),
  });
}

/** Metadata for events caused by `event` (process managers): same correlation id, causation = event id. */
export function causedBy(
  event: Pick<StoredEvent, 'id' | 'correlationId' | 'actor'>,
  actor?: Actor,
): EventMeta {
  const by = actor ?? event.actor ?? undefined;
  return { correlationId: event.correlationId, causationId: event.id, ...(by ? { actor: by } : {}) };
}
