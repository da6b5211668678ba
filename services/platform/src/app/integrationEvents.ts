/**
 * Integration events are built when the domain events are appended, in the same transaction, and
 * recorded on them in the outbox (StoreTx.recordIntegrationEvent): the outbox relay publishes what was
 * recorded and reads nothing else. An integration event that its domain event alone determines (a rule
 * that reads nothing) is recorded as DERIVED instead of a copy: the relay derives it from the event as
 * it publishes, with the same rule (a ledger posting's row is about half the size without the copy). A
 * rolled-back append publishes nothing; a published event says what the domain data (and whatever the
 * mapping read in that transaction) said when it was appended, however the read models change afterwards.
 *
 * One place: `withIntegrationEvents(store, mapping)` is the service's store. Every append made through
 * it — the command handler, process managers, consumers (subscribeIdempotent), anything holding a tx of
 * it — has its events mapped at the end of the (nested) transaction that appended them, once the
 * transaction's own read-model writes are done.
 *
 * The trace context active at the append (tracing.ts) is recorded with each integration event.
 *
 * Events from before (a store written by an older version, or by a replica still running one) carry no
 * record: the relay maps them with its `map`, as it always did; they were never published, so nothing
 * is published twice and nothing is lost.
 */
import type { DomainEvent, StoredEvent, TraceCarrier } from '../eventSourcing/types.js';
import type { DerivedIntegration, ServiceStore, StoreReads, StoreTx } from '../ports/serviceStore.js';
import { injectTrace } from '../tracing.js';

/**
 * An integration event as the outbox records it: with the W3C trace context active when it was
 * appended (tracing.ts), which the relay publishes with it. Rows without one (not traced, or older)
 * are published without.
 */
export type RecordedIntegration = (DomainEvent | DerivedIntegration) & { trace?: TraceCarrier };

/**
 * Domain event -> the integration event it publishes (null: it stays private). The published envelope
 * keeps the domain event's (id, streamId, version, meta), so consumers de-duplicate on its id. `reads`
 * is the appending transaction (it sees the append and the transaction's read-model writes); for an
 * event appended before integration events were recorded, the store at publish time.
 */
export type IntegrationMapping = ((
  event: StoredEvent,
  reads: StoreReads,
) => DomainEvent | null | Promise<DomainEvent | null>) & {
  /**
   * Optional: the integration event of a domain event when it can be known before the append, reading
   * nothing (undefined: it cannot; the mapping runs at the end of the transaction), or DERIVED: the event
   * alone determines it, and the relay derives it again with this mapping when it publishes. What it
   * answers is recorded as the event is inserted, without a second write on the outbox row.
   */
  atAppend?: (event: DomainEvent) => DomainEvent | DerivedIntegration | null | undefined;
};

/** Where a relay thread (relayThread.ts) imports a mapping from: a function cannot cross to a thread. */
export interface MappingModule {
  /** A file URL: the declaring module's import.meta.url. */
  module: string;
  /** The name of its export. */
  export: string;
}

/**
 * What a service publishes, as startService takes it: the mapping, and the module that exports it as
 * `toIntegrationEvent`, which a relay thread imports. A service declares it beside its mapping, in its
 * app/integrationEvents.ts.
 */
export interface PublishedEvents {
  map: IntegrationMapping;
  /** Absent: the relay runs on the service's event loop, even in a program (tests). */
  module?: MappingModule;
}

/** The mapping `toIntegrationEvent` of the module at `moduleUrl` (that module's import.meta.url). */
export const publishedEvents = (map: IntegrationMapping, moduleUrl: string): PublishedEvents => ({
  map,
  module: { module: moduleUrl, export: 'toIntegrationEvent' },
});

/**
 * The module a relay thread would import (undefined: none given), once it is known to export the service's
 * mapping itself: a wrong module fails the service's start, not every thread started after it.
 */
export async function publishedModule(published: PublishedEvents): Promise<MappingModule | undefined> {
  const { module } = published;
  if (!module) return undefined;
  const exported = ((await import(module.module)) as Record<string, unknown>)[module.export];
  if (exported !== published.map)
    throw new Error(`${module.module} does not export the service's integration mapping as ${module.export}`);
  return module;
}

/** The store of a service whose appends record their integration events (see the module comment). */
export function withIntegrationEvents(store: ServiceStore, mapping: IntegrationMapping): ServiceStore {
  return {
    ...store,
    transaction: (fn) =>
      store.transaction(async (tx) => {
        const appended: StoredEvent[] = [];
        const result = await fn(recordingAppends(tx, appended, mapping));
        // the trace of the append goes out with what it publishes (nothing when none is active)
        const trace = appended.length ? injectTrace() : undefined;
        for (const event of appended) {
          if (recordedAtAppend.has(event)) continue;
          const mapped: RecordedIntegration | null = await mapping(event, tx);
          await tx.recordIntegrationEvent(event.id, mapped && trace ? { ...mapped, trace } : mapped);
        }
        return result;
      }),
  };
}

