/**
 * An investment (stream `investment-<investmentId>`): pure decider.
 *
 * Lifecycle (DESIGN.md §3a, §4):
 *   RequestInvestment -> InvestmentRequested (status 'pending'; the app then asks the ledger to hold the
 *   amount on the Deposit Balance, with the investment id as the idempotency key)
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
 * 'Active', and use 'Rejected' and 'Ended' (DESIGN.md §3a: "the investment becomes Ended").
 *
 * The plan's terms are copied into the request, so replacing the plans later never changes an
 * investment in flight.
 */
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import {
  type BasisPoints,
  type Cents,
  MONEY_MESSAGES,
  addCents,
  applyRateBasisPoints,
  isPositiveCents,
  parseDollarsToCents,
} from '@meridian/platform/money/money';
import { type Plan, findPlan, isWithinPlan, planRangeText } from './plan.js';

export const INVESTMENT_STATUSES = ['pending', 'Active', 'Rejected', 'Ended'] as const;
export type InvestmentStatus = (typeof INVESTMENT_STATUSES)[number];
export type HoldOutcome = 'awaiting' | 'placed' | 'refused';
/** What the ledger confirmed it did with the held funds after the decision (null: nothing yet). */
export type FundsOutcome = 'captured' | 'released' | 'settled' | null;

export const toInvestmentStreamId = (investmentId: string) => `investment-${investmentId}`;

export const INVESTMENT_MESSAGES = {
  verifyEmail: 'Please verify your email before investing',
  selectPlan: 'Please select an investment plan.',
  unknownPlan: 'The selected investment plan does not exist',
  amountRequired: 'Please enter an amount',
  invalidAmount: 'Please enter a valid amount',
  outOfRange: (p: Plan) => `The ${p.name} plan accepts amounts from ${planRangeText(p)}`,
  insufficientBalance: 'Insufficient balance',
  notFound: 'Investment not found',
  alreadyExists: 'This investment already exists',
  holdNotPlaced: 'The funds for this investment are not held yet',
  holdAlreadyRecorded: 'The outcome of this investment request is already recorded',
  alreadyApproved: 'This investment has already been approved',
  alreadyRejected: 'This investment has already been rejected',
  alreadyEnded: 'This investment has already ended',
  notActive: 'Only an active investment can mature',
  notMatured: 'This investment has not matured yet',
  notAuthorized: 'Not authorized, admin only',
  missingId: 'Command is missing an id',
  notApproved: 'Only an approved investment has its funds captured',
  notRejected: 'Only a rejected investment with its funds held has them released',
  notEnded: 'Only an ended investment is settled',
} as const;

// ---------- events ----------

export type InvestmentRequested = {
  type: 'InvestmentRequested';
  data: {
    investmentId: string;
    userId: string;
    planName: string;
    rateBps: BasisPoints;
    durationMs: number;
    amountCents: Cents;
    requestedAt: string;
  };
};
export type HoldPlaced = {
  type: 'HoldPlaced';
  data: { investmentId: string; userId: string; amountCents: Cents; placedAt: string };
};
export type HoldRefused = {
  type: 'HoldRefused';
  data: { investmentId: string; userId: string; amountCents: Cents; reason: string; refusedAt: string };
};
export type InvestmentApproved = {
  type: 'InvestmentApproved';
  data: {
    investmentId: string;
    userId: string;
    planName: string;
    amountCents: Cents;
    maturityAmountCents: Cents;
    startDate: string;
    endDate: string;
    approvedBy: string;
  };
};
export type InvestmentRejected = {
  type: 'InvestmentRejected';
  data: { investmentId: string; userId: string; amountCents: Cents; rejectedBy: string; rejectedAt: string };
};
export type InvestmentMatured = {
  type: 'InvestmentMatured';
  data: {
    investmentId: string;
    userId: string;
    amountCents: Cents;
    maturityAmountCents: Cents;
    profitCents: Cents;
    endDate: string;
    maturedAt: string;
  };
};
/** The ledger confirmed the capture of the held funds into invested (after the approval). */
export type HoldCaptured = {
  type: 'HoldCaptured';
  data: { investmentId: string; userId: string; amountCents: Cents; capturedAt: string };
};
/** The ledger confirmed the release of the held funds back to the Deposit Balance (after a rejection). */
export type HoldReleased = {
  type: 'HoldReleased';
  data: { investmentId: string; userId: string; amountCents: Cents; releasedAt: string };
};
/** The ledger confirmed the settlement of principal + profit into Total Profit (after the maturity). */
export type MaturitySettled = {
  type: 'MaturitySettled';
  data: {
    investmentId: string;
    userId: string;
    principalCents: Cents;
    maturityAmountCents: Cents;
    settledAt: string;
  };
};
export type InvestmentEvent =
  | InvestmentRequested
  | HoldPlaced
  | HoldRefused
  | InvestmentApproved
  | InvestmentRejected
  | InvestmentMatured
  | HoldCaptured
  | HoldReleased
  | MaturitySettled;

