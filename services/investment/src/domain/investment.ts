/**
 * An investment (stream `investment-<investmentId>`): pure decider — the held-money request lifecycle
 * (@meridian/held-request domain/lifecycle.ts) with the investment's own rules and steps
 * (docs/architecture.md §3a, §4):
 *
 *   RequestInvestment -> InvestmentSubmitted (status 'pending'; the app then asks the ledger to hold the
 *   amount on the Deposit Balance, with the investment id as the idempotency key): a verified email, a
 *   plan that exists, an amount within its bounds, and the Deposit Balance. The plan's terms are copied
 *   in (replacing the plans later never changes an investment in flight) and the projected maturity
 *   amount is known from here on.
 *   RecordHoldPlaced -> HoldPlaced (now in the admin's queue) | RecordHoldRefused -> HoldRefused ('Rejected')
 *   ApproveInvestment -> InvestmentApproved ('Active'; startDate = approval time, endDate = start + duration,
 *   maturityAmount = amount x (1 + rate) rounded half-up to the cent; the ledger captures the hold into invested)
 *   | RejectInvestment -> InvestmentRejected ('Rejected'; the ledger releases the hold)
 *   MatureInvestment at/after endDate -> InvestmentMatured ('Ended'; the ledger settles principal + profit
 *   into Total Profit), exactly once.
 *   What the ledger confirmed after a decision is a fact of the stream too: RecordHoldCaptured -> HoldCaptured,
 *   RecordHoldReleased -> HoldReleased, RecordMaturitySettled -> MaturitySettled (with HoldCaptured first
 *   when the approval's capture was never confirmed). `ledgerCallOwed(state)` is the ledger call a state
 *   still owes: the process manager's to-do list, derived from the events alone.
 *
 * Status spelling: the spec writes the investment's statuses as "pending" (lower case) and "Active"
 * (capitalised), compares statuses case-sensitively and styles only 'Active'; we keep exactly 'pending' and
 * 'Active', and use 'Rejected' and 'Ended' (docs/architecture.md §3a: "the investment becomes Ended").
 *
 * InvestmentSubmitted is private; the published InvestmentRequested is built from HoldPlaced. Streams
 * written before that rename hold `InvestmentRequested` for InvestmentSubmitted: read as the new name.
 */
import * as lc from '@meridian/held-request/domain/lifecycle';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';
import { invalid, precondition } from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import {
  type BasisPoints,
  type Cents,
  MONEY_MESSAGES,
  addCents,
  applyRateBasisPoints,
  isPositiveCents,
} from '@meridian/platform/money/money';
import { type Plan, findPlan, isWithinPlan, planRangeText } from './plan.js';

export type { HoldOutcome } from '@meridian/held-request/domain/lifecycle';

export const INVESTMENT_STATUSES = ['pending', 'Active', 'Rejected', 'Ended'] as const;
export type InvestmentStatus = (typeof INVESTMENT_STATUSES)[number];
/** What the ledger confirmed it did with the held funds after the decision (null: nothing yet). */
export type FundsOutcome = lc.FundsOutcome | 'settled';

export const toInvestmentStreamId = (investmentId: string) => `investment-${investmentId}`;

// ---------- events and commands ----------

type Id = 'investmentId';
export type InvestmentSubmitted = lc.RequestEvent<
  'InvestmentSubmitted',
  Id,
  { planName: string; rateBps: BasisPoints; durationMs: number; requestedAt: string }
>;
export type InvestmentApproved = lc.RequestEvent<
  'InvestmentApproved',
  Id,
  { planName: string; maturityAmountCents: Cents; startDate: string; endDate: string; approvedBy: string }
>;
export type InvestmentMatured = lc.RequestEvent<
  'InvestmentMatured',
  Id,
  { maturityAmountCents: Cents; profitCents: Cents; endDate: string; maturedAt: string }
