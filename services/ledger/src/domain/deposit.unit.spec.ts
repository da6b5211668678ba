import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import { describe, expect, it } from 'vitest';
import {
  type DepositCommand,
  type DepositEvent,
  DEPOSIT_MESSAGES,
  DEPOSIT_STATUSES,
  MAX_DEPOSIT_CENTS,
  REFERRAL_BONUS_CENTS,
  depositDecider,
  evolve,
  initialState,
  parseDepositAmount,
  referralBonusFor,
  REFERRAL_MIN_FIRST_DEPOSIT_CENTS,
  toDepositStreamId,
} from './deposit.js';

const spec = DeciderSpecification.for(depositDecider);
const T0 = new Date('2025-03-01T09:00:00.000Z');
const T1 = new Date('2025-03-01T12:30:00.000Z');
const isDomainError = (kind: DomainError['kind']) => (e: unknown) =>
  e instanceof DomainError && e.kind === kind;

const request = (
  over: Partial<Extract<DepositCommand, { type: 'RequestDeposit' }>> = {},
): DepositCommand => ({
  type: 'RequestDeposit',
  depositId: 'd-1',
  userId: 'u-1',
  isVerified: true,
  amountCents: 25_000,
  now: T0,
  ...over,
});
const confirm = (notes?: string, adminId = 'admin-1'): DepositCommand => ({
  type: 'ConfirmDeposit',
  adminId,
  actorRole: 'admin',
  notes,
  now: T1,
});
const reject = (notes?: string, adminId = 'admin-1'): DepositCommand => ({
  type: 'RejectDeposit',
  adminId,
  actorRole: 'admin',
  notes,
  now: T1,
});

const requested: DepositEvent = {
  type: 'DepositRequested',
  data: { depositId: 'd-1', userId: 'u-1', amountCents: 25_000, requestedAt: T0.toISOString() },
};
const confirmed: DepositEvent = {
  type: 'DepositConfirmed',
  data: {
    depositId: 'd-1',
    userId: 'u-1',
    amountCents: 25_000,
    notes: '',
    confirmedBy: 'admin-1',
    confirmedAt: T1.toISOString(),
  },
};
const rejected: DepositEvent = {
  type: 'DepositRejected',
  data: {
    depositId: 'd-1',
    userId: 'u-1',
    amountCents: 25_000,
    notes: 'no funds arrived',
    rejectedBy: 'admin-2',
    rejectedAt: T1.toISOString(),
  },
};

describe('RequestDeposit', () => {
  it('records a Pending deposit', () => {
    spec.given([]).when(request()).then([requested]);
    expect(evolve(initialState(), requested)).toMatchObject({
      status: 'Pending',
      amountCents: 25_000,
      decidedBy: null,
    });
    expect(toDepositStreamId('d-1')).toBe('deposit-d-1');
  });

  it('needs a verified email', () => {
    spec
      .given([])
      .when(request({ isVerified: false }))
      .thenThrows(isDomainError('precondition'), 'Please verify your email before making a deposit');
  });

  it('accepts from one cent up to exactly $1,000,000', () => {
    for (const amountCents of [1, MAX_DEPOSIT_CENTS]) {
      spec
        .given([])
        .when(request({ amountCents }))
        .then((events) => expect(events).toHaveLength(1));
    }
    expect(MAX_DEPOSIT_CENTS).toBe(100_000_000);
  });

  it('refuses more than $1,000,000', () => {
    spec
      .given([])
      .when(request({ amountCents: MAX_DEPOSIT_CENTS + 1 }))
      .thenThrows(isDomainError('invalid'), DEPOSIT_MESSAGES.amountTooLarge);
  });

  it.each([0, -100, 10.5, NaN, Infinity])('refuses %s cents', (amountCents) => {
    spec
      .given([])
      .when(request({ amountCents }))
      .thenThrows(isDomainError('invalid'), DEPOSIT_MESSAGES.amountNotPositive);
  });

  it('answers a retry of the same request with nothing new, and refuses another request under the same id', () => {
    spec.given([requested]).when(request()).thenNothingHappens();
    for (const another of [{ amountCents: 1 }, { userId: 'u-2' }]) {
      spec
        .given([requested])
        .when(request(another))
        .thenThrows(isDomainError('conflict'), DEPOSIT_MESSAGES.alreadyExists);
    }
  });
});