// ---------- commands ----------

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
export type RecordHoldPlaced = { type: 'RecordHoldPlaced'; now: Date };
export type RecordHoldRefused = { type: 'RecordHoldRefused'; reason: string; now: Date };
export type ApproveInvestment = { type: 'ApproveInvestment'; adminId: string; actorRole: string; now: Date };
export type RejectInvestment = { type: 'RejectInvestment'; adminId: string; actorRole: string; now: Date };
export type MatureInvestment = { type: 'MatureInvestment'; now: Date };
export type RecordHoldCaptured = { type: 'RecordHoldCaptured'; now: Date };
export type RecordHoldReleased = { type: 'RecordHoldReleased'; now: Date };
export type RecordMaturitySettled = { type: 'RecordMaturitySettled'; now: Date };
export type InvestmentCommand =
  | RequestInvestment
  | RecordHoldPlaced
  | RecordHoldRefused
  | ApproveInvestment
  | RejectInvestment
  | MatureInvestment
  | RecordHoldCaptured
  | RecordHoldReleased
  | RecordMaturitySettled;

/** A request as the client made it: what validateRequest checks without any state. */
export type InvestmentRequest = Omit<RequestInvestment, 'type' | 'availableDepositCents'>;

// ---------- state ----------

export type InvestmentState =
  | { status: 'none' }
  | {
      status: InvestmentStatus;
      investmentId: string;
      userId: string;
      planName: string;
      rateBps: BasisPoints;
      durationMs: number;
      amountCents: Cents;
      requestedAt: string;
      hold: HoldOutcome;
      funds: FundsOutcome;
      refusal: string | null;
      maturityAmountCents: Cents | null;
      startDate: string | null;
      endDate: string | null;
      decidedBy: string | null;
      decidedAt: string | null;
      maturedAt: string | null;
    };

export type ExistingInvestment = Exclude<InvestmentState, { status: 'none' }>;

export const initialState = (): InvestmentState => ({ status: 'none' });

