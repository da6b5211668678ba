/**
 * The one command path of every service (app/ layer), inside a transaction: load the stream -> decide
 * -> append with the version read (optimistic concurrency: a concurrent writer makes the append throw
 * ConcurrencyError, and inTransaction runs it all again) -> project the appended events in the same
 * transaction. Idempotency is the decider's (a command it has already seen decides no events).
 *
 * A stream may load from a snapshot (`snapshot`: a row kept beside the stream, written in the transaction
 * that appends) instead of folding its events, and may rewrite the decided events before they are appended
 * (`link`, such as the ledger's hash chain). A snapshot found behind its stream (the append's version check
 * says so while the stream is further on than the snapshot) is replaced once by the stream folded whole.
 */
import { ConcurrencyError } from '../eventSourcing/errors.js';
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
  /** Rewrites the decided events before they are appended, given the state they were decided on. */
  link?(decided: Event[], state: State): Event[];
  /** A faster load than the stream folded whole, kept in the transaction that appends (default: none). */
  snapshot?: SnapshotHooks<Command, State>;
}

/** The state a command needs and the version it is at; `fromSnapshot`: false when the stream was folded. */
export interface Loaded<State> {
  version: number;
  state: State;
  fromSnapshot: boolean;
}

export interface SnapshotHooks<Command, State> {
  /** The snapshot's state for `command` (undefined: the command is built from the state), or the fold. */
  load(reads: StoreReads, id: string, command: Command | undefined): Promise<Loaded<State>>;
  /** Writes the snapshot at `version`: `after`, as changed from `before`. */
  save(tx: StoreTx, id: string, version: number, before: State, after: State): Promise<void>;
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
  const built = typeof command === 'function' ? (command as (state: State) => Command) : () => command;
  const { snapshot } = stream;
  let loaded: Loaded<State> = snapshot
    ? await snapshot.load(tx, id, typeof command === 'function' ? undefined : command)
    : { ...(await loadStream(tx, stream, id)), fromSnapshot: false };
  for (let healed = false; ; healed = true) {
    const { version, state } = loaded;
    const raw = stream.decider.decide(built(state), state);
    const decided = stream.link ? stream.link(raw, state) : raw;
    // the state a snapshot is written from: none when the stream was folded (every fact is new to it)
    const base = loaded.fromSnapshot ? state : stream.decider.initialState();
    if (decided.length === 0) {
      if (snapshot && !loaded.fromSnapshot && version > 0) await snapshot.save(tx, id, version, base, state);
      return { before: state, after: state, decided, events: [] };
    }
    let appended: { nextVersion: number; events: StoredEvent<Event>[] };
    try {
      appended = await tx.appendToStream<Event>(stream.streamIdOf(id), version, decided, meta);
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || healed || !loaded.fromSnapshot) throw err;
      // a snapshot behind its stream (events appended by a path that kept none): fold it whole, once
      const full = await loadStream(tx, stream, id);
      if (full.version === version) throw err; // a concurrent writer: the transaction runs again
      loaded = { ...full, fromSnapshot: false };
      continue;
    }
    if (stream.project) await stream.project(tx, appended.events, id);
    const after = foldOf(stream, decided, state);
    if (snapshot) await snapshot.save(tx, id, appended.nextVersion, base, after);
    return { before: state, after, decided, events: appended.events };
  }
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
