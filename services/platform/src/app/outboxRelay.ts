import type { DomainEvent, StoredEvent } from '../eventSourcing/types.js';
import type { EventBus, Subscription } from '../ports/eventBus.js';
import { isDerived, type ServiceStore } from '../ports/serviceStore.js';
import { metrics } from '../metrics.js';
import { backoffMs, Signal } from '../util/async.js';
import {
  contextWithSpan,
  extractTrace,
  failSpan,
  injectTrace,
  messagingAttributes,
  ROOT_CONTEXT,
  SpanKind,
  tracer,
  tracingEnabled,
  type Span,
} from '../tracing.js';
import { startLeaseKeeperUnless, type LeaseKeeper, type LeaseSettings } from './lease.js';
import type { RecordedIntegration } from './integrationEvents.js';

export interface OutboxRelayOptions {
  store: ServiceStore;
  bus: EventBus;
  /** Topic to publish on, usually topicOf(service). */
  topic: string;
  /** Checkpoint name in the store (default `outbox:${topic}`). One relay per name at a time. */
  name?: string;
  /**
   * For an event whose integration event was recorded to be derived from it (DerivedIntegration: its rule
   * reads nothing), and for one with none recorded when it was appended (app/integrationEvents.ts):
   * one appended before the service recorded them, by a replica still running such a version, or to a
   * store used without withIntegrationEvents. Domain event -> integration event; null keeps it private.
   * Default: published as it is. Events with a recorded one are published as recorded, never mapped.
   * A returned `{ type, data }` keeps the source envelope (id, streamId, version, position, meta),
   * so consumers still de-duplicate on the source event id.
   */
  map?: (event: StoredEvent) => DomainEvent | null | Promise<DomainEvent | null>;
  batchSize?: number;
  /**
   * The lease that elects one publisher among the relays of this name on one store (the replicas of
   * a service), named after the checkpoint. Default on with the lease defaults (ttl 10 s); `false`
   * only where a single relay is guaranteed.
   */
  lease?: LeaseSettings | false;
  /**
   * The holder also re-reads the log this often (ms), for appends made through other store
   * instances (other replicas): onAppended only fires in the process that appended. Default 250; 0 = off.
   */
  pollIntervalMs?: number;
  /**
   * A failed pass (retried with backoff; `attempt` counts the failures in a row), a checkpoint refused
   * because the lease was lost meanwhile (LeaseLostError), or attempt 0: the lease could not be read
   * or renewed (the keeper retries at its next tick).
   */
  onError?: (error: unknown, attempt: number) => void;
  /**
   * Whether this relay registers the outbox's backlog and lag gauges (`measureOutbox`). Default true;
   * false in a relay thread, whose registry no one scrapes (the program's thread measures instead).
   */
  measure?: boolean;
  /** Told of each batch once it is published (before its checkpoint). */
  onPublished?: (events: readonly StoredEvent[]) => void;
}

export interface OutboxRelay {
  /**
   * Resolves when everything appended before the call has been published and checkpointed. On a
   * standby (another relay holds the lease) it waits until the holder's checkpoint has got there.
   */
  flush(timeoutMs?: number): Promise<void>;
  /**
   * Stops publishing and releases the lease (a standby takes over at its next poll).
   * `release: false` leaves the lease to expire, as a killed process does (tests of a crash).
   */
  stop(options?: { release?: boolean }): Promise<void>;
  /** Whether this relay is the elected publisher now. */
  isPublisher(): boolean;
}

const outboxBacklog = metrics.sampledGauge(
  'meridian_outbox_backlog_events',
  'Events in the outbox (the service log) the relay has not passed yet.',
  ['topic'],
);
const outboxLag = metrics.sampledGauge(
  'meridian_outbox_relay_lag_seconds',
  'Age of the oldest event the outbox relay has not published yet (0 when caught up).',
  ['topic'],
);
const outboxPublished = metrics.counter(
  'meridian_outbox_published_events_total',
  'Integration events the outbox relay published, by topic and event type (ledger postings: TransactionPosted).',
  ['topic', 'type'],
);