>;
/** The ledger confirmed the settlement of principal + profit into Total Profit (after the maturity). */
export type MaturitySettled = {
  type: 'MaturitySettled';
  data: lc.IdOf<Id> & {
    userId: string;
    principalCents: Cents;
    maturityAmountCents: Cents;
    settledAt: string;
  };
};

/** The lifecycle's names for an investment (HoldPlaced ... HoldReleased, InvestmentRejected, the decisions). */
type InvestmentKind = {
  id: Id;
  state: ExistingInvestment;
  approved: InvestmentApproved;
  rejected: 'InvestmentRejected';
  approve: 'ApproveInvestment';
  reject: 'RejectInvestment';
  ownCall: 'settle';
};

export type InvestmentEvent =
  InvestmentSubmitted | lc.LifecycleEvent<InvestmentKind> | InvestmentMatured | MaturitySettled;

export type RequestInvestment = {
  type: 'RequestInvestment';
  investmentId: string;
  userId: string;
  /** From identity's user view. */
  isVerified: boolean;
  /** As typed by the client; '' when none was chosen. */
  planName: string;
  /** The plans in force (DEFAULT_PLANS or the configured list). */
  plans: readonly Plan[];
  amountCents: Cents;
  /** Deposit Balance as the ledger last reported it (the ledger's hold decides for sure). */
  availableDepositCents: Cents;
  now: Date;
};
export type InvestmentCommand =
  | RequestInvestment
  | lc.LifecycleCommand<InvestmentKind>
  | { type: 'MatureInvestment'; now: Date }
  | { type: 'RecordMaturitySettled'; now: Date }
  /**
   * The ledger settled the maturity before the service recorded it (the scheduler's batch pass asks the
   * ledger first): InvestmentMatured when not recorded yet, and MaturitySettled, in one append.
   */
  | { type: 'RecordMaturedAndSettled'; now: Date };

/** A request as the client made it: what validateRequest checks without any state. */
export type InvestmentRequest = Omit<RequestInvestment, 'type' | 'availableDepositCents'>;

// ---------- state ----------

export type ExistingInvestment = lc.RequestState<Id, InvestmentStatus, FundsOutcome> & {
  planName: string;
  rateBps: BasisPoints;
  durationMs: number;
  requestedAt: string;
  /** Principal plus profit at the plan's rate: projected from the request on, fixed at the approval. */
  maturityAmountCents: Cents;
  startDate: string | null;
  endDate: string | null;
  maturedAt: string | null;
};
export type InvestmentState = { status: 'none' } | ExistingInvestment;

export const initialState = (): InvestmentState => ({ status: 'none' });

// ---------- rules ----------

export const INVESTMENT_MESSAGES = {
  ...lc.SHARED_MESSAGES,
  notFound: 'Investment not found',
  alreadyExists: 'This investment already exists',
  holdNotPlaced: 'The funds for this investment are not held yet',
  holdAlreadyRecorded: 'The outcome of this investment request is already recorded',
  alreadyApproved: 'This investment has already been approved',
  alreadyRejected: 'This investment has already been rejected',
  notApproved: 'Only an approved investment has its funds captured',
  notRejected: 'Only a rejected investment with its funds held has them released',
  ownDecision: MAKER_CHECKER_MESSAGES.ownDecision('investment'),
  submitted: 'Investment request submitted successfully',
  approved: 'Investment approved successfully',
  rejected: 'Investment rejected successfully',
  idRequired: 'Investment id is required',
  verifyEmail: 'Please verify your email before investing',
  selectPlan: 'Please select an investment plan.',
  unknownPlan: 'The selected investment plan does not exist',
  outOfRange: (p: Plan) => `The ${p.name} plan accepts amounts from ${planRangeText(p)}`,
  alreadyEnded: 'This investment has already ended',
  notActive: 'Only an active investment can mature',
  notMatured: 'This investment has not matured yet',
  notEnded: 'Only an ended investment is settled',
} as const;

