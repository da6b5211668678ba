/**
 * The held-money request (DESIGN.md §4), once for every service whose requests hold money at the
 * ledger (investment, withdrawal), each with its own rules:
 *
 *   requested → held | refused → approved (captured) | rejected (released)   [+ the kind's own calls]
 *
 * Requests answer synchronously: record the request, ask the ledger for the hold with the request id as
 * idempotency key, record the outcome, answer it. Decisions are recorded first (the stream's version
 * decides which admin wins), then the ledger is told (capture / release, or a call of the kind's own such
 * as investment's settlement) and its confirmation is recorded as an event; whatever the ledger did not
 * confirm stays owed — the read model's `sync`, projected from the events — and the process manager
 * (processManager.ts) completes it with `redriveOwed`.
 *
 * A kind supplies its stream (execute), its read model (load, owing), its balance, its words and its
 * command names; `heldRequests(kind)` gives the use cases.
 */
import { invalid, notFound } from '../../eventSourcing/errors.js';
import type { Actor, EventMeta } from '../../eventSourcing/types.js';
import type { Logger } from '../../logger.js';
import type { Cents } from '../../money/money.js';
import type { ServiceStore } from '../../ports/serviceStore.js';
import { metaOf, requireActor, requireAdmin } from '../requestContext.js';
import {
  type HeldRequestDoc,
  type HeldRequestMessages,
  type HoldOutcomeCommand,
  answerHeldRequest,
  placeHoldForRequest,
} from './holdFlow.js';
import { type HoldLedger, isUnknownOutcome } from './holdLedger.js';

/** What the use cases need of a service's context. */
export interface HeldRequestContext {
  store: ServiceStore;
  ledger: HoldLedger;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
}

/** A request's read-model document as the flow reads it: `sync` names the ledger call still owed. */
export interface OwingDoc extends HeldRequestDoc {
  sync: string;
  /** when the call named by `sync` became owed (ISO) */
  syncSince: string;
}

export type Decision = 'approve' | 'reject';

/** The commands the flow runs on a request's stream (the kind's command type must include them). */
export type HeldRequestCommand<DecisionType extends string, OwnCall extends string> =
  | HoldOutcomeCommand
  | { type: 'RecordHoldCaptured'; now: Date }
  | { type: 'RecordHoldReleased'; now: Date }
  | { type: OwnCall; now: Date }
  | { type: DecisionType; adminId: string; actorRole: string; now: Date };

/** A ledger call of the kind's own (beyond capture and release) and the command recording its confirmation. */
export interface OwnLedgerCall<Ctx, D, OwnCall extends string> {
  call(ctx: Ctx, doc: D, requestId: string): Promise<void>;
  record: OwnCall;
}

export interface HeldRequestKind<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  DecisionType extends string,
  OwnCall extends string = never,
> {
  purpose: 'investment' | 'withdrawal';
  /** The id's name in log lines (`investmentId`). */
  idField: string;
  messages: HeldRequestMessages & { idRequired: string };
  /** The ledger calls a request can owe, in the order the process manager sweeps them. */
  owedCalls: readonly string[];
  decisions: Record<Decision, DecisionType>;
  /** The ledger calls of the kind's own, by the `sync` value that owes them. */
  ownCalls?: Record<string, OwnLedgerCall<Ctx, D, OwnCall>>;
  load(ctx: Ctx, requestId: string): Promise<D | null>;
  /** Documents owing `sync`, longest owed first. */
  owing(ctx: Ctx, sync: string): Promise<D[]>;
  /** The balance a new request of this kind is held from. */
  availableCents(ctx: Ctx, userId: string): Promise<Cents>;
  /** read → decide → append → project on the request's stream; resolves to the projected document. */
  execute(
    ctx: Ctx,
    requestId: string,
    command: HeldRequestCommand<DecisionType, OwnCall>,
    meta: EventMeta,
  ): Promise<{ events: readonly unknown[]; doc: D | null }>;
}

