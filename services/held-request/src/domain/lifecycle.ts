/**
 * The lifecycle of a held-money request (docs/architecture.md §4), pure: the part of the decider every kind of
 * request (investment, withdrawal) shares, parameterised by the kind's own rules and names.
 *
 *   <Request> -> <Kind>Submitted (pending, hold 'awaiting': the app asks the ledger to hold the amount,
 *   with the request id as the idempotency key) — the kind validates and builds it, `submit` guards it
 *   RecordHoldPlaced -> HoldPlaced (in the admin queue) | RecordHoldRefused -> HoldRefused (rejected)
 *   <Approve> -> <Kind>Approved (the ledger captures the hold) | <Reject> -> <Kind>Rejected (released)
 *   RecordHoldCaptured -> HoldCaptured, RecordHoldReleased -> HoldReleased: what the ledger confirmed
 *
 * Decided once: a second decision is refused with the kind's message, and never by the request's owner
 * (maker-checker: makerChecker.ts). `owed(state)` is the ledger call a state still owes (the process
 * manager's to-do list), derived from the events alone. A kind adds its own steps around this
 * (investment: maturity and its settlement) and keeps its own event payloads.
 *
 * Event names: the private domain event opening a request is `<Kind>Submitted`; `<Kind>Requested` is
 * the published integration event (built from HoldPlaced, once the funds are held). Streams written
 * before the rename still hold `<Kind>Requested`: `current(event)` reads a former name as the new one.
 */
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import { unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import { ADMIN_ONLY } from '@meridian/platform/eventSourcing/guards';
import { type Cents, parseDollarsToCents } from '@meridian/platform/money/money';
import { refuseOwnDecision } from '@meridian/platform/domain/makerChecker';

export type HoldOutcome = 'awaiting' | 'placed' | 'refused';
/** What the ledger confirmed it did with the held funds after the decision (null: nothing yet). */
export type FundsOutcome = 'captured' | 'released' | null;
/** The ledger calls every request may owe ('none': nothing owed). */
export type HeldCall = 'none' | 'hold' | 'capture' | 'release';

/** `{ investmentId: string }`: the request's id under the kind's field name. */
export type IdOf<K extends string> = { [P in K]: string };
/** What every event of the hold carries. */
export type HoldFacts<K extends string> = IdOf<K> & { userId: string; amountCents: Cents };

// ---------- events ----------

/** An event of a kind's request: the hold's facts and `D`. */
export type RequestEvent<T extends string, K extends string, D = unknown> = {
  type: T;
  data: HoldFacts<K> & D;
};

export type HoldPlaced<K extends string> = RequestEvent<'HoldPlaced', K, { placedAt: string }>;
export type HoldRefused<K extends string> = RequestEvent<
  'HoldRefused',
  K,
  { reason: string; refusedAt: string }
>;
/** The ledger confirmed the capture of the held funds (after the approval). */
export type HoldCaptured<K extends string> = RequestEvent<'HoldCaptured', K, { capturedAt: string }>;
/** The ledger confirmed the release of the held funds back to their account (after a rejection). */
export type HoldReleased<K extends string> = RequestEvent<'HoldReleased', K, { releasedAt: string }>;
export type RequestRejected<T extends string, K extends string> = RequestEvent<
  T,
  K,
  { rejectedBy: string; rejectedAt: string }
>;
export type HoldEvent<K extends string> = HoldPlaced<K> | HoldRefused<K> | HoldCaptured<K> | HoldReleased<K>;

/** The hold events a kind keeps private (its integration mapping publishes none of them). */
export const PRIVATE_HOLD_EVENTS = { HoldRefused: null, HoldCaptured: null, HoldReleased: null } as const;

// ---------- commands ----------

export type RecordHoldPlaced = { type: 'RecordHoldPlaced'; now: Date };
export type RecordHoldRefused = { type: 'RecordHoldRefused'; reason: string; now: Date };
export type RecordHoldCaptured = { type: 'RecordHoldCaptured'; now: Date };
export type RecordHoldReleased = { type: 'RecordHoldReleased'; now: Date };
export type AdminDecision<T extends string> = { type: T; adminId: string; actorRole: string; now: Date };
export type HoldCommand = RecordHoldPlaced | RecordHoldRefused | RecordHoldCaptured | RecordHoldReleased;
const HOLD_COMMANDS: ReadonlySet<string> = new Set<HoldCommand['type']>([
  'RecordHoldPlaced',
  'RecordHoldRefused',
  'RecordHoldCaptured',
  'RecordHoldReleased',
]);
const HOLD_EVENTS: ReadonlySet<string> = new Set<HoldEvent<string>['type']>([
  'HoldPlaced',
  'HoldRefused',
  'HoldCaptured',
  'HoldReleased',
]);

// ---------- state ----------

/** The lifecycle's part of an existing request's state, but its id (a kind adds its own fields). */
export interface RequestStateBase {
  status: string;
  userId: string;
  amountCents: Cents;
  hold: HoldOutcome;
  funds: string | null;
  refusal: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
}
export type RequestState<
  K extends string,
  Status extends string,
  Funds extends string | null = FundsOutcome,
> = IdOf<K> & RequestStateBase & { status: Status; funds: Funds };

/** The names and types a kind of request brings (its id field, state, approval event, decisions). */
export interface RequestKind {
  /** The id's field name in events and state (`investmentId`). */
  id: string;
  /** An existing request's state. */
  state: RequestStateBase;
  /** The approval event: its data is the kind's own terms. */
  approved: { type: string; data: object };
  /** The rejection event's type. */
  rejected: string;
  /** The admins' commands. */
  approve: string;
  reject: string;
  /** The ledger calls the kind's own statuses may owe (never: none of its own). */
  ownCall: string;
}

type None = { status: 'none' };
export type StateOf<T extends RequestKind> = None | T['state'];
export type LifecycleEvent<T extends RequestKind> =
  HoldEvent<T['id']> | RequestRejected<T['rejected'], T['id']> | T['approved'];
export type LifecycleCommand<T extends RequestKind> =
  HoldCommand | AdminDecision<T['approve']> | AdminDecision<T['reject']>;

// ---------- messages ----------

/** The messages every kind shares word for word. */
export const SHARED_MESSAGES = {
  amountRequired: 'Please enter an amount',
  invalidAmount: 'Please enter a valid amount',
  insufficientBalance: 'Insufficient balance',
  notAuthorized: ADMIN_ONLY,
  missingId: 'Command is missing an id',
} as const;

/**
 * A kind's messages: the shared ones and its own, each written out in the kind's module as the spec words it
 * (e.g. 'Investment not found', 'Withdrawal approved successfully').
 */
export type LifecycleMessages = typeof SHARED_MESSAGES & {
  notFound: string;
  alreadyExists: string;
  holdNotPlaced: string;
  holdAlreadyRecorded: string;
  alreadyApproved: string;
  alreadyRejected: string;
  notApproved: string;
  notRejected: string;
  ownDecision: string;
  /** The answers to the request and to the admin's decisions, and the refusal of a decision without an id. */
  submitted: string;
  approved: string;
  rejected: string;
  idRequired: string;
};

/** A request's amount as typed (dollars, number or text) to cents; a missing one is refused. */
export function parseRequestAmount(input: unknown): Cents {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
    throw invalid(SHARED_MESSAGES.amountRequired);
  }
  return parseDollarsToCents(input);
}