/** amount x (1 + rate), rounded half-up to the cent. */
export const maturityAmountOf = (amountCents: Cents, rateBps: BasisPoints): Cents =>
  addCents(amountCents, applyRateBasisPoints(amountCents, rateBps));

/** The free-text amount of start-invest (dollars) to cents. */
export function parseInvestmentAmount(input: unknown): Cents {
  const cents = lc.parseRequestAmount(input);
  if (cents <= 0) throw invalid(MONEY_MESSAGES.notPositive);
  return cents;
}

/** For the durable scheduler and api/invest/deposit-maturity: Active and at or past its endDate. */
export function isDue(state: InvestmentState, now: Date): boolean {
  return state.status === 'Active' && state.endDate !== null && now.getTime() >= Date.parse(state.endDate);
}

/**
 * Every rule of a new request that needs no state (no stream, no balance), in the decider's order and
 * with its messages: a bad request is refused before anyone asks the ledger. Returns the plan.
 */
export function validateRequest(request: InvestmentRequest): Plan {
  if (!request.investmentId || !request.userId) throw invalid(INVESTMENT_MESSAGES.missingId);
  if (!request.isVerified) throw precondition(INVESTMENT_MESSAGES.verifyEmail, 'EMAIL_NOT_VERIFIED');
  if (!request.planName || !request.planName.trim()) throw invalid(INVESTMENT_MESSAGES.selectPlan);
  const plan = findPlan(request.plans, request.planName);
  if (!plan) throw invalid(INVESTMENT_MESSAGES.unknownPlan);
  if (!isPositiveCents(request.amountCents)) throw invalid(INVESTMENT_MESSAGES.invalidAmount);
  if (!isWithinPlan(plan, request.amountCents)) throw invalid(INVESTMENT_MESSAGES.outOfRange(plan));
  return plan;
}

/** The admins' decision commands, as the held-request flow names them (approve, reject). */
export const INVESTMENT_DECISIONS = { approve: 'ApproveInvestment', reject: 'RejectInvestment' } as const;

const lifecycle = lc.heldRequestLifecycle<InvestmentKind>({
  idField: 'investmentId',
  streamIdOf: toInvestmentStreamId,
  messages: INVESTMENT_MESSAGES,
  statuses: { pending: 'pending', approved: 'Active', rejected: 'Rejected' },
  capturedIn: ['Active', 'Ended'],
  alreadyDecided: {
    Active: INVESTMENT_MESSAGES.alreadyApproved,
    Ended: INVESTMENT_MESSAGES.alreadyEnded,
    Rejected: INVESTMENT_MESSAGES.alreadyRejected,
  },
  types: {
    approved: 'InvestmentApproved',
    rejected: 'InvestmentRejected',
    ...INVESTMENT_DECISIONS,
  },
  facts: (s) => ({ investmentId: s.investmentId, userId: s.userId, amountCents: s.amountCents }),
  approve: (s, adminId, at, facts) => ({
    type: 'InvestmentApproved',
    data: {
      ...facts,
      planName: s.planName,
      maturityAmountCents: maturityAmountOf(s.amountCents, s.rateBps),
      startDate: at.toISOString(),
      endDate: new Date(at.getTime() + s.durationMs).toISOString(),
      approvedBy: adminId,
    },
  }),
  approved: (s, d) => ({
    ...s,
    status: 'Active',
    maturityAmountCents: d.maturityAmountCents,
    startDate: d.startDate,
    endDate: d.endDate,
    decidedBy: d.approvedBy,
    decidedAt: d.startDate,
  }),
  // an ended investment owes its settlement (principal + profit into Total Profit)
  ownCallOwed: (s) => (s.status === 'Ended' && s.funds !== 'settled' ? 'settle' : 'none'),
  formerNames: { InvestmentRequested: 'InvestmentSubmitted' },
});