export interface HeldRequests<Ctx extends HeldRequestContext, D extends OwingDoc> {
  /**
   * Records a request (the kind's command, built with the available balance) and answers it once the
   * hold was asked: the document when held; otherwise not_found, the refusal as a precondition, or
   * unavailable while the outcome is unknown. `validate` runs every rule but the balance first, so a bad
   * request never waits on the ledger; a request already recorded (a retry) is not validated again.
   */
  submit(
    ctx: Ctx,
    input: {
      actor: Actor;
      requestId: string;
      validate(): void;
      record(availableCents: Cents, meta: EventMeta): Promise<unknown>;
    },
  ): Promise<D>;
  /**
   * Asks the ledger to hold the amount of a request still awaiting its outcome and records the answer.
   * Idempotent (the ledger's key is the request id): the request path and the process manager may both
   * call it. An unknown outcome leaves the request awaiting.
   */
  placeHoldFor(ctx: Ctx, requestId: string): Promise<D | null>;
  /** An admin's decision, recorded then told to the ledger; resolves to the document as it stands after. */
  decide(
    ctx: Ctx,
    input: { actor: Actor; requestId: string; decision: Decision; onRecorded?: () => void },
  ): Promise<D>;
  /**
   * Makes the ledger call the request owes (`sync`), then records the ledger's confirmation as an event
   * (which clears `sync`). Idempotent (every call carries a key derived from the request id, and
   * recording a confirmation again records nothing). An unknown outcome or a ledger refusal leaves the
   * call owed for the process manager; the document is returned as it stands.
   */
  syncLedger(ctx: Ctx, requestId: string): Promise<D | null>;
  /** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
  redriveOwed(ctx: Ctx, olderThanMs: number): Promise<number>;
}

export function heldRequests<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  DecisionType extends string,
  OwnCall extends string = never,
>(kind: HeldRequestKind<Ctx, D, DecisionType, OwnCall>): HeldRequests<Ctx, D> {
  const idOf = (doc: D) => (doc as unknown as Record<string, string>)[kind.idField];

  const placeHoldFor = (ctx: Ctx, requestId: string) =>
    placeHoldForRequest<D>({
      ledger: ctx.ledger,
      logger: ctx.logger,
      clock: ctx.clock,
      requestId,
      purpose: kind.purpose,
      logFields: { [kind.idField]: requestId },
      load: () => kind.load(ctx, requestId),
      meta: () => metaOf(ctx),
      record: async (command, meta) => (await kind.execute(ctx, requestId, command, meta)).doc,
    });

  async function syncLedger(ctx: Ctx, requestId: string): Promise<D | null> {
    const doc = await kind.load(ctx, requestId);
    if (!doc || doc.sync === 'none') return doc;
    if (doc.sync === 'hold') return placeHoldFor(ctx, requestId);
    const { userId } = doc;
    const owed = doc.sync;
    const own = owed === 'capture' || owed === 'release' ? undefined : kind.ownCalls?.[owed];
    try {
      if (owed === 'capture') {
        await ctx.ledger.captureHold({ userId, holdId: requestId, idempotencyKey: `capture:${requestId}` });
      } else if (owed === 'release') {
        await ctx.ledger.releaseHold({ userId, holdId: requestId, idempotencyKey: `release:${requestId}` });
      } else if (own) {
        await own.call(ctx, doc, requestId);
      } else {
        throw new Error(`no ledger call for sync '${owed}'`);
      }
    } catch (err) {
      const level = isUnknownOutcome(err) ? 'warn' : 'error';
      ctx.logger[level](
        { err, [kind.idField]: requestId, sync: owed },
        'ledger call not confirmed; left for the process manager',
      );
      return doc;
    }
    const now = ctx.clock();
    const command: HeldRequestCommand<DecisionType, OwnCall> =
      owed === 'capture'
        ? { type: 'RecordHoldCaptured', now }
        : owed === 'release'
          ? { type: 'RecordHoldReleased', now }
          : { type: own!.record, now };
    return (await kind.execute(ctx, requestId, command, metaOf(ctx))).doc;
  }

  return {
    placeHoldFor,
    syncLedger,

    async submit(ctx, input) {
      const actor = requireActor(input.actor);
      const existing = await kind.load(ctx, input.requestId);
      if (!existing) input.validate();
      const available = existing ? 0 : await kind.availableCents(ctx, actor.userId);
      await input.record(available, metaOf(ctx, actor));
      return answerHeldRequest(await placeHoldFor(ctx, input.requestId), kind.messages);
    },

    async decide(ctx, input) {
      const actor = requireAdmin(input.actor);
      if (!input.requestId) throw invalid(kind.messages.idRequired);
      const now = ctx.clock();
      const { doc } = await kind.execute(
        ctx,
        input.requestId,
        { type: kind.decisions[input.decision], adminId: actor.userId, actorRole: actor.role, now },
        metaOf(ctx, actor),
      );
      if (!doc) throw notFound(kind.messages.notFound);
      input.onRecorded?.();
      return (await syncLedger(ctx, input.requestId)) ?? doc;
    },

    async redriveOwed(ctx, olderThanMs) {
      const cutoff = ctx.clock().getTime() - olderThanMs;
      let driven = 0;
      for (const sync of kind.owedCalls) {
        for (const doc of await kind.owing(ctx, sync)) {
          if (Date.parse(doc.syncSince) > cutoff) continue;
          await syncLedger(ctx, idOf(doc));
          driven++;
        }
      }
      return driven;
    },
  };
}
