import { decisionCommands, decisionSpecs } from '@meridian/held-request/testing/decisionSpecs';
import {
  isDomainError,
  ledgerCallSpecs,
  lifecycleEvents,
} from '@meridian/held-request/testing/lifecycleSpecs';
import { describe, expect, it } from 'vitest';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type RequestInvestment,
  INVESTMENT_MESSAGES,
  INVESTMENT_STATUSES,
  evolve,
  initialState,
  investmentDecider,
  isDue,
  ledgerCallOwed,
  maturityAmountOf,
  parseInvestmentAmount,
  toInvestmentStreamId,
  validateRequest,
} from './investment.js';
import { DEFAULT_PLANS, type Plan, loadPlans } from './plan.js';

// Plans lasting seconds, as the tests of later layers will use.
const FAST: Plan[] = loadPlans([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 3_000 },
  { name: 'Odd', minAmount: 1, maxAmount: 1000, ratePercent: 15, durationMs: 1_000 },
]);
const T0 = new Date('2025-05-01T08:00:00.000Z');
const T1 = new Date('2025-05-01T08:00:10.000Z'); // approval
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

const request = (over: Partial<RequestInvestment> = {}): RequestInvestment => ({
  type: 'RequestInvestment',
  investmentId: 'inv-1',
  userId: 'u-1',
  isVerified: true,
  planName: 'Starter',
  plans: FAST,
  amountCents: 20_000,
  availableDepositCents: 50_000,
  now: T0,
  ...over,
});
const { approve, reject } = decisionCommands('ApproveInvestment', 'RejectInvestment', T1);
const mature = (now: Date): InvestmentCommand => ({ type: 'MatureInvestment', now });

const facts = { investmentId: 'inv-1', userId: 'u-1', amountCents: 20_000 };
const terms = { planName: 'Starter', rateBps: 1200, durationMs: 3_000 };
const requested: InvestmentEvent = {
  type: 'InvestmentSubmitted',
  data: { ...facts, ...terms, requestedAt: T0.toISOString() },
};
const holdPlaced: InvestmentEvent = { type: 'HoldPlaced', data: { ...facts, placedAt: T0.toISOString() } };
const ENDS = new Date('2025-05-01T08:00:13.000Z');
const approved: InvestmentEvent = {
  type: 'InvestmentApproved',
  data: {
    ...facts,
    planName: 'Starter',
    maturityAmountCents: 22_400,
    startDate: '2025-05-01T08:00:10.000Z',
    endDate: ENDS.toISOString(),
    approvedBy: 'admin-1',
  },
};
const rejected: InvestmentEvent = {
  type: 'InvestmentRejected',
  data: { ...facts, rejectedBy: 'admin-1', rejectedAt: T1.toISOString() },
};
const rules = decisionSpecs({
  decider: investmentDecider,
  story: { requested, held: holdPlaced, approved, rejected },
  decisions: { approve, reject },
  request,
  messages: INVESTMENT_MESSAGES,
});
const { spec } = rules;
const matured: InvestmentEvent = {
  type: 'InvestmentMatured',
  data: {
    ...facts,
    maturityAmountCents: 22_400,
    profitCents: 2_400,
    endDate: ENDS.toISOString(),
    maturedAt: ENDS.toISOString(),
  },
};

/** The ledger settled inv-1 of u-1: $200.00 principal paying $224.00 at maturity. */
const maturitySettled = (settledAt: string): InvestmentEvent => ({
  type: 'MaturitySettled',
  data: {
    investmentId: 'inv-1',
    userId: 'u-1',
    principalCents: 20_000,
    maturityAmountCents: 22_400,
    settledAt,
  },
});