/** Stored events whose integration event was recorded as they were inserted (mapping.atAppend). */
const recordedAtAppend = new WeakSet<StoredEvent>();

function recordingAppends(tx: StoreTx, appended: StoredEvent[], mapping: IntegrationMapping): StoreTx {
  const appendToStream: StoreTx['appendToStream'] = async (
    streamId,
    expectedVersion,
    events,
    meta,
    options,
  ) => {
    const atAppend = mapping.atAppend;
    if (!atAppend || options?.integrations) {
      const result = await tx.appendToStream(streamId, expectedVersion, events, meta, options);
      appended.push(...result.events);
      return result;
    }
    let trace: TraceCarrier | undefined;
    let traced = false;
    const integrations = events.map((e): RecordedIntegration | null | undefined => {
      const mapped = atAppend({ type: e.type, data: e.data });
      if (!mapped) return mapped;
      if (!traced) {
        trace = injectTrace();
        traced = true;
      }
      return trace ? { ...mapped, trace } : mapped;
    });
    const result = await tx.appendToStream(streamId, expectedVersion, events, meta, {
      ...options,
      integrations,
    });
    result.events.forEach((e, i) => {
      if (integrations[i] !== undefined) recordedAtAppend.add(e);
    });
    appended.push(...result.events);
    return result;
  };
  return { ...tx, appendToStream };
}

type Rule<E extends DomainEvent> = (
  event: E,
  reads: StoreReads,
  stored: StoredEvent,
) => DomainEvent | null | Promise<DomainEvent | null>;

/** How each type of a service's domain events goes out: built by its rule, or null: it stays private. */
export type IntegrationRules<E extends DomainEvent> = {
  [T in E['type']]: Rule<Extract<E, { type: T }>> | null;
};

/**
 * A service's mapping, one rule per domain event type (every type of E must have one, so a new event
 * is a compile error until its publication is decided). A type it does not know (a stored event's
 * former name) stays private.
 */
export function integrationMapping<E extends DomainEvent>(rules: IntegrationRules<E>): IntegrationMapping {
  const byType = rules as Record<string, Rule<E> | null>;
  const mapping: IntegrationMapping = (stored, reads) => {
    const rule = Object.hasOwn(byType, stored.type) ? byType[stored.type] : null;
    return rule ? rule({ type: stored.type, data: stored.data } as E, reads, stored) : null;
  };
  // a rule declared with the event as its only parameter reads nothing: known at the append (a private
  // event too); a rule of a type this mapping does not know, or one that reads, runs at the end
  mapping.atAppend = (event) => {
    if (!Object.hasOwn(byType, event.type)) return undefined;
    const rule = byType[event.type];
    if (rule === null) return null;
    if (rule.length > 1) return undefined;
    // run at the append all the same, so that a rule that fails fails the append, not the relay later
    const out = (rule as (event: E) => DomainEvent | null | Promise<DomainEvent | null>)(event as E);
    // the event alone determines it: the outbox keeps no copy of it beside the event (the relay derives it)
    if (!(out instanceof Promise)) return out === null ? null : DERIVED;
    out.catch(() => undefined); // mapped again at the end of the transaction, where a failure counts
    return undefined;
  };
  return mapping;
}

/**
 * What a rule that reads nothing records (see DerivedIntegration): the relay derives the integration event
 * from the stored event with the service's mapping as it publishes: the event's data as stored, the JSON
 * of what the rule saw at the append. A mapping changed by an upgrade applies to the events appended
 * before it and not yet published: what they say is still their own data.
 */
export const DERIVED: DerivedIntegration = Object.freeze({ derived: true as const });

/** The rule of an event that goes out as it is (same name, same data), its data being the proto message P. */
export const asIs =
  <P>() =>
  (event: { type: string; data: P }): DomainEvent => ({ type: event.type, data: event.data });

/**
 * The rule of an event published as `type` with the data of the event that opened its stream (a
 * request's terms), completed by `complete` (reading the appending transaction: a name, an email).
 */
export const fromOpeningEvent =
  <Opening extends DomainEvent, P>(
    type: string,
    complete: (reads: StoreReads, data: Opening['data']) => Promise<P>,
  ) =>
  async (_event: DomainEvent, reads: StoreReads, stored: StoredEvent): Promise<DomainEvent | null> => {
    const opening = await openingEvent<Opening>(reads, stored);
    return opening ? { type, data: await complete(reads, opening.data) } : null;
  };

/** The event that opened the stream of `event` (a request's terms, say), as it was appended. */
async function openingEvent<E extends DomainEvent>(
  reads: StoreReads,
  event: StoredEvent,
): Promise<StoredEvent<E> | undefined> {
  return (await reads.readStream<E>(event.streamId)).events[0];
}