// ---------- the kind's rules ----------

type Status<T extends RequestKind> = T['state']['status'];

export interface LifecycleRules<T extends RequestKind> {
  idField: T['id'];
  /** The request's stream (`investment-<id>`). */
  streamIdOf(id: string): string;
  messages: LifecycleMessages;
  statuses: { pending: Status<T>; approved: Status<T>; rejected: Status<T> };
  /** The statuses in which the held funds are captured: the approval and any later one. */
  capturedIn: readonly Status<T>[];
  /** The message refusing a second decision, for every status but pending. */
  alreadyDecided: Partial<Record<Status<T>, string>>;
  types: {
    approved: T['approved']['type'];
    rejected: T['rejected'];
    approve: T['approve'];
    reject: T['reject'];
  };
  /** What every event of the hold carries: the request's id (under `idField`), its user and amount. */
  facts(state: T['state']): HoldFacts<T['id']>;
  /** The approval event (`facts`: id, user, amount): the kind's terms, fixed by the admin at `now`. */
  approve(state: T['state'], adminId: string, now: Date, facts: HoldFacts<T['id']>): T['approved'];
  /** The state after the approval (status approved, decided by and at, the kind's own terms). */
  approved(state: T['state'], data: T['approved']['data']): T['state'];
  /** A ledger call the kind's own statuses owe (investment's settlement of an ended investment). */
  ownCallOwed?(state: T['state']): T['ownCall'] | 'none';
  /** Former event type names still found in stored streams -> their current names. */
  formerNames?: Readonly<Record<string, string>>;
}