describe('RequestInvestment', () => {
  it("records a 'pending' request with the plan's terms copied in", () => {
    spec.given([]).when(request()).then([requested]);
    expect(evolve(initialState(), requested)).toMatchObject({ status: 'pending', hold: 'awaiting' });
    expect(toInvestmentStreamId('inv-1')).toBe('investment-inv-1');
  });

  it('stores the canonical plan name whatever case the client sent', () => {
    spec
      .given([])
      .when(request({ planName: ' starter ' }))
      .then((events) => expect(events[0].data).toMatchObject({ planName: 'Starter' }));
  });

  rules.requestRules([0, -1, 100.5, NaN]);

  it.each(['', '   '])('needs a plan: %j', (planName) => {
    spec
      .given([])
      .when(request({ planName }))
      .thenThrows(isDomainError('invalid'), 'Please select an investment plan.');
  });

  it('refuses a plan that does not exist', () => {
    spec
      .given([])
      .when(request({ planName: 'Titanium' }))
      .thenThrows(isDomainError('invalid'), INVESTMENT_MESSAGES.unknownPlan);
  });

  it("accepts both inclusive bounds of the plan's range, and refuses a cent past either naming the range", () => {
    const range = 'The Starter plan accepts amounts from $100 to $500';
    rules.expectBound(request({ amountCents: 9_999 }), 'invalid', range, request({ amountCents: 10_000 }));
    rules.expectBound(request({ amountCents: 50_001 }), 'invalid', range, request({ amountCents: 50_000 }));
  });

  it('names the range of the default plans too', () => {
    spec
      .given([])
      .when(
        request({
          plans: DEFAULT_PLANS,
          planName: 'Diamond',
          amountCents: 999_999,
          availableDepositCents: 10_000_000,
        }),
      )
      .thenThrows(isDomainError('invalid'), 'The Diamond plan accepts amounts from $10,000 to $50,000');
  });

  it('refuses more than the Deposit Balance, and accepts exactly all of it', () => {
    rules.expectBound(
      request({ amountCents: 20_000, availableDepositCents: 19_999 }),
      'precondition',
      'Insufficient balance',
      request({ amountCents: 20_000, availableDepositCents: 20_000 }),
    );
  });

  it('answers a retry with nothing new; another request under the same id is a conflict', () => {
    rules.expectRetryAnswered(30_000);
  });
});

describe('hold outcome', () => {
  it('HoldPlaced puts the request in the admin queue; recording it again is a no-op', () => {
    rules.expectHoldPlacedOnce(T0, T1);
  });

  it("HoldRefused ends the request as 'Rejected' with the ledger's reason", () => {
    const refused: InvestmentEvent = {
      type: 'HoldRefused',
      data: {
        investmentId: 'inv-1',
        userId: 'u-1',
        amountCents: 20_000,
        reason: 'Insufficient balance',
        refusedAt: T0.toISOString(),
      },
    };
    spec
      .given([requested])
      .when({ type: 'RecordHoldRefused', reason: 'Insufficient balance', now: T0 })
      .then([refused]);
    expect([requested, refused].reduce(evolve, initialState())).toMatchObject({
      status: 'Rejected',
      refusal: 'Insufficient balance',
    });
    spec
      .given([requested, refused])
      .when({ type: 'RecordHoldRefused', reason: 'again', now: T1 })
      .thenNothingHappens();
    spec
      .given([requested, refused])
      .when({ type: 'RecordHoldPlaced', now: T1 })
      .thenThrows(isDomainError('conflict'), INVESTMENT_MESSAGES.holdAlreadyRecorded);
    spec
      .given([requested, refused])
      .when(approve())
      .thenThrows(isDomainError('conflict'), INVESTMENT_MESSAGES.alreadyRejected);
  });

  it('a refusal without a reason says insufficient balance', () => {
    spec
      .given([requested])
      .when({ type: 'RecordHoldRefused', reason: '', now: T0 })
      .then((events) => expect(events[0].data).toMatchObject({ reason: 'Insufficient balance' }));
  });

  it('the outcome of an unknown investment is refused', () => {
    spec
      .given([])
      .when({ type: 'RecordHoldPlaced', now: T0 })
      .thenThrows(isDomainError('not_found'), INVESTMENT_MESSAGES.notFound);
  });
});

