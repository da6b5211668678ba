/**
 * The money records carry `initiatedBy` (the impersonating admin who opened them)
 * when the service sends one, and nothing otherwise; the answers' schemas accept both.
 */
import { describe, expect, it } from 'vitest';
import { Deposit } from '@meridian/proto/meridian/ledger/v1/ledger';
import { Investment } from '@meridian/proto/meridian/investment/v1/investment';
import { Withdrawal } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { depositAnswer, investmentAnswer, withdrawalAnswer, withdrawalDetailAnswer } from './answers.js';
import { depositJson, investmentJson, withdrawalJson } from './moneyViews.js';

const owner = { userId: 'u1', userName: 'Ada', userEmail: 'ada@x.io' };
const records = (initiatedBy: string) => {
  const deposit = depositJson(Deposit.fromPartial({ ...owner, depositId: 'd1', initiatedBy }));
  const investment = investmentJson(Investment.fromPartial({ ...owner, investmentId: 'i1', initiatedBy }));
  const withdrawal = Withdrawal.fromPartial({ ...owner, withdrawalId: 'w1', initiatedBy });
  return [
    [depositAnswer, deposit],
    [investmentAnswer, investment],
    [withdrawalAnswer, withdrawalJson(withdrawal)],
    [withdrawalDetailAnswer, withdrawalJson(withdrawal, 'detail')],
  ] as const;
};

describe('money views: initiatedBy', () => {
  it('is the impersonating admin when the service sends one', () => {
    for (const [schema, json] of records('admin-7')) {
      expect(json).toMatchObject({ initiatedBy: 'admin-7' });
      expect(schema.parse(json)).toEqual(json);
    }
  });

  it('is absent when the owner opened the record', () => {
    for (const [schema, json] of records('')) {
      expect(json).not.toHaveProperty('initiatedBy');
      expect(schema.parse(json)).toEqual(json);
    }
  });
});
