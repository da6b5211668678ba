import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import { describe, expect, it } from 'vitest';
import {
  type WithdrawalEvent,
  WITHDRAWAL_MESSAGES,
  evolve,
  initialState,
  ledgerCallOwed,
  validateRequest,
  withdrawalDecider,
} from './withdrawal.js';

const spec = DeciderSpecification.for(withdrawalDecider);
const isDomainError = (kind: DomainError['kind']) => (e: unknown) =>
  e instanceof DomainError && e.kind === kind;
const T = new Date('2025-06-01T10:00:00.000Z');
const at = T.toISOString();
const WALLET = '0x742d35Cc6634C0532925a3b844Bc454e4438f44e';
const base = { withdrawalId: 'w-1', userId: 'u-1', amountCents: 7_500 };
const requested: WithdrawalEvent = {
  type: 'WithdrawalRequested',
  data: { ...base, walletAddress: WALLET, network: 'evm', requestDate: at },
};
const held: WithdrawalEvent = { type: 'HoldPlaced', data: { ...base, placedAt: at } };
const approved: WithdrawalEvent = {
  type: 'WithdrawalApproved',
  data: { ...base, walletAddress: WALLET, approvedBy: 'a', approvedAt: at },
};
const rejected: WithdrawalEvent = {
  type: 'WithdrawalRejected',
  data: { ...base, rejectedBy: 'a', rejectedAt: at },
};
const captured: WithdrawalEvent = { type: 'HoldCaptured', data: { ...base, capturedAt: at } };
const released: WithdrawalEvent = { type: 'HoldReleased', data: { ...base, releasedAt: at } };
const owed = (events: WithdrawalEvent[]) => ledgerCallOwed(events.reduce(evolve, initialState()));

describe('the ledger calls a withdrawal owes, from its events alone', () => {
  it('hold until recorded, capture after the approval, release after a rejection', () => {
    expect(owed([])).toBe('none');
    expect(owed([requested])).toBe('hold');
    expect(owed([requested, held])).toBe('none');
    expect(owed([requested, held, approved])).toBe('capture');
    expect(owed([requested, held, approved, captured])).toBe('none');
    expect(owed([requested, held, rejected])).toBe('release');
    expect(owed([requested, held, rejected, released])).toBe('none');
    expect(owed([requested, { type: 'HoldRefused', data: { ...base, reason: 'x', refusedAt: at } }])).toBe(
      'none',
    );
  });

  it('records each confirmation once, and only where it is owed', () => {
    const now = T;
    spec.given([requested, held, approved]).when({ type: 'RecordHoldCaptured', now }).then([captured]);
    spec
      .given([requested, held, approved, captured])
      .when({ type: 'RecordHoldCaptured', now })
      .thenNothingHappens();
    spec.given([requested, held, rejected]).when({ type: 'RecordHoldReleased', now }).then([released]);
    spec
      .given([requested, held, rejected, released])
      .when({ type: 'RecordHoldReleased', now })
      .thenNothingHappens();
    spec
      .given([requested, held])
      .when({ type: 'RecordHoldCaptured', now })
      .thenThrows(isDomainError('precondition'), WITHDRAWAL_MESSAGES.notApproved);
    spec
      .given([requested, held, approved])
      .when({ type: 'RecordHoldReleased', now })
      .thenThrows(isDomainError('precondition'), WITHDRAWAL_MESSAGES.notRejected);
  });
});

describe('validateRequest', () => {
  const request = {
    withdrawalId: 'w-1',
    userId: 'u-1',
    isVerified: true,
    kycStatus: 'Approved',
    amountCents: 7_500,
    walletAddress: ` ${WALLET} `,
    now: T,
  };
  it('returns the trimmed address and its network, without any balance', () => {
    expect(validateRequest(request)).toEqual({ walletAddress: WALLET, network: 'evm' });
  });
  it('refuses with the decider’s messages', () => {
    expect(() => validateRequest({ ...request, isVerified: false })).toThrow(WITHDRAWAL_MESSAGES.verifyEmail);
    expect(() => validateRequest({ ...request, kycStatus: 'Pending' })).toThrow(
      WITHDRAWAL_MESSAGES.kycRequired,
    );
    expect(() => validateRequest({ ...request, amountCents: 0 })).toThrow(WITHDRAWAL_MESSAGES.invalidAmount);
    expect(() => validateRequest({ ...request, amountCents: 4_999 })).toThrow(WITHDRAWAL_MESSAGES.minimum);
    expect(() => validateRequest({ ...request, walletAddress: '' })).toThrow(
      WITHDRAWAL_MESSAGES.walletRequired,
    );
    expect(() => validateRequest({ ...request, walletAddress: 'nope' })).toThrow(
      WITHDRAWAL_MESSAGES.invalidWallet,
    );
  });
});