describe('ApproveInvestment / RejectInvestment', () => {
  /** A request recorded on `terms` (the request's own changed), held, approved at T1: what its approval fixes. */
  const expectApprovedOn = (
    terms: { planName?: string; rateBps?: number; durationMs?: number; amountCents?: number },
    fixed: { maturityAmountCents: number; endDate: string },
  ) => {
    const on: InvestmentEvent = { ...requested, data: { ...requested.data, ...terms } };
    spec
      .given([on, holdPlaced])
      .when(approve())
      .then((events) => expect(events[0].data).toMatchObject(fixed));
  };

  it('approval starts it now, ends it after the duration and fixes maturityAmount = amount x (1 + rate)', () => {
    spec.given([requested, holdPlaced]).when(approve()).then([approved]);
    expect([requested, holdPlaced, approved].reduce(evolve, initialState())).toMatchObject({
      status: 'Active',
      startDate: approved.data.startDate,
      endDate: ENDS.toISOString(),
      maturityAmountCents: 22_400,
    });
  });

  it('rounds the maturity amount half-up to the cent', () => {
    expect(maturityAmountOf(12_345, 1500)).toBe(14_197); // 12345 + 1851.75
    expect(maturityAmountOf(333, 1500)).toBe(383); // 333 + 49.95
    expect(maturityAmountOf(10_000, 2700)).toBe(12_700);
    expectApprovedOn(
      { planName: 'Odd', rateBps: 1500, durationMs: 1_000, amountCents: 12_345 },
      { maturityAmountCents: 14_197, endDate: '2025-05-01T08:00:11.000Z' },
    );
  });

  it('approves on the terms copied into the request, not on whatever plans are configured now', () => {
    // Requested while "Starter" paid 20 % over 5 s; the configured Starter pays 12 % over 3 s today.
    expectApprovedOn(
      { rateBps: 2000, durationMs: 5_000 },
      { maturityAmountCents: 24_000, endDate: '2025-05-01T08:00:15.000Z' },
    );
  });

  it("rejection ends it 'Rejected'", () => {
    spec.given([requested, holdPlaced]).when(reject()).then([rejected]);
    expect([requested, holdPlaced, rejected].reduce(evolve, initialState()).status).toBe('Rejected');
  });

  it('waits for the funds to be held', () => {
    rules.expectDecisionAwaitsHold();
  });

  it('is decided once', () => {
    rules.expectDecidedOnce();
    spec
      .given([requested, holdPlaced, approved, matured])
      .when(reject())
      .thenThrows(isDomainError('conflict'), 'This investment has already ended');
  });

  it('is for admins only, and for existing investments', () => {
    rules.expectAdminsOnly();
  });
});

describe('MatureInvestment', () => {
  const active = [requested, holdPlaced, approved];

  it('is refused before endDate, even by a millisecond', () => {
    spec
      .given(active)
      .when(mature(at(ENDS, -1)))
      .thenThrows(isDomainError('precondition'), 'This investment has not matured yet');
    expect(isDue(active.reduce(evolve, initialState()), at(ENDS, -1))).toBe(false);
  });

  it("ends it at endDate with principal and profit, 'Ended'", () => {
    spec.given(active).when(mature(ENDS)).then([matured]);
    expect([...active, matured].reduce(evolve, initialState())).toMatchObject({
      status: 'Ended',
      maturedAt: ENDS.toISOString(),
    });
    expect(isDue(active.reduce(evolve, initialState()), ENDS)).toBe(true);
  });

  it('matures later than endDate too (a scheduler after a restart)', () => {
    spec
      .given(active)
      .when(mature(at(ENDS, 86_400_000)))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          endDate: ENDS.toISOString(),
          maturedAt: '2025-05-02T08:00:13.000Z',
        }),
      );
  });

  it('happens exactly once', () => {
    spec
      .given([...active, matured])
      .when(mature(at(ENDS, 5_000)))
      .thenNothingHappens();
    expect(isDue([...active, matured].reduce(evolve, initialState()), at(ENDS, 5_000))).toBe(false);
  });

  it('only an Active investment matures', () => {
    spec
      .given([requested, holdPlaced])
      .when(mature(at(ENDS, 1)))
      .thenThrows(isDomainError('precondition'), INVESTMENT_MESSAGES.notActive);
    spec
      .given([requested, holdPlaced, rejected])
      .when(mature(at(ENDS, 1)))
      .thenThrows(isDomainError('precondition'), INVESTMENT_MESSAGES.notActive);
    spec.given([]).when(mature(ENDS)).thenThrows(isDomainError('not_found'), INVESTMENT_MESSAGES.notFound);
  });
});

