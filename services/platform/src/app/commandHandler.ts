/**
 * The one command path of every service (app/ layer), inside a transaction: load the stream -> decide
 * -> append with the version read (optimistic concurrency: a concurrent writer makes the append throw
 * ConcurrencyError, and inTransaction runs it all again) -> project the appended events in the same
 * transaction. Idempotency is the decider's (a command it has already seen decides no events).
 *
 * A stream may load from a snapshot (`snapshot`: a row or document kept beside the stream, written in the
 * transaction that appends) instead of folding its events, and may rewrite the decided events before they
 * are appended (`link`, such as the ledger's hash chain). A snapshot found behind its stream (the append's
 * version check says so, or the decider refused on it while the stream is further on) is replaced once by
 * the stream folded whole.
 *
 * `handleCommand` runs one command; `handleCommands` runs a batch on one stream (items decided in memory,
 * one after the other, on the state the items before them left, and written as ONE append): both are the
 * same loop.
 */
import { ConcurrencyError } from '../eventSourcing/errors.js';
import {
  domainEventOf,
  type Decider,
  type DomainEvent,
  type EventMeta,
  type StoredEvent,
} from '../eventSourcing/types.js';
import type { StoreReads, StoreTx } from '../ports/serviceStore.js';

/** An aggregate's event stream as a command handler sees it. */
export interface CommandStream<Command, Event extends DomainEvent, State> {
  decider: Decider<Command, Event, State>;
  streamIdOf(id: string): string;
  /** The same as `events.reduce(decider.evolve, from)`, for a faster fold of long streams (default: that reduce). */
  fold?(events: readonly Event[], from: State): State;
  /**
   * Writes the read models of freshly appended events, inside their transaction (default: none); `loaded`:
   * the state they were decided on, as loaded.
   */
  project?(
    tx: StoreTx,
    events: readonly StoredEvent<Event>[],
    id: string,
    loaded: Loaded<State>,
  ): Promise<void>;
  /** Rewrites the decided events before they are appended, given the state they were decided on. */
  link?(decided: Event[], state: State): Event[];
  /** A batch's events before they are appended, given the state after the last (default: as decided). */
  coalesce?(decided: Event[], after: State): Event[];
  /** A faster load than the stream folded whole, kept in the transaction that appends (default: none). */
  snapshot?: SnapshotHooks<Command, State>;
  /** A batch's items each decided on the part of the state it reads (default: on the whole state). */
  batch?: BatchHooks<Command, State>;
}

/**
 * `open`: the batch's own copy of the loaded state (the running state, which `absorb` may change in place);
 * `scope`: the part of the running state an item's reads name (what it is decided on); `absorb`: the running
 * state with what the item changed (`scoped` became `decided`).
 */
export interface BatchHooks<Command, State> {
  open(state: State): State;
  scope(running: State, reads: readonly Command[]): State;
  absorb(running: State, scoped: State, decided: State): State;
}

/** The state a command needs and the version it is at; `fromSnapshot`: false when the stream was folded. */
export interface Loaded<State> {
  version: number;
  state: State;
  fromSnapshot: boolean;
}

export interface SnapshotHooks<Command, State> {
  /** The snapshot's state for `commands` (none: the command is built from the state), or the fold. */
  load(reads: StoreReads, id: string, commands: readonly Command[]): Promise<Loaded<State>>;
  /** Writes the snapshot at `version`: `after`, as changed from `before` (default: nothing to write). */
  save?(tx: StoreTx, id: string, version: number, before: State, after: State): Promise<void>;
}

export interface CommandResult<Event extends DomainEvent, State> {
  before: State;
  after: State;
  /** The events as the decider produced them (none: nothing was appended). */
  decided: Event[];
  /** The same events as stored, with their envelopes. */
  events: StoredEvent<Event>[];
  /** Whether the state decided on was the snapshot's (false: the stream folded). */
  fromSnapshot: boolean;
}

/**
 * One item of a batch: `reads`, the commands it may run as they would be (what a snapshot loads for it),
 * and its commands given the state the items before it left (an item may choose, say, to capture a hold
 * only when it is still held).
 */
export interface BatchItem<Command, State> {
  reads: readonly Command[];
  commands(state: State): readonly Command[];
}
/** An item's outcome: its events decided (or nothing owed), or the refusal that undid the item. */
export type BatchOutcome = { ok: true } | { ok: false; error: Error };

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
  const domain = events.map((e) => domainEventOf(e));
  return { version, state: foldOf(stream, domain, stream.decider.initialState()) };
}

