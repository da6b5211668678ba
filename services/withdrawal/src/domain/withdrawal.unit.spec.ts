import { decisionCommands, decisionSpecs } from '@meridian/held-request/testing/decisionSpecs';
import {
  isDomainError,
  ledgerCallSpecs,
  lifecycleEvents,
} from '@meridian/held-request/testing/lifecycleSpecs';
import { describe, expect, it } from 'vitest';
import {
  type RequestWithdrawal,
  type WithdrawalEvent,
  MIN_WITHDRAWAL_CENTS,
  WITHDRAWAL_MESSAGES,
  WITHDRAWAL_STATUSES,
  evolve,
  initialState,
  ledgerCallOwed,
  parseWithdrawalAmount,
  toWithdrawalStreamId,
  validateRequest,
  withdrawalDecider,
} from './withdrawal.js';

const T0 = new Date('2025-06-01T10:00:00.000Z');
const T1 = new Date('2025-06-02T10:00:00.000Z');
const WALLET = '0x742d35Cc6634C0532925a3b844Bc454e4438f44e';

const request = (over: Partial<RequestWithdrawal> = {}): RequestWithdrawal => ({
  type: 'RequestWithdrawal',
  withdrawalId: 'w-1',
  userId: 'u-1',
  isVerified: true,
  kycStatus: 'Approved',
  amountCents: 7_500,
  availableProfitCents: 20_000,
  walletAddress: WALLET,
  now: T0,
  ...over,
});
const { approve, reject } = decisionCommands('ApproveWithdrawal', 'RejectWithdrawal', T1);

const facts = { withdrawalId: 'w-1', userId: 'u-1', amountCents: 7_500 };
const requested: WithdrawalEvent = {
  type: 'WithdrawalSubmitted',
  data: { ...facts, walletAddress: WALLET, network: 'evm', requestDate: T0.toISOString() },
};
const held: WithdrawalEvent = { type: 'HoldPlaced', data: { ...facts, placedAt: T0.toISOString() } };
const approved: WithdrawalEvent = {
  type: 'WithdrawalApproved',
  data: { ...facts, walletAddress: WALLET, approvedBy: 'admin-1', approvedAt: T1.toISOString() },
};
const rejected: WithdrawalEvent = {
  type: 'WithdrawalRejected',
  data: { ...facts, rejectedBy: 'admin-2', rejectedAt: T1.toISOString() },
};
const rules = decisionSpecs({
  decider: withdrawalDecider,
  story: { requested, held, approved, rejected },
  decisions: { approve, reject },
  request,
  messages: WITHDRAWAL_MESSAGES,
});
const { spec } = rules;

describe('RequestWithdrawal', () => {
  it("records a 'Pending' request with the network the address belongs to", () => {
    spec.given([]).when(request()).then([requested]);
    expect(evolve(initialState(), requested)).toMatchObject({
      status: 'Pending',
      hold: 'awaiting',
      walletAddress: WALLET,
    });
    expect(toWithdrawalStreamId('w-1')).toBe('withdrawal-w-1');
  });

  it('stores the address trimmed', () => {
    spec
      .given([])
      .when(request({ walletAddress: ` ${WALLET} ` }))
      .then((events) => expect(events[0].data).toMatchObject({ walletAddress: WALLET }));
  });

  rules.requestRules([0, -5_000, 5_000.5, NaN]);

  it.each(['Not Submitted', 'Pending', 'Rejected', '', 'approved'])(
    'needs KYC Approved (refuses %j)',
    (kycStatus) => {
      spec
        .given([])
        .when(request({ kycStatus }))
        .thenThrows(isDomainError('precondition'), WITHDRAWAL_MESSAGES.kycRequired);
    },
  );

  it('refuses less than $50 and accepts exactly $50', () => {
    expect(MIN_WITHDRAWAL_CENTS).toBe(5_000);
    rules.expectBound(
      request({ amountCents: 4_999 }),
      'invalid',
      'Minimum withdrawal amount is $50',
      request({ amountCents: 5_000 }),
    );
  });

  it('refuses more than Total Profit and accepts exactly all of it', () => {
    rules.expectBound(
      request({ amountCents: 20_001 }),
      'precondition',
      WITHDRAWAL_MESSAGES.insufficientBalance,
      request({ amountCents: 20_000 }),
    );
  });

  it('needs a wallet address of a plausible format', () => {
    spec
      .given([])
      .when(request({ walletAddress: '' }))
      .thenThrows(isDomainError('invalid'), WITHDRAWAL_MESSAGES.walletRequired);
    spec
      .given([])
      .when(request({ walletAddress: 'not-a-wallet' }))
      .thenThrows(isDomainError('invalid'), 'Please enter a valid wallet address');
    spec
      .given([])
      .when(request({ walletAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }))
      .then((events) => expect(events[0].data).toMatchObject({ network: 'bitcoin' }));
  });

  it('answers a retry with nothing new; another request under the same id is a conflict', () => {
    rules.expectRetryAnswered(9_000);
  });
});