describe('RecordMaturedAndSettled (the ledger settled it first: the batch pass)', () => {
  const active = [requested, holdPlaced, approved];
  const captured: InvestmentEvent = {
    type: 'HoldCaptured',
    data: { ...facts, capturedAt: T1.toISOString() },
  };
  const settled = maturitySettled(ENDS.toISOString());
  const both = (now: Date): InvestmentCommand => ({ type: 'RecordMaturedAndSettled', now });

  it('matures and settles in one decision, the capture first when it was never confirmed', () => {
    spec
      .given([...active, captured])
      .when(both(ENDS))
      .then([matured, settled]);
    spec
      .given(active)
      .when(both(ENDS))
      .then((events) =>
        expect(events.map((e) => e.type)).toEqual(['InvestmentMatured', 'HoldCaptured', 'MaturitySettled']),
      );
    expect([...active, captured, matured, settled].reduce(evolve, initialState())).toMatchObject({
      status: 'Ended',
      funds: 'settled',
    });
  });

  it('settles an ended one, and does nothing twice', () => {
    spec
      .given([...active, captured, matured])
      .when(both(at(ENDS, 5_000)))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MaturitySettled']));
    spec
      .given([...active, captured, matured, settled])
      .when(both(at(ENDS, 5_000)))
      .thenNothingHappens();
  });

  it('is refused before endDate and for an investment that is not Active', () => {
    spec
      .given(active)
      .when(both(at(ENDS, -1)))
      .thenThrows(isDomainError('precondition'), INVESTMENT_MESSAGES.notMatured);
    spec
      .given([requested, holdPlaced, rejected])
      .when(both(ENDS))
      .thenThrows(isDomainError('precondition'), INVESTMENT_MESSAGES.notActive);
  });
});

describe('statuses and amounts', () => {
  it("statuses are 'pending' | 'Active' | 'Rejected' | 'Ended'", () => {
    expect(INVESTMENT_STATUSES).toEqual(['pending', 'Active', 'Rejected', 'Ended']);
  });

  it('parses the free-text amount of start-invest', () => {
    expect(parseInvestmentAmount('250.5')).toBe(25_050);
    expect(parseInvestmentAmount(100)).toBe(10_000);
    expect(() => parseInvestmentAmount('')).toThrow(INVESTMENT_MESSAGES.amountRequired);
    expect(() => parseInvestmentAmount('0')).toThrow('Amount must be greater than zero');
    expect(() => parseInvestmentAmount('12.345')).toThrow('Amount can have at most 2 decimal places');
    expect(() => parseInvestmentAmount('ten')).toThrow('Please enter a valid amount');
  });
});

describe('the ledger calls an investment owes, from its events alone', () => {
  const now = T1;
  const story = { requested, approved, ...lifecycleEvents(facts, now.toISOString(), 'InvestmentRejected') };
  const { held, captured } = story;
  const settled = maturitySettled(now.toISOString());
  const { owed } = ledgerCallSpecs({
    noun: 'investment',
    decider: investmentDecider,
    ledgerCallOwed,
    messages: INVESTMENT_MESSAGES,
    story,
    now,
    former: { type: 'InvestmentRequested', then: [held, approved, matured] },
  });

  it('settle after the maturity', () => {
    expect(owed([requested, held, approved, matured])).toBe('settle');
    expect(owed([requested, held, approved, captured, matured])).toBe('settle');
    expect(owed([requested, held, approved, captured, matured, settled])).toBe('none');
  });

  it('records the settlement once, and only where it is owed', () => {
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

describe('validateRequest', () => {
  const valid = request({ planName: 'starter', plans: DEFAULT_PLANS, amountCents: 50_000 });
  it('returns the plan of a valid request, without any balance', () => {
    expect(validateRequest(valid).name).toBe('Starter');
  });
  it('refuses with the decider’s messages', () => {
    expect(() => validateRequest({ ...valid, isVerified: false })).toThrow(INVESTMENT_MESSAGES.verifyEmail);
    expect(() => validateRequest({ ...valid, planName: ' ' })).toThrow(INVESTMENT_MESSAGES.selectPlan);
    expect(() => validateRequest({ ...valid, planName: 'Nope' })).toThrow(INVESTMENT_MESSAGES.unknownPlan);
    expect(() => validateRequest({ ...valid, amountCents: 0 })).toThrow(INVESTMENT_MESSAGES.invalidAmount);
    expect(() => validateRequest({ ...valid, amountCents: 1 })).toThrow(
      /The Starter plan accepts amounts from/,
    );
    expect(() => validateRequest({ ...valid, investmentId: '' })).toThrow(INVESTMENT_MESSAGES.missingId);
  });
});
