import {
  expectConfirmationsOnce,
  expectFormerNameRead,
  expectOwedCalls,
  isDomainError,
  lifecycleEvents,
} from '@meridian/held-request/testing/lifecycleSpecs';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import { describe, expect, it } from 'vitest';
import {
  type InvestmentEvent,
  INVESTMENT_MESSAGES,
  evolve,
  initialState,
  investmentDecider,
  ledgerCallOwed,
  validateRequest,
} from './investment.js';
import { DEFAULT_PLANS } from './plan.js';
import { maturitySettled } from '../testing/events.js';

const spec = DeciderSpecification.for(investmentDecider);
const T = new Date('2025-05-01T08:00:00.000Z');
const at = T.toISOString();
const base = { investmentId: 'inv-1', userId: 'u-1', amountCents: 20_000 };
const requested: InvestmentEvent = {
  type: 'InvestmentSubmitted',
  data: { ...base, planName: 'Starter', rateBps: 1200, durationMs: 1_000, requestedAt: at },
};
const approved: InvestmentEvent = {
  type: 'InvestmentApproved',
  data: {
    ...base,
    planName: 'Starter',
    maturityAmountCents: 22_400,
    startDate: at,
    endDate: at,
    approvedBy: 'a',
  },
};
const matured: InvestmentEvent = {
  type: 'InvestmentMatured',
  data: { ...base, maturityAmountCents: 22_400, profitCents: 2_400, endDate: at, maturedAt: at },
};
const settled = maturitySettled(at);
const story = { requested, approved, ...lifecycleEvents(base, at, 'InvestmentRejected') };
const { held, captured } = story;
const owed = (events: InvestmentEvent[]) => ledgerCallOwed(events.reduce(evolve, initialState()));

describe('the ledger calls an investment owes, from its events alone', () => {
  it('hold until recorded, capture after the approval, release after a rejection, settle after the maturity', () => {
    expectOwedCalls(owed, story);
    expect(owed([requested, held, approved, matured])).toBe('settle');
    expect(owed([requested, held, approved, captured, matured])).toBe('settle');
    expect(owed([requested, held, approved, captured, matured, settled])).toBe('none');
  });

  it('records each confirmation once, and only where it is owed', () => {
    const now = T;
    expectConfirmationsOnce(investmentDecider, story, INVESTMENT_MESSAGES, {
      capture: { type: 'RecordHoldCaptured', now },
      release: { type: 'RecordHoldReleased', now },
    });
    spec
      .given([requested, held, approved, captured, matured])
      .when({ type: 'RecordMaturitySettled', now })
      .then([settled]);
    // the approval's capture never confirmed: the settlement captured first, both are recorded
    spec
      .given([requested, held, approved, matured])
      .when({ type: 'RecordMaturitySettled', now })
      .then([captured, settled]);
    spec
      .given([requested, held, approved, captured, matured, settled])
      .when({ type: 'RecordMaturitySettled', now })
      .thenNothingHappens();
    spec
      .given([requested, held, approved])
      .when({ type: 'RecordMaturitySettled', now })
      .thenThrows(isDomainError('precondition'), INVESTMENT_MESSAGES.notEnded);
  });
});

describe('streams stored before the private request event was renamed', () => {
  it('InvestmentRequested (now InvestmentSubmitted) still opens the investment', () => {
    expectFormerNameRead(investmentDecider, requested, 'InvestmentRequested', {
      then: [held, approved, matured],
      held,
      recordHoldPlaced: { type: 'RecordHoldPlaced', now: T },
      owed,
    });
  });
});

describe('validateRequest', () => {
  const request = {
    investmentId: 'inv-1',
    userId: 'u-1',
    isVerified: true,
    planName: 'starter',
    plans: DEFAULT_PLANS,
    amountCents: 50_000,
    now: T,
  };
  it('returns the plan of a valid request, without any balance', () => {
    expect(validateRequest(request).name).toBe('Starter');
  });
  it('refuses with the decider’s messages', () => {
    expect(() => validateRequest({ ...request, isVerified: false })).toThrow(INVESTMENT_MESSAGES.verifyEmail);
    expect(() => validateRequest({ ...request, planName: ' ' })).toThrow(INVESTMENT_MESSAGES.selectPlan);
    expect(() => validateRequest({ ...request, planName: 'Nope' })).toThrow(INVESTMENT_MESSAGES.unknownPlan);
    expect(() => validateRequest({ ...request, amountCents: 0 })).toThrow(INVESTMENT_MESSAGES.invalidAmount);
    expect(() => validateRequest({ ...request, amountCents: 1 })).toThrow(
      /The Starter plan accepts amounts from/,
    );
    expect(() => validateRequest({ ...request, investmentId: '' })).toThrow(INVESTMENT_MESSAGES.missingId);
  });
});