export function evolve(state: InvestmentState, event: InvestmentEvent): InvestmentState {
  const e = lifecycle.current(event);
  if (e.type === 'InvestmentSubmitted') {
    const d = e.data;
    return {
      ...lifecycle.opened(d),
      investmentId: d.investmentId,
      planName: d.planName,
      rateBps: d.rateBps,
      durationMs: d.durationMs,
      requestedAt: d.requestedAt,
      maturityAmountCents: maturityAmountOf(d.amountCents, d.rateBps),
      startDate: null,
      endDate: null,
      maturedAt: null,
    };
  }
  if (state.status === 'none') return state;
  switch (e.type) {
    case 'InvestmentMatured':
      return { ...state, status: 'Ended', maturedAt: e.data.maturedAt };
    case 'MaturitySettled':
      return { ...state, funds: 'settled' };
    default:
      return lifecycle.evolve(state, e);
  }
}

/** The ledger call a state still owes (the process manager's to-do list), 'none' when nothing is owed. */
export type LedgerCallOwed = lc.HeldCall | 'settle';

export const ledgerCallOwed = (state: InvestmentState): LedgerCallOwed => lifecycle.owed(state);

// ---------- decide ----------

export function decide(command: InvestmentCommand, state: InvestmentState): InvestmentEvent[] {
  switch (command.type) {
    case 'RequestInvestment': {
      const { investmentId, userId, amountCents } = command;
      const terms = { id: investmentId, userId, amountCents, availableCents: command.availableDepositCents };
      return lifecycle.submit(state, terms, {
        sameTerms: (s) => s.planName.toLowerCase() === command.planName.trim().toLowerCase(),
        submitted: (): InvestmentSubmitted => {
          const plan = validateRequest(command);
          const { name: planName, rateBps, durationMs } = plan;
          const requestedAt = command.now.toISOString();
          return {
            type: 'InvestmentSubmitted',
            data: { investmentId, userId, planName, rateBps, durationMs, amountCents, requestedAt },
          };
        },
      });
    }

    case 'MatureInvestment': {
      const s = lifecycle.existing(state);
      if (s.status === 'Ended') return [];
      if (s.status !== 'Active' || s.endDate === null) throw precondition(INVESTMENT_MESSAGES.notActive);
      if (!isDue(s, command.now)) throw precondition(INVESTMENT_MESSAGES.notMatured);
      const { investmentId, userId, amountCents, maturityAmountCents, endDate } = s;
      return [
        {
          type: 'InvestmentMatured',
          data: {
            investmentId,
            userId,
            amountCents,
            maturityAmountCents,
            profitCents: maturityAmountCents - amountCents,
            endDate,
            maturedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordMaturitySettled': {
      const s = lifecycle.existing(state);
      if (s.funds === 'settled') return [];
      if (s.status !== 'Ended') throw precondition(INVESTMENT_MESSAGES.notEnded);
      const settled: MaturitySettled = {
        type: 'MaturitySettled',
        data: {
          investmentId: s.investmentId,
          userId: s.userId,
          principalCents: s.amountCents,
          maturityAmountCents: s.maturityAmountCents,
          settledAt: command.now.toISOString(),
        },
      };
      // the settlement captures first at the ledger: an approval's capture never confirmed is a fact too
      return s.funds === 'captured' ? [settled] : [lifecycle.captured(s, command.now), settled];
    }

    case 'RecordMaturedAndSettled': {
      const matured = decide({ type: 'MatureInvestment', now: command.now }, state);
      const ended = matured.reduce(evolve, state);
      return [...matured, ...decide({ type: 'RecordMaturitySettled', now: command.now }, ended)];
    }

    default:
      return lifecycle.decide(command, state);
  }
}

/** The investment as its read model sees it (ids, stream, pending status, evolve, the ledger call owed). */
export const INVESTMENT_KIND = lifecycle.described(evolve, ledgerCallOwed);

export const investmentDecider: Decider<InvestmentCommand, InvestmentEvent, InvestmentState> = {
  decide,
  evolve,
  initialState,
};
