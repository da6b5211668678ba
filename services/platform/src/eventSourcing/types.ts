/**
 * Event-sourcing vocabulary shared by every service.
 * Pure types only: domain/ code may import this file.
 */

/** Who caused an event. `impersonatorId` is the admin acting as `userId` during impersonation. */
export interface Actor {
  userId: string;
  role: string;
  impersonatorId?: string;
  /** The client address of the request (as the gateway resolved it); absent on events recorded before it was carried. */
  address?: string;
}

/** Metadata carried from the HTTP request / gRPC call / causing event into every event it produces. */
export interface EventMeta {
  correlationId: string;
  /** id of the command or event that caused these events */
  causationId?: string;
  actor?: Actor;
}

/** An event as a decider produces it: a discriminated union member `{ type, data }`. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** An event as stored and delivered: the envelope of docs/architecture.md §4. */
export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  /** uuid, unique across the system; consumers de-duplicate on it */
  id: string;
  type: E['type'];
  data: E['data'];
  streamId: string;
  /** 1-based position inside its stream */
  version: number;
  /** 1-based position inside its producing service's log (the outbox order) */
  position: number;
  /** ISO-8601 */
  occurredAt: string;
  correlationId: string;
  causationId: string | null;
  actor: Actor | null;
  /**
   * Transport only (tracing.ts): the W3C trace context the outbox recorded with the event's integration
   * event and the bus carries to consumers. Absent when the append was not traced.
   */
  trace?: TraceCarrier;
}

/**
 * The domain event a stored event holds: its type and data. A stream's stored events are the events its
 * decider appended, so the pair read back is one of E's (the one place that reads it back as such).
 */
export function domainEventOf<E extends DomainEvent>(stored: StoredEvent<E>): E {
  return { type: stored.type, data: stored.data } as E;
}

/** The W3C trace context of a message (`traceparent`, and `tracestate` when there is one). */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * expectedVersion for an append:
 * - a number: the stream must be exactly at that version (0 = must not exist yet)
 * - 'any': no check
 */
export type ExpectedVersion = number | 'any';

/** decide(command, state) -> events; evolve(state, event) -> state. Time and ids come in the command. */
export interface Decider<Command, Event extends DomainEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function foldEvents<Event extends DomainEvent, State>(
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  events: readonly Event[],
): State {
  return events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
}
