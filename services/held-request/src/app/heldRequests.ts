/**
 * The held-money request (docs/architecture.md §4), once for every service whose requests hold money at the
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
 * A kind supplies its stream (execute), its read model (view), its balance, its words and its
 * command names; `heldRequests(kind)` gives the use cases: submit, decide, the reads (one, the owner's,
 * the admin queue, each with the owner's name and email), and the ledger calls an event owes.
 */
import { type DomainError, conflict, invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import type { Actor, EventMeta } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';
import type { Logger } from '@meridian/platform/logger';
import type { Cents } from '@meridian/platform/money/money';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { capPendingOfUser, DEFAULT_MAX_PENDING_PER_USER } from '@meridian/platform/ports/pendingCount';
import type { AdminDecision, HoldCommand, LifecycleMessages } from '../domain/lifecycle.js';
import { refuseWhileImpersonating } from '@meridian/platform/domain/makerChecker';
import { type HeldRequestDoc, answerHeldRequest, placeHoldForRequest } from './holdFlow.js';
import type { HoldLedger } from './holdLedger.js';
import {
  MESSAGES,
  inTransaction,
  ledgerRefusal,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './kit.js';
import { closeHeldRequestAccount } from './closeAccount.js';
import {
  type CloseAccountAnswer,
  type CloseAccountInput,
  refuseClosedAccount,
} from '@meridian/platform/app/accountClosure';
import type { RequestQueries } from '../projections/requestView.js';
import { pageRequest, type Page } from '@meridian/platform/ports/pages';

/** A list's paging as the proto carries it: limit 0 and cursor "" = every item (platform ports/pages.ts). */
type PageInput = { limit?: number; cursor?: string };
import { type WithUser, withUser, withUsers } from './userDirectory.js';

/** What the use cases need of a service's context. */
export interface HeldRequestContext<Ledger extends HoldLedger = HoldLedger> {
  store: ServiceStore;
  ledger: Ledger;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
  /** Opens the directory's names and emails, and what else the kind seals, with each owner's key. */
  personalData: PersonalData;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
  /** How many of a user's requests may be pending at once (default DEFAULT_MAX_PENDING_PER_USER; the kind's variable). */
  maxPendingPerUser?: number;
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
  HoldCommand | { type: OwnCall; now: Date } | AdminDecision<DecisionType>;

/** A ledger call of the kind's own (beyond capture and release) and the command recording its confirmation. */
export interface OwnLedgerCall<Ctx, D, OwnCall extends string> {
  call(ctx: Ctx, doc: D, requestId: string): Promise<void>;
  record: OwnCall;
}

export interface HeldRequestKind<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  DecisionType extends string,
  OwnCall extends string,
  Req,
> {
  /** The hold's purpose at the ledger. */
  purpose: 'investment' | 'withdrawal';
  /** The kind's own words (its domain messages). */
  messages: Pick<
    LifecycleMessages,
    'notFound' | 'insufficientBalance' | 'submitted' | 'approved' | 'rejected' | 'idRequired'
  >;
  /** The ledger calls a request can owe, in the order the process manager sweeps them. */
  owedCalls: readonly Exclude<D['sync'], 'none'>[];
  decisions: Record<Decision, DecisionType>;
  /** The ledger calls of the kind's own, by the `sync` value that owes them. */
  ownCalls?: Record<string, OwnLedgerCall<Ctx, D, OwnCall>>;
  /** Called once a decision is recorded, before the ledger is told (investment: re-arm the maturity timer). */
  onDecided?(ctx: Ctx, decision: Decision): void;
  /** The kind's read model (held-request projections/requestView.ts). */
  view: RequestQueries<D>;
  /** The balance a new request of this kind is held from. */
  availableCents(ctx: Ctx, userId: string): Promise<Cents>;
  /**
   * read → decide → append → project on the request's stream (the flow's commands, and `Req`, the kind's
   * request); resolves to the projected document.
   */
  execute(
    ctx: Ctx,
    requestId: string,
    command: HeldRequestCommand<DecisionType, OwnCall> | Req,
    meta: EventMeta,
  ): Promise<{ events: readonly unknown[]; doc: D | null }>;
}

/** An answer of a use case: the kind's message and the document with its owner's name and email. */
export type Answer<D> = { message: string; view: WithUser<D> };

export interface HeldRequests<Ctx extends HeldRequestContext, D extends OwingDoc, Req = never> {
  /**
   * Records a request (the kind's command, built with the available balance) and answers it once the
   * hold was asked: the document when held; otherwise not_found, the refusal as a precondition, or
   * unavailable while the outcome is unknown. `validate` runs every rule but the balance first, so a bad
   * request never waits on the ledger; a request already recorded (a retry) is not validated again.
   * A new request is refused while the user has `maxPendingPerUser` pending (ports/pendingCount.ts
   * capPendingOfUser, in the transaction that records it: two at once cannot pass the cap together).
   * Refused while an admin impersonates the user (money commands are; viewing is not).
   */
  submit(
    ctx: Ctx,
    input: {
      actor: Actor;
      requestId: string;
      validate(): void;
      /** The kind's request command, given the balance available for its hold. */
      command(availableCents: Cents): Req;
    },
  ): Promise<Answer<D>>;
  /**
   * Asks the ledger to hold the amount of a request still awaiting its outcome and records the answer.
   * Idempotent (the ledger's key is the request id): the request path and the process manager may both
   * call it. An unknown outcome leaves the request awaiting.
   */
  placeHoldFor(ctx: Ctx, requestId: string): Promise<D | null>;
  /**
   * An admin's decision, recorded then told to the ledger; answers the document as it stands after. Never
   * the owner's own request, nor while impersonating (maker-checker). A decision the ledger refused to
   * carry out (capture, release) is not reported as done: a conflict (LEDGER_REFUSED) saying so, the
   * call left owed for the process manager; an unknown outcome (ledger away) answers the decision.
   */
  decide(ctx: Ctx, input: { actor: Actor; requestId: string; decision: Decision }): Promise<Answer<D>>;
  /** One request, for its owner or an admin. */
  get(ctx: Ctx, input: { actor: Actor; requestId: string }): Promise<WithUser<D>>;
  /** A user's requests (the caller's by default), newest first, for their owner or an admin. */
  listOfUser(ctx: Ctx, input: { actor: Actor; userId?: string } & PageInput): Promise<Page<WithUser<D>>>;
  /** The admin queue: pending with the funds held, oldest first. */
  listPending(ctx: Ctx, input: { actor: Actor } & PageInput): Promise<Page<WithUser<D>>>;
  /** The admin queue's size, from its counter (never by reading the queue). */
  countPending(ctx: Ctx, input: { actor: Actor }): Promise<number>;
  /**
   * Makes the ledger call the request owes (`sync`), then records the ledger's confirmation as an event
   * (which clears `sync`). Idempotent (every call carries a key derived from the request id, and
   * recording a confirmation again records nothing). An unknown outcome or a ledger refusal leaves the
   * call owed for the process manager; the document is returned as it stands.
   */
  syncLedger(ctx: Ctx, requestId: string): Promise<D | null>;
  /** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
  redriveOwed(ctx: Ctx, olderThanMs: number): Promise<number>;
  /** Admin, before the user's deletion: the user's requests closed (closeAccount.ts). */
  closeAccount(ctx: Ctx, input: CloseAccountInput): Promise<CloseAccountAnswer>;
}

export function heldRequests<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  DecisionType extends string,
  OwnCall extends string = never,
  Req = never,
>(kind: HeldRequestKind<Ctx, D, DecisionType, OwnCall, Req>): HeldRequests<Ctx, D, Req> {
  const idOf = (doc: D) => kind.view.idOf(doc);
  const load = (ctx: Ctx, requestId: string) => kind.view.byId(ctx.store, requestId);
  const answerMessages = { ...kind.messages, pendingOutcome: MESSAGES.pendingOutcome };
  const refusedByLedger = (decision: Decision, reason: string) =>
    decision === 'approve'
      ? `The ${kind.purpose} is approved but the ledger refused to capture its funds: ${reason}. It is not complete and will be retried`
      : `The ${kind.purpose} is rejected but the ledger refused to release its funds: ${reason}. It is not complete and will be retried`;

  const placeHoldFor = (ctx: Ctx, requestId: string) =>
    placeHoldForRequest<D>({
      ledger: ctx.ledger,
      logger: ctx.logger,
      clock: ctx.clock,
      requestId,
      purpose: kind.purpose,
      logFields: { [kind.view.idField]: requestId },
      load: () => load(ctx, requestId),
      meta: () => metaOf(ctx),
      record: async (command, meta) => (await kind.execute(ctx, requestId, command, meta)).doc,
    });

  /** syncLedger, and the ledger's refusal when it refused the call (an unknown outcome is not one). */
  async function sync(ctx: Ctx, requestId: string): Promise<{ doc: D | null; refusal?: DomainError }> {
    const doc = await load(ctx, requestId);
    if (!doc || doc.sync === 'none') return { doc };
    if (doc.sync === 'hold') return { doc: await placeHoldFor(ctx, requestId) };
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
      const refusal = ledgerRefusal(err);
      ctx.logger[refusal ? 'error' : 'warn'](
        { err, [kind.view.idField]: requestId, sync: owed },
        'ledger call not confirmed; left for the process manager',
      );
      return refusal ? { doc, refusal } : { doc };
    }
    const now = ctx.clock();
    const command: HeldRequestCommand<DecisionType, OwnCall> =
      owed === 'capture'
        ? { type: 'RecordHoldCaptured', now }
        : owed === 'release'
          ? { type: 'RecordHoldReleased', now }
          : { type: own!.record, now };
    return { doc: (await kind.execute(ctx, requestId, command, metaOf(ctx))).doc };
  }

  const syncLedger = async (ctx: Ctx, requestId: string): Promise<D | null> =>
    (await sync(ctx, requestId)).doc;

  return {
    placeHoldFor,
    syncLedger,

    async submit(ctx, input) {
      const actor = requireActor(input.actor);
      refuseWhileImpersonating(actor);
      const existing = await load(ctx, input.requestId);
      if (!existing) input.validate();
      const available = existing ? 0 : await kind.availableCents(ctx, actor.userId);
      const meta = metaOf(ctx, actor);
      const record = async () => {
        // in the recording transaction: an account closed for the user's deletion takes no new request
        await refuseClosedAccount(ctx.store, actor.userId);
        await kind.execute(ctx, input.requestId, input.command(available), meta);
      };
      if (existing) await record();
      else
        await inTransaction(ctx, async (tx) => {
          // pending: awaiting the ledger's hold or held, not refused (`listed`), until decided
          await capPendingOfUser(tx, {
            collection: kind.view.collection,
            where: { userId: actor.userId, status: kind.view.pendingStatus, listed: true },
            userId: actor.userId,
            max: ctx.maxPendingPerUser ?? DEFAULT_MAX_PENDING_PER_USER,
            noun: `${kind.purpose}s`,
          });
          await record();
        });
      const doc = answerHeldRequest(await placeHoldFor(ctx, input.requestId), answerMessages);
      return { message: kind.messages.submitted, view: await withUser(ctx.store, doc) };
    },

    async decide(ctx, input) {
      refuseWhileImpersonating(input.actor);
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
      kind.onDecided?.(ctx, input.decision);
      const synced = await sync(ctx, input.requestId);
      if (synced.refusal)
        throw conflict(refusedByLedger(input.decision, synced.refusal.message), 'LEDGER_REFUSED');
      return {
        message: input.decision === 'approve' ? kind.messages.approved : kind.messages.rejected,
        view: await withUser(ctx.store, synced.doc ?? doc),
      };
    },

    async get(ctx, input) {
      const actor = requireActor(input.actor);
      if (!input.requestId) throw invalid(kind.messages.idRequired);
      const doc = await load(ctx, input.requestId);
      if (!doc) throw notFound(kind.messages.notFound);
      requireOwnerOrAdmin(actor, doc.userId);
      return withUser(ctx.store, doc);
    },

    async listOfUser(ctx, input) {
      const actor = requireActor(input.actor);
      const userId = input.userId || actor.userId;
      requireOwnerOrAdmin(actor, userId);
      const page = await kind.view.ofUser(ctx.store, userId, pageRequest(input));
      return { ...page, items: await withUsers(ctx.store, page.items) };
    },

    async countPending(ctx, input) {
      requireAdmin(input.actor);
      return kind.view.pendingCount(ctx.store);
    },
    async listPending(ctx, input) {
      requireAdmin(input.actor);
      const page = await kind.view.pending(ctx.store, pageRequest(input));
      return { ...page, items: await withUsers(ctx.store, page.items) };
    },

    async redriveOwed(ctx, olderThanMs) {
      const cutoff = ctx.clock().getTime() - olderThanMs;
      let driven = 0;
      for (const sync of kind.owedCalls) {
        for (const doc of await kind.view.owing(ctx.store, sync)) {
          if (Date.parse(doc.syncSince) > cutoff) continue;
          await syncLedger(ctx, idOf(doc));
          driven++;
        }
      }
      return driven;
    },

    closeAccount: (ctx, input) =>
      closeHeldRequestAccount(
        ctx,
        { view: kind.view, reject: kind.decisions.reject, execute: kind.execute, syncLedger },
        input,
      ),
  };
}
