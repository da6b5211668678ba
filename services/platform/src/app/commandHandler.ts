/**
 * The one command path of every service (app/ layer), inside a transaction: load the stream -> decide
 * -> append with the version read (optimistic concurrency: a concurrent writer makes the append throw
 * ConcurrencyError, and inTransaction runs it all again) -> project the appended events in the same
 * transaction. Idempotency is the decider's (a command it has already seen decides no events).
 */
import type { Decider, DomainEvent, EventMeta, StoredEvent } from '../eventSourcing/types.js';
import type { StoreReads, StoreTx } from '../ports/serviceStore.js';

/** An aggregate's event stream as a command handler sees it. */
export interface CommandStream<Command, Event extends DomainEvent, State> {
  decider: Decider<Command, Event, State>;
  streamIdOf(id: string): string;
  /** The same as `events.reduce(decider.evolve, from)`, for a faster fold of long streams (default: that reduce). */
  fold?(events: readonly Event[], from: State): State;
  /** Writes the read models of freshly appended events, inside their transaction (default: none). */
  project?(tx: StoreTx, events: readonly StoredEvent<Event>[], id: string): Promise<void>;
}

export interface CommandResult<Event extends DomainEvent, State> {
  before: State;
  after: State;
  /** The events as the decider produced them (none: nothing was appended). */
  decided: Event[];
  /** The same events as stored, with their envelopes. */
  events: StoredEvent<Event>[];
}

function foldOf<Command, Event extends DomainEvent, State>(
  stream: CommandStream<Command, Event, State>,
  events: readonly Event[],
  from: State,
): State {
  return stream.fold ? stream.fold(events, from) : events.reduce((s, e) => stream.decider.evolve(s, e), from);
}

/** The current state of one entity's stream and the version it is at. */
export async function loadStream<Command, Event extends DomainEvent, State>(
  reads: StoreReads,
  stream: CommandStream<Command, Event, State>,
  id: string,
): Promise<{ version: number; state: State }> {
  const { version, events } = await reads.readStream<Event>(stream.streamIdOf(id));
  const domain = events.map((e) => ({ type: e.type, data: e.data }) as Event);
  return { version, state: foldOf(stream, domain, stream.decider.initialState()) };
}

/**
 * load -> decide -> append (expected version = the version loaded) -> project, through `tx`. The
 * command may be built from the current state (so it can carry what it read).
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  tx: StoreTx,
  stream: CommandStream<Command, Event, State>,
  id: string,
  command: Command | ((state: State) => Command),
  meta: EventMeta,
): Promise<CommandResult<Event, State>> {
  const { version, state } = await loadStream(tx, stream, id);
  const cmd = typeof command === 'function' ? (command as (state: State) => Command)(state) : command;
  const decided = stream.decider.decide(cmd, state);
  if (decided.length === 0) return { before: state, after: state, decided, events: [] };
  const { events } = await tx.appendToStream<Event>(stream.streamIdOf(id), version, decided, meta);
  if (stream.project) await stream.project(tx, events, id);
  return { before: state, after: foldOf(stream, decided, state), decided, events };
}

/**
 * A projection into one read-model document per entity: folds the events into the document and puts
 * it; a document folded to null is deleted (`onNull: 'delete'`) or left as it was (`'keep'`).
 */
export async function projectDocument<Event extends DomainEvent, Doc extends object>(
  tx: StoreTx,
  collection: string,
  id: string,
  events: readonly StoredEvent<Event>[],
  project: (doc: Doc | null, event: StoredEvent<Event>) => Doc | null,
  onNull: 'delete' | 'keep',
): Promise<Doc | null> {
  let doc: Doc | null = await tx.get<Doc>(collection, id);
  for (const e of events) doc = project(doc, e);
  if (doc) await tx.put(collection, id, doc);
  else if (onNull === 'delete') await tx.delete(collection, id);
  return doc;
}
