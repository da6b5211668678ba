import type { DomainEvent, EventMeta, StoredEvent } from '../eventSourcing/types.js';
import type { OutboxEvent, Recorded } from '../ports/serviceStore.js';
import { invalid } from '../eventSourcing/errors.js';
import { timeOrderedId } from '../eventSourcing/ids.js';

/** Options every ServiceStore adapter accepts. */
export interface StoreOptions {
  /** Source of `occurredAt` (tests inject a fixed clock). */
  clock?: () => Date;
  /** Source of event ids when the caller gives none. */
  newId?: () => string;
}

/** Builds the envelopes for an append (positions are filled in by the adapter). */
export function buildEnvelopes<E extends DomainEvent>(
  streamId: string,
  fromVersion: number,
  events: Array<E & { id?: string }>,
  meta: EventMeta,
  options: StoreOptions,
): Array<Omit<StoredEvent<E>, 'position'>> {
  const occurredAt = (options.clock ?? (() => new Date()))().toISOString();
  // time-ordered: the event id index (and consumers' processed markers) grow at their end
  const newId = options.newId ?? timeOrderedId;
  return events.map((e, i) => ({
    id: e.id ?? newId(),
    type: e.type,
    data: e.data,
    streamId,
    version: fromVersion + i + 1,
    occurredAt,
    correlationId: meta.correlationId,
    causationId: meta.causationId ?? null,
    actor: meta.actor ?? null,
  }));
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Field names in find()/count() must be plain (dotted) identifiers: no operators, no injection. */
export function checkField(field: string): string {
  if (!FIELD.test(field)) throw invalid(`invalid field name: ${JSON.stringify(field)}`);
  return field;
}

export function checkScalar(field: string, value: unknown): void {
  const t = typeof value;
  if (!(value === null || t === 'string' || t === 'number' || t === 'boolean')) {
    throw invalid(`filter on ${field} must be a string, number, boolean or null`);
  }
}

/** Read-model collection names: letters, digits, '_' and '-', at most 64 (valid in every adapter). */
export function checkCollection(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw invalid(`invalid collection name: ${JSON.stringify(name)}`);
  return name;
}

/** A store's onAppended listeners: told after each commit that appended (never failing it). */
export function appendListeners() {
  const listeners = new Set<() => void>();
  return {
    get size() {
      return listeners.size;
    },
    add(listener: () => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    notify() {
      for (const l of [...listeners]) {
        try {
          l();
        } catch {
          // a listener's failure must not fail the committed transaction
        }
      }
    },
    clear: () => listeners.clear(),
  };
}

/** An event as the outbox returns it: with the integration event recorded on it (stored as JSON text), if any. */
export function withIntegration(event: StoredEvent, recorded: string | null | undefined): OutboxEvent {
  return typeof recorded === 'string' ? { ...event, integration: JSON.parse(recorded) as Recorded } : event;
}
