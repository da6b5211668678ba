/** Which money event becomes which email (domain/moneyEmails.ts). */
import { describe, expect, it } from 'vitest';
import { emailForMoneyEvent, type MoneyEmailLookups } from './moneyEmails.js';
import { templates } from './templates/registry.js';

const ann = { userId: 'u1', email: 'ann@example.com', name: 'Ann', role: 'subscriber' };
const ctx = { appUrl: 'https://meridian.example' };
/** The email of a money event, the directory naming Ann unless `lookups` says otherwise. */
const emailFor = (type: string, data: Record<string, unknown>, lookups: MoneyEmailLookups = { user: ann }) =>
  emailForMoneyEvent({ type, data }, lookups);

describe('money emails', () => {
  it('deposit confirmed / rejected go to the depositor with the amount (and notes)', () => {
    const ok = emailFor('DepositConfirmed', { depositId: 'd1', userId: 'u1', amountCents: 25_050 });
    expect(ok).toEqual({
      to: 'ann@example.com',
      userId: 'u1',
      template: 'depositConfirmed',
      data: { name: 'Ann', amountCents: 25_050, transactionId: 'd1' },
    });
    expect(templates.depositConfirmed.render(ok!.data as never, ctx).text).toContain('$250.50');
    const no = emailFor('DepositRejected', {
      depositId: 'd2',
      userId: 'u1',
      amountCents: 100,
      notes: 'not received',
    });
    expect(no?.template).toBe('depositRejected');
    expect(no?.data).toMatchObject({ notes: 'not received' });
  });

  /** What the directory remembers of the investment from InvestmentRequested. */
  const investment = { investmentId: 'i1', planName: 'Gold', amountCents: 500_000 };
  it.each([
    ['InvestmentRejected', { amountCents: 500_000 }, 'investmentRejected'],
    ['InvestmentMatured', { maturityAmountCents: 600_000 }, 'investmentMatured'],
  ])('%s names the remembered plan when the event has none', (type, amounts, template) => {
    const email = emailFor(type, { investmentId: 'i1', userId: 'u1', ...amounts }, { user: ann, investment });
    expect(email).toMatchObject({ template, data: { planName: 'Gold', ...amounts } });
  });

  it('investment approved carries the end date and the maturity amount', () => {
    const approved = emailFor('InvestmentApproved', {
      investmentId: 'i1',
      userId: 'u1',
      planName: 'Gold',
      amountCents: 500_000,
      maturityAmountCents: 600_000,
      endDate: '2026-02-01',
    });
    expect(approved).toMatchObject({
      template: 'investmentApproved',
      data: { endDate: '2026-02-01', maturityAmountCents: 600_000 },
    });
  });

  it('withdrawal requested / approved / rejected; the name and address from the event win over the directory', () => {
    const req = emailFor('WithdrawalRequested', {
      withdrawalId: 'w1',
      userId: 'u1',
      userName: 'Ann B',
      userEmail: 'annb@example.com',
      amountCents: 6_000,
      walletAddress: '0xabc',
    });
    expect(req).toMatchObject({
      to: 'annb@example.com',
      template: 'withdrawalRequested',
      data: { name: 'Ann B', walletAddress: '0xabc' },
    });
    expect(
      emailFor('WithdrawalApproved', { withdrawalId: 'w1', userId: 'u1', amountCents: 6_000 })?.template,
    ).toBe('withdrawalApproved');
    expect(
      emailFor('WithdrawalRejected', { withdrawalId: 'w1', userId: 'u1', amountCents: 6_000 })?.template,
    ).toBe('withdrawalRejected');
  });

  it('the referral bonus goes to the referrer and names the referee', () => {
    const bonus = emailFor(
      'ReferralBonusPaid',
      { userId: 'u1', refereeId: 'u2', depositId: 'd9', amountCents: 500 },
      { user: ann, referee: { userId: 'u2', email: 'bo@example.com', name: 'Bo', role: 'subscriber' } },
    );
    expect(bonus).toMatchObject({
      to: 'ann@example.com',
      template: 'referralBonus',
      data: { amountCents: 500, refereeName: 'Bo' },
    });
  });

  it('no email without a recipient, and none for other events', () => {
    expect(
      emailFor('DepositConfirmed', { depositId: 'd1', userId: 'u1', amountCents: 1 }, { user: null }),
    ).toBeNull();
    expect(emailFor('BalancesChanged', { userId: 'u1' })).toBeNull();
    expect(emailFor('DepositRequested', { userId: 'u1' })).toBeNull();
  });
});