export interface SubmitRequest {
  id: string;
  userId: string;
  amountCents: Cents;
  /** The balance the hold is taken from, as the ledger last reported it (the hold decides for sure). */
  availableCents: Cents;
}

// ---------- the lifecycle ----------

export function heldRequestLifecycle<T extends RequestKind>(rules: LifecycleRules<T>) {
  const m = rules.messages;
  const { pending, approved, rejected } = rules.statuses;
  const isNone = (state: StateOf<T>): state is None => state.status === 'none';
  const { facts } = rules;
  const isHoldCommand = (c: LifecycleCommand<T>): c is HoldCommand => HOLD_COMMANDS.has(c.type);
  const isHoldEvent = (e: LifecycleEvent<T>): e is HoldEvent<T['id']> => HOLD_EVENTS.has(e.type);
  const isRejected = (e: LifecycleEvent<T>): e is RequestRejected<T['rejected'], T['id']> =>
    e.type === rules.types.rejected;
  const isApproved = (e: LifecycleEvent<T>): e is T['approved'] => e.type === rules.types.approved;

  function existing(state: StateOf<T>): T['state'] {
    if (isNone(state)) throw notFound(m.notFound);
    return state;
  }

  function recordHold(
    command: RecordHoldPlaced | RecordHoldRefused,
    state: StateOf<T>,
  ): HoldEvent<T['id']>[] {
    const s = existing(state);
    const placing = command.type === 'RecordHoldPlaced';
    if (s.hold === (placing ? 'placed' : 'refused')) return [];
    if (s.hold !== 'awaiting') throw conflict(m.holdAlreadyRecorded);
    const at = command.now.toISOString();
    return placing
      ? [{ type: 'HoldPlaced', data: { ...facts(s), placedAt: at } }]
      : [
          {
            type: 'HoldRefused',
            data: { ...facts(s), reason: command.reason || m.insufficientBalance, refusedAt: at },
          },
        ];
  }

  function decideByAdmin(
    command: AdminDecision<T['approve'] | T['reject']>,
    state: StateOf<T>,
  ): LifecycleEvent<T>[] {
    if (command.actorRole !== 'admin') throw forbidden(m.notAuthorized);
    const s = existing(state);
    refuseOwnDecision(command.adminId, s.userId, m.ownDecision);
    const alreadyDecided: Partial<Record<string, string>> = rules.alreadyDecided;
    const decided = alreadyDecided[s.status];
    if (s.status !== pending && decided) throw conflict(decided, 'ALREADY_DECIDED');
    if (s.hold !== 'placed') throw precondition(m.holdNotPlaced);
    if (command.type === rules.types.reject) {
      const data = { ...facts(s), rejectedBy: command.adminId, rejectedAt: command.now.toISOString() };
      const event: RequestRejected<T['rejected'], T['id']> = { type: rules.types.rejected, data };
      return [event];
    }
    return [rules.approve(s, command.adminId, command.now, facts(s))];
  }

  function recordFunds(
    command: RecordHoldCaptured | RecordHoldReleased,
    state: StateOf<T>,
  ): HoldEvent<T['id']>[] {
    const s = existing(state);
    const at = command.now.toISOString();
    if (command.type === 'RecordHoldCaptured') {
      // a settlement (investment) captured first: the capture is behind it
      if (s.funds === 'captured' || s.funds === 'settled') return [];
      if (!rules.capturedIn.includes(s.status) || s.funds !== null) throw precondition(m.notApproved);
      return [{ type: 'HoldCaptured', data: { ...facts(s), capturedAt: at } }];
    }
    if (s.funds === 'released') return [];
    if (s.status !== rejected || s.hold !== 'placed' || s.funds !== null) throw precondition(m.notRejected);
    return [{ type: 'HoldReleased', data: { ...facts(s), releasedAt: at } }];
  }

  return {
    existing,
    /** The HoldCaptured of a request (a kind's own step may capture first: investment's settlement). */
    captured: (s: T['state'], now: Date): HoldCaptured<T['id']> => ({
      type: 'HoldCaptured',
      data: { ...facts(s), capturedAt: now.toISOString() },
    }),

    /**
     * A new request: a retry of the same one (same user, amount and the kind's `sameTerms`) decides
     * nothing, another one under the same id is a conflict; then `submitted()` runs the kind's stateless
     * rules (validateRequest) and builds its event, and last the balance is checked.
     */
    submit<E>(
      state: StateOf<T>,
      request: SubmitRequest,
      kind: { sameTerms(s: T['state']): boolean; submitted(): E },
    ): E[] {
      if (!request.id || !request.userId) throw invalid(m.missingId);
      if (!isNone(state)) {
        const same =
          state.userId === request.userId &&
          state.amountCents === request.amountCents &&
          kind.sameTerms(state);
        if (same) return [];
        throw conflict(m.alreadyExists);
      }
      const event = kind.submitted();
      if (request.amountCents > request.availableCents) {
        throw precondition(m.insufficientBalance, 'INSUFFICIENT_FUNDS');
      }
      return [event];
    },

    /** The lifecycle's part of a new request's state (the kind adds its id), from its submitted event. */
    opened: (data: HoldFacts<T['id']>) => ({
      status: pending,
      userId: data.userId,
      amountCents: data.amountCents,
      hold: 'awaiting' as const,
      funds: null,
      refusal: null,
      decidedBy: null,
      decidedAt: null,
    }),

    decide(command: LifecycleCommand<T>, state: StateOf<T>): LifecycleEvent<T>[] {
      if (!isHoldCommand(command)) return decideByAdmin(command, state);
      const c: HoldCommand = command;
      switch (c.type) {
        case 'RecordHoldPlaced':
        case 'RecordHoldRefused':
          return recordHold(c, state);
        case 'RecordHoldCaptured':
        case 'RecordHoldReleased':
          return recordFunds(c, state);
      }
    },

    evolve(state: StateOf<T>, event: LifecycleEvent<T>): StateOf<T> {
      if (isNone(state)) return state;
      if (isHoldEvent(event)) {
        const e: HoldEvent<T['id']> = event;
        switch (e.type) {
          case 'HoldPlaced':
            return { ...state, hold: 'placed' };
          case 'HoldRefused':
            return {
              ...state,
              hold: 'refused',
              status: rejected,
              refusal: e.data.reason,
              decidedAt: e.data.refusedAt,
            };
          case 'HoldCaptured':
            return { ...state, funds: 'captured' };
          case 'HoldReleased':
            return { ...state, funds: 'released' };
        }
      }
      if (isRejected(event))
        return {
          ...state,
          status: rejected,
          decidedBy: event.data.rejectedBy,
          decidedAt: event.data.rejectedAt,
        };
      if (isApproved(event)) return rules.approved(state, event.data);
      return unknownEvent(event, state);
    },

    /** The ledger call a state still owes, 'none' when nothing is owed. */
    owed(state: StateOf<T>): HeldCall | T['ownCall'] {
      if (isNone(state)) return 'none';
      if (state.hold === 'awaiting') return 'hold';
      if (state.status === pending) return 'none';
      if (state.status === approved) return state.funds === null ? 'capture' : 'none';
      if (state.status === rejected)
        return state.hold === 'placed' && state.funds === null ? 'release' : 'none';
      return rules.ownCallOwed?.(state) ?? 'none';
    },

    /** A stored event under its current type name (a former name read as the new one). */
    current<E extends { type: string }>(event: E): E {
      const renamed = rules.formerNames?.[event.type];
      return renamed ? { ...event, type: renamed } : event;
    },

    /** The kind as its read model sees it: its names, and the kind's whole `evolve` and `owed`. */
    described: <E extends { type: string }, Sync extends string>(
      evolve: (state: StateOf<T>, event: E) => StateOf<T>,
      owed: (state: StateOf<T>) => Sync,
    ): KindDescription<T['state'], E, Sync> => ({
      idField: rules.idField,
      idOf: (state) => facts(state)[rules.idField],
      streamIdOf: rules.streamIdOf,
      pendingStatus: pending,
      evolve,
      exists: (state): state is T['state'] => !isNone(state),
      owed,
    }),
  };
}

/** A kind of request as its read model sees it (held-request projections/requestView.ts). */
export interface KindDescription<S, E, Sync extends string> {
  /** The id field of its state and events (`investmentId`), a state's id, and its stream (`investment-<id>`). */
  idField: string;
  idOf(state: S): string;
  streamIdOf(id: string): string;
  /** The status of a request waiting for an admin's decision. */
  pendingStatus: string;
  evolve(state: S | { status: 'none' }, event: E): S | { status: 'none' };
  /** Whether a state is a request's (not the 'none' before its first event). */
  exists(state: S | { status: 'none' }): state is S;
  owed(state: S): Sync;
}