describe('hold outcome', () => {
  it('HoldPlaced once', () => {
    rules.expectHoldPlacedOnce(T0, T1);
    spec
      .given([requested, held])
      .when({ type: 'RecordHoldRefused', reason: 'x', now: T1 })
      .thenThrows(isDomainError('conflict'), WITHDRAWAL_MESSAGES.holdAlreadyRecorded);
  });

  it("HoldRefused ends the request as 'Rejected'", () => {
    spec
      .given([requested])
      .when({ type: 'RecordHoldRefused', reason: 'Insufficient balance', now: T0 })
      .then((events) => {
        expect(events).toEqual([
          {
            type: 'HoldRefused',
            data: {
              withdrawalId: 'w-1',
              userId: 'u-1',
              amountCents: 7_500,
              reason: 'Insufficient balance',
              refusedAt: T0.toISOString(),
            },
          },
        ]);
        expect([requested, ...events].reduce(evolve, initialState())).toMatchObject({
          status: 'Rejected',
          refusal: 'Insufficient balance',
        });
      });
  });
});

describe('ApproveWithdrawal / RejectWithdrawal', () => {
  it("approval pays it out: 'Approved'", () => {
    spec.given([requested, held]).when(approve()).then([approved]);
    expect([requested, held, approved].reduce(evolve, initialState())).toMatchObject({
      status: 'Approved',
      decidedBy: 'admin-1',
    });
  });

  it("rejection releases it: 'Rejected'", () => {
    spec.given([requested, held]).when(reject('admin-2')).then([rejected]);
    expect([requested, held, rejected].reduce(evolve, initialState()).status).toBe('Rejected');
  });

  it('is decided once; the second admin gets a clear message', () => {
    rules.expectDecidedOnce();
  });

  it('waits for the funds to be held', () => {
    rules.expectDecisionAwaitsHold();
  });

  it('is for admins only, and for existing withdrawals', () => {
    rules.expectAdminsOnly();
  });

  it("statuses are exactly 'Pending' | 'Approved' | 'Rejected'", () => {
    expect(WITHDRAWAL_STATUSES).toEqual(['Pending', 'Approved', 'Rejected']);
  });
});

describe('parseWithdrawalAmount', () => {
  it('reads dollars to cents and leaves the bounds to the decider', () => {
    expect(parseWithdrawalAmount('50')).toBe(5_000);
    expect(parseWithdrawalAmount(75.25)).toBe(7_525);
    expect(parseWithdrawalAmount('10')).toBe(1_000);
    expect(() => parseWithdrawalAmount('')).toThrow(WITHDRAWAL_MESSAGES.amountRequired);
    expect(() => parseWithdrawalAmount(undefined)).toThrow(WITHDRAWAL_MESSAGES.amountRequired);
    expect(() => parseWithdrawalAmount('50.001')).toThrow('Amount can have at most 2 decimal places');
    expect(() => parseWithdrawalAmount('-50')).toThrow('Amount cannot be negative');
  });
});

describe('the ledger calls a withdrawal owes, from its events alone', () => {
  ledgerCallSpecs({
    noun: 'withdrawal',
    decider: withdrawalDecider,
    ledgerCallOwed,
    messages: WITHDRAWAL_MESSAGES,
    story: { requested, approved, ...lifecycleEvents(facts, T1.toISOString(), 'WithdrawalRejected') },
    now: T1,
    former: { type: 'WithdrawalRequested', then: [held, rejected] },
  });
});

describe('validateRequest', () => {
  const valid = request({ walletAddress: ` ${WALLET} ` });
  it('returns the trimmed address and its network, without any balance', () => {
    expect(validateRequest(valid)).toEqual({ walletAddress: WALLET, network: 'evm' });
  });
  it('refuses with the decider’s messages', () => {
    expect(() => validateRequest({ ...valid, isVerified: false })).toThrow(WITHDRAWAL_MESSAGES.verifyEmail);
    expect(() => validateRequest({ ...valid, kycStatus: 'Pending' })).toThrow(
      WITHDRAWAL_MESSAGES.kycRequired,
    );
    expect(() => validateRequest({ ...valid, amountCents: 0 })).toThrow(WITHDRAWAL_MESSAGES.invalidAmount);
    expect(() => validateRequest({ ...valid, amountCents: 4_999 })).toThrow(WITHDRAWAL_MESSAGES.minimum);
    expect(() => validateRequest({ ...valid, walletAddress: '' })).toThrow(
      WITHDRAWAL_MESSAGES.walletRequired,
    );
    expect(() => validateRequest({ ...valid, walletAddress: 'nope' })).toThrow(
      WITHDRAWAL_MESSAGES.invalidWallet,
    );
  });
});