/**
 * load -> decide -> append (expected version = the version loaded) -> project, through `tx`. The
 * command may be built from the current state (so it can carry what it read). A refusal throws.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  tx: StoreTx,
  stream: CommandStream<Command, Event, State>,
  id: string,
  command: Command | ((state: State) => Command),
  meta: EventMeta,
): Promise<CommandResult<Event, State>> {
  const built = typeof command === 'function' ? (command as (state: State) => Command) : () => command;
  const reads = typeof command === 'function' ? [] : [command as Command];
  const { outcomes, ...result } = await handleCommands(
    tx,
    stream,
    id,
    [{ reads, commands: (state) => [built(state)] }],
    meta,
    'single',
  );
  const [outcome] = outcomes;
  if (!outcome.ok) throw outcome.error;
  return result;
}

/** Each item's commands decided on the state before it, linked; a refused item leaves the state as it was. */
function decideItems<Command, Event extends DomainEvent, State>(
  stream: CommandStream<Command, Event, State>,
  items: readonly BatchItem<Command, State>[],
  from: State,
  hooks: BatchHooks<Command, State> | undefined,
): { decided: Event[]; after: State; outcomes: BatchOutcome[] } {
  const decided: Event[] = [];
  const outcomes: BatchOutcome[] = [];
  let after = hooks ? hooks.open(from) : from;
  for (const item of items) {
    const scoped = hooks ? hooks.scope(after, item.reads) : after;
    let state = scoped;
    const events: Event[] = [];
    try {
      for (const command of item.commands(state)) {
        const raw = stream.decider.decide(command, state);
        const linked = stream.link ? stream.link(raw, state) : raw;
        if (linked.length === 0) continue;
        state = foldOf(stream, linked, state);
        events.push(...linked);
      }
    } catch (err) {
      if (err instanceof ConcurrencyError) throw err;
      outcomes.push({ ok: false, error: err as Error });
      continue;
    }
    outcomes.push({ ok: true });
    decided.push(...events);
    after = hooks ? hooks.absorb(after, scoped, state) : state;
  }
  return { decided, after, outcomes };
}

/**
 * Many items on ONE stream decided in memory and written as ONE append (the set-based path of a batch):
 * the snapshot read once for every item's reads, each item decided on the state the items before it left
 * (its events linked in order), then the stream's `coalesce`, one append, one projection pass and the
 * snapshot written once. An item that is refused (deciding throws) changes nothing and the next item is
 * decided as if it had not been: deciding is pure, so no savepoint is needed. A store failure fails the
 * whole call (the caller's transaction runs again). Mode 'single' is handleCommand's path: one item, whose
 * refusal on a snapshot counts only once the snapshot is known not to be behind its stream; no batch hooks,
 * no coalescing.
 */
export async function handleCommands<Command, Event extends DomainEvent, State>(
  tx: StoreTx,
  stream: CommandStream<Command, Event, State>,
  id: string,
  items: readonly BatchItem<Command, State>[],
  meta: EventMeta,
  mode: 'single' | 'batch' = 'batch',
): Promise<CommandResult<Event, State> & { outcomes: BatchOutcome[] }> {
  const { snapshot } = stream;
  const folded = async (): Promise<Loaded<State>> => ({
    ...(await loadStream(tx, stream, id)),
    fromSnapshot: false,
  });
  let loaded: Loaded<State> = snapshot
    ? await snapshot.load(
        tx,
        id,
        items.flatMap((item) => item.reads),
      )
    : await folded();
  /** the snapshot behind its stream (events appended by a path that kept none): folded whole, once */
  const healed = async (): Promise<boolean> => {
    if (!loaded.fromSnapshot) return false;
    const full = await folded();
    if (full.version === loaded.version) return false;
    loaded = full;
    return true;
  };
  for (;;) {
    const { version, state } = loaded;
    const hooks = mode === 'batch' ? stream.batch : undefined;
    const { decided: raw, after, outcomes } = decideItems(stream, items, state, hooks);
    // a refusal on a snapshot is a refusal for sure only when the snapshot is not behind its stream
    if (mode === 'single' && !outcomes[0].ok && (await healed())) continue;
    const decided = mode === 'batch' && stream.coalesce && raw.length > 0 ? stream.coalesce(raw, after) : raw;
    // the state a snapshot is written from: none when the stream was folded (every fact is new to it)
    const base = loaded.fromSnapshot ? state : stream.decider.initialState();
    if (decided.length === 0) {
      if (snapshot?.save && !loaded.fromSnapshot && version > 0)
        await snapshot.save(tx, id, version, base, state);
      return {
        before: state,
        after: state,
        decided,
        events: [],
        fromSnapshot: loaded.fromSnapshot,
        outcomes,
      };
    }
    let appended: { nextVersion: number; events: StoredEvent<Event>[] };
    try {
      appended = await tx.appendToStream<Event>(stream.streamIdOf(id), version, decided, meta);
    } catch (err) {
      // a concurrent writer (the same version folded): the transaction runs again
      if (err instanceof ConcurrencyError && (await healed())) continue;
      throw err;
    }
    if (stream.project) await stream.project(tx, appended.events, id, loaded);
    if (snapshot?.save) await snapshot.save(tx, id, appended.nextVersion, base, after);
    return {
      before: state,
      after,
      decided,
      events: appended.events,
      fromSnapshot: loaded.fromSnapshot,
      outcomes,
    };
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