/**
 * The transactional outbox's relay: reads the store's log after its checkpoint, publishes the
 * integration events recorded on it (or maps those without, see `map`), then records the checkpoint. Woken by store.onAppended (and at start). A crash before the checkpoint
 * is written republishes the batch on restart: at least once, never lost.
 *
 * Replicas: only the holder of the lease `name` publishes; the others stand by and take over about
 * one ttl after the holder died (at once after it stopped cleanly). The checkpoint is written in a
 * transaction that first checks the lease (fencing), so a holder paused past its lease (GC, network)
 * may publish its batch once more (consumers de-duplicate on event ids) but can never move the
 * checkpoint its successor owns.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { store, bus, topic } = options;
  const name = options.name ?? `outbox:${topic}`;
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const signal = new Signal();
  const unlisten = store.onAppended(() => signal.notify());
  const progress = new Signal();
  const keeper: LeaseKeeper | null = startLeaseKeeperUnless(options.lease, {
    store,
    name,
    onError: (err) => options.onError?.(err, 0),
  });
  const unwatch = keeper?.onChange(() => {
    signal.notify();
    progress.notify();
  });
  const holds = () => keeper?.isHeld() ?? true;
  let stopping = false;
  let published = 0;
  let lastError: unknown;
  const unmeasure = options.measure === false ? () => {} : measureOutbox(store, topic, name);

  const loop = async () => {
    let attempt = 0;
    await keeper?.ready;
    while (!stopping) {
      try {
        if (!holds()) {
          // standby: woken when the lease comes our way (the keeper polls it)
          await signal.wait(1_000);
          continue;
        }
        const checkpoint = await store.getCheckpoint(name);
        const events = await store.readAll(checkpoint, batchSize);
        if (events.length === 0) {
          published = checkpoint;
          progress.notify();
          await signal.wait(pollIntervalMs > 0 ? pollIntervalMs : undefined);
          continue;
        }
        const out: StoredEvent[] = [];
        for (const { integration, ...e } of events) {
          // recorded as it is, or (none recorded, or one to derive from the event) mapped now
          const mapped =
            integration !== undefined && !isDerived(integration)
              ? integration
              : options.map
                ? await options.map(e)
                : e;
          if (!mapped) continue;
          const trace = (integration as RecordedIntegration | null | undefined)?.trace;
          out.push({ ...e, type: mapped.type, data: mapped.data, ...(trace ? { trace } : {}) });
        }
        if (stopping) return;
        if (!holds()) continue;
        await publishTraced(bus, topic, out);
        countPublished(topic, out);
        options.onPublished?.(out);
        const last = events[events.length - 1].position;
        await store.transaction(async (tx) => {
          if (keeper) await keeper.fence(tx);
          await tx.setCheckpoint(name, last);
        });
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
      let at = published;
      while (at < target) {
        if (stopping) throw new Error('outbox relay stopped');
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `outbox relay ${name}: not flushed within ${timeoutMs} ms (at ${at}, target ${target}` +
              `${holds() ? '' : ', standing by for the lease holder'})` +
              (lastError ? `; last error: ${String(lastError)}` : ''),
          );
        }
        if (holds()) {
          await progress.wait(left);
          at = published;
        } else {
          // the holder is another relay (maybe another process): watch the checkpoint it writes
          await progress.wait(Math.min(left, 50));
          at = Math.max(published, await store.getCheckpoint(name));
        }
      }
    },
    async stop(stopOptions = {}) {
      stopping = true;
      unmeasure();
      unlisten();
      unwatch?.();
      signal.notify();
      progress.notify();
      await running;
      await keeper?.stop(stopOptions);
    },
    isPublisher: () => !stopping && holds(),
  };
}

/**
 * The outbox's backlog (events after the relay's checkpoint) and lag (age of the oldest of them) as
 * gauges sampled at each scrape, read from `store`. Returns their removal.
 */
export function measureOutbox(store: ServiceStore, topic: string, name = `outbox:${topic}`): () => void {
  const removals = [
    outboxBacklog.add(async () => [
      { labels: { topic }, value: (await store.lastPosition()) - (await store.getCheckpoint(name)) },
    ]),
    outboxLag.add(async () => {
      const [oldest] = await store.readAll(await store.getCheckpoint(name), 1);
      const age = oldest ? (Date.now() - Date.parse(oldest.occurredAt)) / 1_000 : 0;
      return [{ labels: { topic }, value: Math.max(0, age) }];
    }),
  ];
  return () => {
    for (const remove of removals) remove();
  };
}

/** The published-events counter, by topic and event type. */
export function countPublished(topic: string, events: ReadonlyArray<{ type: string }>): void {
  for (const e of events) outboxPublished.inc({ topic, type: e.type });
}

/**
 * Publishes a batch; each event that carries the trace context of its append gets a PRODUCER span
 * `publish <topic>` (child of that context, ended when the bus accepted the batch) and goes out with the
 * span's context, so its consumers join the trace. Tracing off: the recorded context passes through.
 */
async function publishTraced(bus: EventBus, topic: string, events: StoredEvent[]): Promise<void> {
  if (!tracingEnabled()) return bus.publish(topic, events);
  const spans: Span[] = [];
  const traced = events.map((e) => {
    if (!e.trace) return e;
    const parent = extractTrace(e.trace, ROOT_CONTEXT);
    const span = tracer().startSpan(
      `publish ${topic}`,
      { kind: SpanKind.PRODUCER, attributes: messagingAttributes(topic, e, 'publish') },
      parent,
    );
    spans.push(span);
    return { ...e, trace: injectTrace(contextWithSpan(parent, span)) ?? e.trace };
  });
  try {
    await bus.publish(topic, traced);
  } catch (err) {
    for (const span of spans) failSpan(span, err);
    throw err;
  } finally {
    for (const span of spans) span.end();
  }
}

/** Convenience: run relays for several stores/topics and stop them together. */
export function stopAll(relays: Array<OutboxRelay | Subscription>): Promise<void> {
  return Promise.all(relays.map((r) => r.stop())).then(() => undefined);
}
