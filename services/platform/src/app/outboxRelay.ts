import type { DomainEvent, StoredEvent } from '../eventSourcing/types.js';
import type { EventBus, Subscription } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { backoffMs, Signal } from '../util/async.js';

export interface OutboxRelayOptions {
  store: ServiceStore;
  bus: EventBus;
  /** Topic to publish on, usually topicOf(service). */
  topic: string;
  /** Checkpoint name in the store (default `outbox:${topic}`). One relay per name at a time. */
  name?: string;
  /**
   * Domain event -> integration event. Return null to keep the event private to the service.
   * A returned `{ type, data }` keeps the source envelope (id, streamId, version, position, meta),
   * so consumers still de-duplicate on the source event id.
   */
  map?: (event: StoredEvent) => DomainEvent | StoredEvent | null | Promise<DomainEvent | StoredEvent | null>;
  batchSize?: number;
  onError?: (error: unknown, attempt: number) => void;
}

export interface OutboxRelay {
  /** Resolves when everything appended before the call has been published and checkpointed. */
  flush(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The transactional outbox's relay: reads the store's log after its checkpoint, maps, publishes, then
 * records the checkpoint. Woken by store.onAppended (and at start). A crash before the checkpoint
 * is written republishes the batch on restart: at least once, never lost.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { store, bus, topic } = options;
  const name = options.name ?? `outbox:${topic}`;
  const batchSize = options.batchSize ?? 100;
  const signal = new Signal();
  const unlisten = store.onAppended(() => signal.notify());
  const progress = new Signal();
  let stopping = false;
  let published = 0;
  let lastError: unknown;

  const loop = async () => {
    let attempt = 0;
    while (!stopping) {
      try {
        const checkpoint = await store.getCheckpoint(name);
        const events = await store.readAll(checkpoint, batchSize);
        if (events.length === 0) {
          published = checkpoint;
          progress.notify();
          await signal.wait();
          continue;
        }
        const out: StoredEvent[] = [];
        for (const e of events) {
          const mapped = options.map ? await options.map(e) : e;
          if (mapped) out.push({ ...e, ...mapped } as StoredEvent);
        }
        if (stopping) return;
        await bus.publish(topic, out);
        const last = events[events.length - 1].position;
        await store.transaction(async (tx) => tx.setCheckpoint(name, last));
        published = last;
        attempt = 0;
        progress.notify();
      } catch (err) {
        if (stopping) return;
        lastError = err;
        attempt++;
        options.onError?.(err, attempt);
        await signal.wait(backoffMs(attempt, 100, 5_000));
      }
    }
  };
  signal.notify();
  const running = loop();

  return {
    async flush(timeoutMs = 10_000) {
      const target = await store.lastPosition();
      const deadline = Date.now() + timeoutMs;
      while (published < target) {
        if (stopping) throw new Error('outbox relay stopped');
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `outbox relay ${name}: not flushed within ${timeoutMs} ms (at ${published}, target ${target})` +
              (lastError ? `; last error: ${String(lastError)}` : ''),
          );
        }
        await progress.wait(left);
      }
    },
    async stop() {
      stopping = true;
      unlisten();
      signal.notify();
      progress.notify();
      await running;
    },
  };
}

/** Convenience: run relays for several stores/topics and stop them together. */
export function stopAll(relays: Array<OutboxRelay | Subscription>): Promise<void> {
  return Promise.all(relays.map((r) => r.stop())).then(() => undefined);
}
