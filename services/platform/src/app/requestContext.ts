/**
 * Request-side helpers of a service's use cases (app/ layer), shared by the services whose use cases
 * run "check the caller → read → decide → append → project" on one stream per request (investment,
 * withdrawal): who is calling (Actor, as the gateway established it), the power checks, id syntax,
 * event metadata, and the transaction retried on a concurrent append. The command path itself is
 * commandHandler.ts.
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import { forbidden, invalid, unauthenticated } from '../eventSourcing/errors.js';
import { ADMIN_ONLY } from '../eventSourcing/guards.js';
import { retryAfterConflict } from '../util/async.js';
import type { Actor, Decider, DomainEvent, EventMeta, StoredEvent } from '../eventSourcing/types.js';
import { currentCorrelationId } from '../logger.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { type CommandStream, handleCommand, loadStream, projectDocument } from './commandHandler.js';
import { countedWrite, type PendingCounter } from '../ports/pendingCount.js';

export type { Actor };

export const REQUEST_MESSAGES = {
  notAuthenticated: 'Not authenticated',
  adminOnly: ADMIN_ONLY,
  notYours: 'Not authorized',
  badId: 'Id must be 1-100 letters, digits or . _ : -',
} as const;

export function requireActor(actor: Actor | null | undefined): Actor {
  if (!actor?.userId) throw unauthenticated(REQUEST_MESSAGES.notAuthenticated);
  return actor;
}

export function requireAdmin(actor: Actor | null | undefined): Actor {
  const a = requireActor(actor);
  if (a.role !== 'admin') throw forbidden(REQUEST_MESSAGES.adminOnly);
  return a;
}

export function requireOwnerOrAdmin(actor: Actor | null | undefined, userId: string): Actor {
  const a = requireActor(actor);
  if (a.role !== 'admin' && a.userId !== userId) throw forbidden(REQUEST_MESSAGES.notYours);
  return a;
}

const ID = /^[A-Za-z0-9_.:-]{1,100}$/;
export function checkId(id: string): string {
  if (!ID.test(id)) throw invalid(REQUEST_MESSAGES.badId);
  return id;
}

/**
 * The metadata of the events a call appends: the correlation id, the cause, and a copy of the actor
 * (only the fields of Actor). The one way every service builds EventMeta (consumers: causedBy).
 */
export function eventMeta(correlationId: string, actor?: Actor, causationId?: string): EventMeta {
  return {
    correlationId,
    ...(causationId ? { causationId } : {}),
    ...(actor
      ? {
          actor: {
            userId: actor.userId,
            role: actor.role,
            ...(actor.impersonatorId ? { impersonatorId: actor.impersonatorId } : {}),
            ...(actor.address ? { address: actor.address } : {}),
          },
        }
      : {}),
  };
}

/** eventMeta with the current correlation id (or a fresh one). */
export function metaOf(ctx: { newId: () => string }, actor?: Actor, causationId?: string): EventMeta {
  return eventMeta(currentCorrelationId() ?? ctx.newId(), actor, causationId);
}

export interface TransactionContext {
  store: ServiceStore;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
}

export function inTransaction<T>(ctx: TransactionContext, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
  return retryAfterConflict(ctx.maxAttempts ?? 5, () => ctx.store.transaction(fn));
}

/** One stream per entity, projected into one read-model document per entity. */
export interface ProjectedStream<Command, Event extends DomainEvent, State, Doc extends object> {
  decider: Decider<Command, Event, State>;
  streamIdOf(id: string): string;
  collection: string;
  project(doc: Doc | null, event: StoredEvent<Event>): Doc | null;
  /** The admin queue's counter the documents move (ports/pendingCount.ts), when the kind has a queue. */
  counter?: PendingCounter;
  /**
   * The document as the state a command decides on, and the stream version it is at, when the document
   * carries both (a load in O(1), whatever the stream's length); default: the stream folded.
   */
  snapshotOf?(doc: Doc): { version: number; state: State };
}

/**
 * read -> decide -> append -> project, in one transaction (retried on a concurrent append): the
 * command handler with a one-document-per-entity read model. The command is built from the current
 * state (so it can carry what it read). With `snapshotOf`, a command reads one document, decides, appends
 * at the document's version and puts the next document; a missing document (a new entity, a read model
 * being rebuilt) or one behind its stream is the stream folded, and the document projected afresh from it.
 * `options.read`: the document as the caller just read it (a batch's scan), saving the read.
 */
export async function executeOnStream<Command, Event extends DomainEvent, State, Doc extends object>(
  ctx: TransactionContext,
  stream: ProjectedStream<Command, Event, State, Doc>,
  id: string,
  command: (state: State) => Command,
  meta: EventMeta,
  options: { read?: Doc } = {},
): Promise<{ events: Event[]; doc: Doc | null }> {
  const { snapshotOf } = stream;
  return inTransaction(ctx, async (tx) => {
    let doc: Doc | null = null;
    /** the document the snapshot loaded (snapshotOf only) */
    let stored: Doc | null = null;
    const commandStream: CommandStream<Command, Event, State> = {
      decider: stream.decider,
      streamIdOf: (i) => stream.streamIdOf(i),
      project: async (t, appended, _id, loaded) => {
        if (!snapshotOf) {
          const write = () =>
            projectDocument(
              t,
              stream.collection,
              id,
              appended,
              (d: Doc | null, e) => stream.project(d, e),
              'keep',
            );
          doc = stream.counter ? await countedWrite(t, stream.counter, id, write) : await write();
          return;
        }
        // from the document loaded, or (folded) afresh from the whole stream
        const events =
          loaded.fromSnapshot || loaded.version === 0
            ? appended
            : (await t.readStream<Event>(stream.streamIdOf(id))).events;
        let next = loaded.fromSnapshot ? stored : null;
        for (const e of events) next = stream.project(next, e);
        const written = next;
        const write = async () => {
          if (written) await t.put(stream.collection, id, written);
          return written;
        };
        const known = loaded.fromSnapshot ? { before: stored, after: written } : undefined;
        doc = stream.counter ? await countedWrite(t, stream.counter, id, write, known) : await write();
      },
      ...(snapshotOf && {
        snapshot: {
          load: async (reads) => {
            stored = options.read ?? (await reads.get<Doc>(stream.collection, id));
            return stored
              ? { ...snapshotOf(stored), fromSnapshot: true }
              : {
                  ...(await loadStream(
                    reads,
                    { decider: stream.decider, streamIdOf: stream.streamIdOf },
                    id,
                  )),
                  fromSnapshot: false,
                };
          },
        },
      }),
    };
    const { decided, fromSnapshot } = await handleCommand(tx, commandStream, id, command, meta);
    if (decided.length === 0) doc = fromSnapshot ? stored : await tx.get<Doc>(stream.collection, id);
    return { events: decided, doc };
  });
}

/** The Actor of a gRPC request: `caller` and `caller_role` as the gateway filled them. */
export function actorOf(caller: Caller | undefined, role: string): Actor {
  return {
    userId: caller?.userId ?? '',
    role: role ?? '',
    ...(caller?.impersonatorId ? { impersonatorId: caller.impersonatorId } : {}),
    ...(caller?.address ? { address: caller.address } : {}),
  };
}
