/** Money events → live pushes (pure), in the SPA's contract (web/src/features/live/README.md). */
import { describe, expect, it } from 'vitest';
import { pushesForMoneyEvent } from './moneyPushes.js';
import { parsePosition } from './hub.js';

describe('pushesForMoneyEvent', () => {
  it('InvestmentRequested → the admins queue item in the pending list shape, and the owner status', () => {
    const pushes = pushesForMoneyEvent({
      type: 'InvestmentRequested',
      data: {
        investmentId: 'i1',
        userId: 'u1',
        userName: 'Ann',
        userEmail: 'a@x.io',
        planName: 'Gold',
        amountCents: 500_000,
        rateBps: 2000,
        durationMs: 1000,
        requestedAt: '2026-01-01T00:00:00.000Z',
      },
    });
    expect(pushes).toEqual([
      {
        to: 'admins',
        event: 'queue/itemAdded',
        payload: {
          queue: 'investments',
          item: expect.objectContaining({
            _id: 'i1',
            investmentId: 'i1',
            plan: 'Gold',
            amount: 5000,
            status: 'pending',
            maturityAmount: 6000, // projected: 5 000 + 20 %
            createdAt: '2026-01-01T00:00:00.000Z',
            user: { _id: 'u1', name: 'Ann', email: 'a@x.io' },
          }),
        },
      },
      {
        to: { userId: 'u1' },
        event: 'status/changed',
        payload: { kind: 'investment', id: 'i1', status: 'pending' },
      },
    ]);
  });

  it('decisions leave every admin queue and tell the owner and the admins', () => {
    expect(
      pushesForMoneyEvent({
        type: 'WithdrawalRejected',
        data: { withdrawalId: 'w1', userId: 'u1', amountCents: 1 },
      }),
    ).toEqual([
      {
        to: 'admins',
        event: 'queue/itemDecided',
        payload: { queue: 'withdrawals', id: 'w1', status: 'Rejected' },
      },
      {
        to: { userId: 'u1' },
        event: 'status/changed',
        payload: { kind: 'withdrawal', id: 'w1', status: 'Rejected' },
      },
      {
        to: 'admins',
        event: 'status/changed',
        payload: { kind: 'withdrawal', id: 'w1', status: 'Rejected' },
      },
    ]);
    expect(
      pushesForMoneyEvent({ type: 'InvestmentMatured', data: { investmentId: 'i1', userId: 'u1' } }).map(
        (p) => p.payload.status,
      ),
    ).toEqual(['Ended', 'Ended']);
  });

  it('BalancesChanged → balances/changed to the owner only, in dollars', () => {
    expect(
      pushesForMoneyEvent({
        type: 'BalancesChanged',
        data: { userId: 'u1', depositCents: 12_345, investedCents: 100, profitCents: 0 },
      }),
    ).toEqual([
      {
        to: { userId: 'u1' },
        event: 'balances/changed',
        payload: {
          userId: 'u1',
          balances: { balance: 123.45, investmentBalance: 1, totalMaturityAmount: 0 },
        },
      },
    ]);
  });

  it('nothing for private or unknown events, or without a user', () => {
    expect(pushesForMoneyEvent({ type: 'TransactionPosted', data: { userId: 'u1' } })).toEqual([]);
    expect(pushesForMoneyEvent({ type: 'DepositConfirmed', data: { depositId: 'd1' } })).toEqual([]);
  });
});

describe('parsePosition', () => {
  it('accepts <epoch>.<seq> only', () => {
    expect(parsePosition('abc_-1.42')).toEqual({ epoch: 'abc_-1', seq: 42 });
    for (const bad of ['42', 'a.b', '', 'a.1.2', null, 7, { epoch: 'a' }])
      expect(parsePosition(bad)).toBeNull();
  });
});
