/** Ledger BalancesChanged on the user view: the highest ledger-stream version per user wins. */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { projectUser, type UserView } from './userView.js';
import { projectExternalFact } from './externalFacts.js';

const registered = projectUser(null, {
  id: 'r1',
  type: 'UserRegistered',
  data: {
    userId: 'u1',
    name: 'Ann',
    email: 'ann@example.com',
    role: 'subscriber',
    referralCode: 'ABCDEFGH23',
    referredBy: '',
    registeredAt: '2026-01-01T00:00:00.000Z',
    phone: '+1',
    country: 'Kenya',
  },
  streamId: 'user-u1',
  version: 1,
  position: 1,
  occurredAt: '2026-01-01T00:00:00.000Z',
  correlationId: 'c',
  causationId: null,
  actor: null,
} as never) as UserView;

const balances = (
  version: number,
  depositCents: number,
  investedCents = 0,
  profitCents = 0,
): StoredEvent => ({
  id: `b${version}`,
  type: 'BalancesChanged',
  data: {
    userId: 'u1',
    transactionId: `t${version}`,
    depositCents,
    investedCents,
    profitCents,
    withdrawalHoldCents: 0,
    investmentHoldCents: 0,
  },
  streamId: 'ledger-u1',
  version,
  position: 100 + version,
  occurredAt: `2026-01-02T00:00:0${version}.000Z`,
  correlationId: 'c',
  causationId: null,
  actor: null,
});

describe('balances on the user view (ledger BalancesChanged)', () => {
  it('maps deposit / invested / profit cents to balance / investmentBalance / totalMaturityAmount', () => {
    expect(projectExternalFact(registered, balances(3, 25_050, 10_000, 700))).toMatchObject({
      balanceCents: 25_050,
      investmentBalanceCents: 10_000,
      totalMaturityAmountCents: 700,
    });
  });

  it('keeps the highest version: an older event delivered late changes nothing, the same one again neither', () => {
    const newer = projectExternalFact(registered, balances(5, 900))!;
    expect(newer.balanceCents).toBe(900);
    const late = projectExternalFact(newer, balances(4, 100));
    expect(late).toBe(newer);
    expect(projectExternalFact(newer, balances(5, 900))).toBe(newer);
    expect(projectExternalFact(newer, balances(6, 1_000))?.balanceCents).toBe(1_000);
  });
});