describe('ConfirmDeposit / RejectDeposit', () => {
  it('confirm records the admin, the time and the notes', () => {
    spec
      .given([requested])
      .when(confirm('  received on chain  '))
      .then([{ ...confirmed, data: { ...confirmed.data, notes: 'received on chain' } } as DepositEvent]);
  });

  it('notes are optional', () => {
    spec.given([requested]).when(confirm()).then([confirmed]);
  });

  it('reject moves no money and keeps the notes', () => {
    spec.given([requested]).when(reject('no funds arrived', 'admin-2')).then([rejected]);
    const state = [requested, rejected].reduce(evolve, initialState());
    expect(state).toMatchObject({
      status: 'Rejected',
      notes: 'no funds arrived',
      decidedBy: 'admin-2',
      decidedAt: T1.toISOString(),
    });
  });

  it('is decided once: a second decision gets a clear conflict', () => {
    for (const [decision, refusal] of [
      [confirmed, 'This deposit has already been confirmed'],
      [rejected, 'This deposit has already been rejected'],
    ] as const) {
      for (const second of [confirm(), reject()]) {
        spec.given([requested, decision]).when(second).thenThrows(isDomainError('conflict'), refusal);
      }
    }
  });

  it('of two admins racing, the second is told who won', () => {
    const first = depositDecider.decide(
      confirm(undefined, 'admin-1'),
      [requested].reduce(evolve, initialState()),
    );
    spec
      .given([requested, ...first])
      .when(reject(undefined, 'admin-2'))
      .thenThrows(isDomainError('conflict'), DEPOSIT_MESSAGES.alreadyConfirmed);
  });

  it('is for admins only', () => {
    spec
      .given([requested])
      .when({ type: 'ConfirmDeposit', adminId: 'u-9', actorRole: 'author', now: T1 })
      .thenThrows(isDomainError('forbidden'), DEPOSIT_MESSAGES.notAuthorized);
    spec
      .given([requested])
      .when({ type: 'RejectDeposit', adminId: 'u-9', actorRole: 'subscriber', now: T1 })
      .thenThrows(isDomainError('forbidden'), DEPOSIT_MESSAGES.notAuthorized);
  });

  it('refuses an unknown deposit and overly long notes', () => {
    spec.given([]).when(confirm()).thenThrows(isDomainError('not_found'), DEPOSIT_MESSAGES.notFound);
    spec
      .given([requested])
      .when(confirm('x'.repeat(1001)))
      .thenThrows(isDomainError('invalid'), DEPOSIT_MESSAGES.notesTooLong);
  });

  it('statuses are exactly the spec spelling', () => {
    expect(DEPOSIT_STATUSES).toEqual(['Pending', 'Confirmed', 'Rejected']);
    expect([requested, confirmed].reduce(evolve, initialState()).status).toBe('Confirmed');
  });
});

describe('parseDepositAmount', () => {
  it('reads the REST amount in dollars', () => {
    expect(parseDepositAmount('250')).toBe(25_000);
    expect(parseDepositAmount(99.99)).toBe(9_999);
    expect(parseDepositAmount('1000000')).toBe(100_000_000);
  });

  it.each([
    [undefined, DEPOSIT_MESSAGES.amountRequired],
    ['', DEPOSIT_MESSAGES.amountRequired],
    ['0', DEPOSIT_MESSAGES.amountNotPositive],
    ['0.00', DEPOSIT_MESSAGES.amountNotPositive],
    ['10.001', 'Amount can have at most 2 decimal places'],
    ['-5', 'Amount cannot be negative'],
    ['1e3', 'Please enter a valid amount'],
    ['abc', 'Please enter a valid amount'],
    ['1000000.01', DEPOSIT_MESSAGES.amountTooLarge],
    ['99999999999999999999', DEPOSIT_MESSAGES.amountTooLarge],
  ])('refuses %j with %j', (input, message) => {
    expect(() => parseDepositAmount(input)).toThrow(message);
  });
});

describe('referralBonusFor', () => {
  const first = { referrerId: 'ref-1', refereeId: 'u-1', confirmedDepositsBefore: 0, depositCents: 5_000 };

  it("pays the referrer 500 cents on the referee's first confirmed deposit of at least $50", () => {
    expect(referralBonusFor(first)).toEqual({ referrerId: 'ref-1', refereeId: 'u-1', amountCents: 500 });
    expect(REFERRAL_BONUS_CENTS).toBe(500);
    expect(REFERRAL_MIN_FIRST_DEPOSIT_CENTS).toBe(5_000);
  });

  it('pays nothing on later deposits, without a referrer, or to oneself', () => {
    expect(referralBonusFor({ ...first, confirmedDepositsBefore: 1 })).toBeNull();
    expect(referralBonusFor({ ...first, confirmedDepositsBefore: 7 })).toBeNull();
    expect(referralBonusFor({ ...first, referrerId: null })).toBeNull();
    expect(referralBonusFor({ ...first, referrerId: '' })).toBeNull();
    expect(referralBonusFor({ ...first, referrerId: 'u-1' })).toBeNull();
  });

  it('pays nothing when the first confirmed deposit is under the minimum', () => {
    expect(referralBonusFor({ ...first, depositCents: 4_999 })).toBeNull();
    expect(referralBonusFor({ ...first, depositCents: 1 })).toBeNull();
    // the minimum is a parameter (configurable)
    expect(referralBonusFor({ ...first, depositCents: 1_000, minimumCents: 1_000 })).not.toBeNull();
    expect(referralBonusFor({ ...first, depositCents: 9_999, minimumCents: 10_000 })).toBeNull();
  });
});