export function evolve(state: InvestmentState, event: InvestmentEvent): InvestmentState {
  if (event.type === 'InvestmentRequested') {
    const d = event.data;
    return {
      status: 'pending',
      investmentId: d.investmentId,
      userId: d.userId,
      planName: d.planName,
      rateBps: d.rateBps,
      durationMs: d.durationMs,
      amountCents: d.amountCents,
      requestedAt: d.requestedAt,
      hold: 'awaiting',
      funds: null,
      refusal: null,
      maturityAmountCents: null,
      startDate: null,
      endDate: null,
      decidedBy: null,
      decidedAt: null,
      maturedAt: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'HoldPlaced':
      return { ...state, hold: 'placed' };
    case 'HoldRefused':
      return {
        ...state,
        hold: 'refused',
        status: 'Rejected',
        refusal: event.data.reason,
        decidedAt: event.data.refusedAt,
      };
    case 'InvestmentApproved':
      return {
        ...state,
        status: 'Active',
        maturityAmountCents: event.data.maturityAmountCents,
        startDate: event.data.startDate,
        endDate: event.data.endDate,
        decidedBy: event.data.approvedBy,
        decidedAt: event.data.startDate,
      };
    case 'InvestmentRejected':
      return {
        ...state,
        status: 'Rejected',
        decidedBy: event.data.rejectedBy,
        decidedAt: event.data.rejectedAt,
      };
    case 'InvestmentMatured':
      return { ...state, status: 'Ended', maturedAt: event.data.maturedAt };
    case 'HoldCaptured':
      return { ...state, funds: 'captured' };
    case 'HoldReleased':
      return { ...state, funds: 'released' };
    case 'MaturitySettled':
      return { ...state, funds: 'settled' };
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

// ---------- rules ----------

/** amount x (1 + rate), rounded half-up to the cent. */
export const maturityAmountOf = (amountCents: Cents, rateBps: BasisPoints): Cents =>
  addCents(amountCents, applyRateBasisPoints(amountCents, rateBps));

/** The free-text amount of start-invest (dollars) to cents. */
export function parseInvestmentAmount(input: unknown): Cents {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
    throw invalid(INVESTMENT_MESSAGES.amountRequired);
  }
  const cents = parseDollarsToCents(input);
  if (cents <= 0) throw invalid(MONEY_MESSAGES.notPositive);
  return cents;
}

/** For the durable scheduler and api/invest/deposit-maturity: Active and at or past its endDate. */
export function isDue(state: InvestmentState, now: Date): boolean {
  return state.status === 'Active' && state.endDate !== null && now.getTime() >= Date.parse(state.endDate);
}

/** The ledger call a state still owes (the process manager's to-do list), 'none' when nothing is owed. */
export type LedgerCallOwed = 'none' | 'hold' | 'capture' | 'release' | 'settle';

export function ledgerCallOwed(state: InvestmentState): LedgerCallOwed {
  if (state.status === 'none') return 'none';
  if (state.hold === 'awaiting') return 'hold';
  const { status } = state;
  switch (status) {
    case 'pending':
      return 'none';
    case 'Active':
      return state.funds === null ? 'capture' : 'none';
    case 'Ended':
      return state.funds === 'settled' ? 'none' : 'settle';
    case 'Rejected':
      return state.hold === 'placed' && state.funds === null ? 'release' : 'none';
    default: {
      const _exhaustive: never = status;
      return 'none';
    }
  }
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

function existing(state: InvestmentState): ExistingInvestment {
  if (state.status === 'none') throw notFound(INVESTMENT_MESSAGES.notFound);
  return state;
}

function refuseIfDecided(state: ExistingInvestment): void {
  if (state.status === 'Active') throw conflict(INVESTMENT_MESSAGES.alreadyApproved, 'ALREADY_DECIDED');
  if (state.status === 'Ended') throw conflict(INVESTMENT_MESSAGES.alreadyEnded, 'ALREADY_DECIDED');
  if (state.status === 'Rejected') throw conflict(INVESTMENT_MESSAGES.alreadyRejected, 'ALREADY_DECIDED');
}

// ---------- decide ----------

export function decide(command: InvestmentCommand, state: InvestmentState): InvestmentEvent[] {
  switch (command.type) {
    case 'RequestInvestment': {
      if (!command.investmentId || !command.userId) throw invalid(INVESTMENT_MESSAGES.missingId);
      if (state.status !== 'none') {
        const same =
          state.userId === command.userId &&
          state.amountCents === command.amountCents &&
          state.planName.toLowerCase() === command.planName.trim().toLowerCase();
        if (same) return [];
        throw conflict(INVESTMENT_MESSAGES.alreadyExists);
      }
      const plan = validateRequest(command);
      if (command.amountCents > command.availableDepositCents) {
        throw precondition(INVESTMENT_MESSAGES.insufficientBalance, 'INSUFFICIENT_FUNDS');
      }
      return [
        {
          type: 'InvestmentRequested',
          data: {
            investmentId: command.investmentId,
            userId: command.userId,
            planName: plan.name,
            rateBps: plan.rateBps,
            durationMs: plan.durationMs,
            amountCents: command.amountCents,
            requestedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordHoldPlaced':
    case 'RecordHoldRefused': {
      const s = existing(state);
      const placing = command.type === 'RecordHoldPlaced';
      if (s.hold === (placing ? 'placed' : 'refused')) return [];
      if (s.hold !== 'awaiting') throw conflict(INVESTMENT_MESSAGES.holdAlreadyRecorded);
      const at = command.now.toISOString();
      const base = { investmentId: s.investmentId, userId: s.userId, amountCents: s.amountCents };
      return placing
        ? [{ type: 'HoldPlaced', data: { ...base, placedAt: at } }]
        : [
            {
              type: 'HoldRefused',
              data: {
                ...base,
                reason: command.reason || INVESTMENT_MESSAGES.insufficientBalance,
                refusedAt: at,
              },
            },
          ];
    }

    case 'ApproveInvestment':
    case 'RejectInvestment': {
      if (command.actorRole !== 'admin') throw forbidden(INVESTMENT_MESSAGES.notAuthorized);
      const s = existing(state);
      refuseIfDecided(s);
      if (s.hold !== 'placed') throw precondition(INVESTMENT_MESSAGES.holdNotPlaced);
      const at = command.now;
      if (command.type === 'RejectInvestment') {
        return [
          {
            type: 'InvestmentRejected',
            data: {
              investmentId: s.investmentId,
              userId: s.userId,
              amountCents: s.amountCents,
              rejectedBy: command.adminId,
              rejectedAt: at.toISOString(),
            },
          },
        ];
      }
      return [
        {
          type: 'InvestmentApproved',
          data: {
            investmentId: s.investmentId,
            userId: s.userId,
            planName: s.planName,
            amountCents: s.amountCents,
            maturityAmountCents: maturityAmountOf(s.amountCents, s.rateBps),
            startDate: at.toISOString(),
            endDate: new Date(at.getTime() + s.durationMs).toISOString(),
            approvedBy: command.adminId,
          },
        },
      ];
    }

    case 'MatureInvestment': {
      const s = existing(state);
      if (s.status === 'Ended') return [];
      if (s.status !== 'Active' || s.endDate === null || s.maturityAmountCents === null)
        throw precondition(INVESTMENT_MESSAGES.notActive);
      if (!isDue(s, command.now)) throw precondition(INVESTMENT_MESSAGES.notMatured);
      return [
        {
          type: 'InvestmentMatured',
          data: {
            investmentId: s.investmentId,
            userId: s.userId,
            amountCents: s.amountCents,
            maturityAmountCents: s.maturityAmountCents,
            profitCents: s.maturityAmountCents - s.amountCents,
            endDate: s.endDate,
            maturedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordHoldCaptured': {
      const s = existing(state);
      if (s.funds === 'captured' || s.funds === 'settled') return [];
      if ((s.status !== 'Active' && s.status !== 'Ended') || s.funds !== null)
        throw precondition(INVESTMENT_MESSAGES.notApproved);
      return [
        {
          type: 'HoldCaptured',
          data: {
            investmentId: s.investmentId,
            userId: s.userId,
            amountCents: s.amountCents,
            capturedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordHoldReleased': {
      const s = existing(state);
      if (s.funds === 'released') return [];
      if (s.status !== 'Rejected' || s.hold !== 'placed' || s.funds !== null)
        throw precondition(INVESTMENT_MESSAGES.notRejected);
      return [
        {
          type: 'HoldReleased',
          data: {
            investmentId: s.investmentId,
            userId: s.userId,
            amountCents: s.amountCents,
            releasedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordMaturitySettled': {
      const s = existing(state);
      if (s.funds === 'settled') return [];
      if (s.status !== 'Ended' || s.maturityAmountCents === null)
        throw precondition(INVESTMENT_MESSAGES.notEnded);
      const at = command.now.toISOString();
      const base = { investmentId: s.investmentId, userId: s.userId };
      const settled: InvestmentEvent = {
        type: 'MaturitySettled',
        data: {
          ...base,
          principalCents: s.amountCents,
          maturityAmountCents: s.maturityAmountCents,
          settledAt: at,
        },
      };
      // the settlement captures first at the ledger: an approval's capture never confirmed is a fact too
      return s.funds === 'captured'
        ? [settled]
        : [{ type: 'HoldCaptured', data: { ...base, amountCents: s.amountCents, capturedAt: at } }, settled];
    }

    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const investmentDecider: Decider<InvestmentCommand, InvestmentEvent, InvestmentState> = {
  decide,
  evolve,
  initialState,
};
