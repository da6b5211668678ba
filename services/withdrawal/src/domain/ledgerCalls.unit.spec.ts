import {
  expectConfirmationsOnce,
  expectFormerNameRead,
  expectOwedCalls,
  lifecycleEvents,
} from '@meridian/held-request/testing/lifecycleSpecs';
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

const T = new Date('2025-06-01T10:00:00.000Z');
const at = T.toISOString();
const WALLET = '0x742d35Cc6634C0532925a3b844Bc454e4438f44e';
const base = { withdrawalId: 'w-1', userId: 'u-1', amountCents: 7_500 };
const requested: WithdrawalEvent = {
  type: 'WithdrawalSubmitted',
  data: { ...base, walletAddress: WALLET, network: 'evm', requestDate: at },
};
const approved: WithdrawalEvent = {
  type: 'WithdrawalApproved',
  data: { ...base, walletAddress: WALLET, approvedBy: 'a', approvedAt: at },
};
const story = { requested, approved, ...lifecycleEvents(base, at, 'WithdrawalRejected') };
const owed = (events: WithdrawalEvent[]) => ledgerCallOwed(events.reduce(evolve, initialState()));

describe('the ledger calls a withdrawal owes, from its events alone', () => {
  it('hold until recorded, capture after the approval, release after a rejection', () => {
    expectOwedCalls(owed, story);
  });

  it('records each confirmation once, and only where it is owed', () => {
    expectConfirmationsOnce(withdrawalDecider, story, WITHDRAWAL_MESSAGES, {
      capture: { type: 'RecordHoldCaptured', now: T },
      release: { type: 'RecordHoldReleased', now: T },
    });
  });
});

describe('streams stored before the private request event was renamed', () => {
  it('WithdrawalRequested (now WithdrawalSubmitted) still opens the withdrawal', () => {
    const { held, rejected } = story;
    expectFormerNameRead(withdrawalDecider, requested, 'WithdrawalRequested', {
      then: [held, rejected],
      held,
      recordHoldPlaced: { type: 'RecordHoldPlaced', now: T },
      owed,
    });
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
