/** Ledger BalancesChanged on the user view: the highest ledger-stream version per user wins. */
import { describe, expect, it } from 'vitest';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { registered } from '../testing/events.js';
import { projectUser, type UserView } from './userView.js';
import { projectExternalFact } from './externalFacts.js';

const ann = projectUser(null, registered()) as UserView;

const balances = (version: number, depositCents: number, investedCents = 0, profitCents = 0) => ({
  ...busEvent(
    'ledger-u1',
    version,
    {
      userId: 'u1',
      transactionId: `t${version}`,
      depositCents,
      investedCents,
      profitCents,
      withdrawalHoldCents: 0,
      investmentHoldCents: 0,
    },
    'BalancesChanged',
  ),
  occurredAt: `2026-01-02T00:00:0${version}.000Z`,
});

describe('balances on the user view (ledger BalancesChanged)', () => {
  it('maps deposit / invested / profit cents to balance / investmentBalance / totalMaturityAmount', () => {
    expect(projectExternalFact(ann, balances(3, 25_050, 10_000, 700))).toMatchObject({
      balanceCents: 25_050,
      investmentBalanceCents: 10_000,
      totalMaturityAmountCents: 700,
    });
  });

  it('keeps the highest version: an older event delivered late changes nothing, the same one again neither', () => {
    const newer = projectExternalFact(ann, balances(5, 900))!;
    expect(newer.balanceCents).toBe(900);
    const late = projectExternalFact(newer, balances(4, 100));
    expect(late).toBe(newer);
    expect(projectExternalFact(newer, balances(5, 900))).toBe(newer);
    expect(projectExternalFact(newer, balances(6, 1_000))?.balanceCents).toBe(1_000);
  });
});
