import { describe, expect, it } from 'vitest';
import { ledgerPerTest } from './testing/harness.js';

const h = ledgerPerTest();
const asAdmin = () => h.asAdmin();

async function bonusesPaid(referrerId: string) {
  const { transactions } = await h.call('listTransactions', { ...asAdmin(), userId: referrerId });
  return transactions.filter((t) => t.reason === 'referral_bonus');
}

/** The referrer (who deposits nothing here) was paid `count` bonuses of $5 in all. */
async function expectBonuses(referrerId: string, count: number): Promise<void> {
  expect(await h.balances(referrerId)).toMatchObject({ depositCents: count * 500 });
  expect(await bonusesPaid(referrerId)).toHaveLength(count);
}

describe('referral bonus', () => {
  it('$5 to the referrer on the referee FIRST confirmed deposit, once, even with UserRegistered delivered twice', async () => {
    const referrer = await h.user();
    const referee = await h.user({ register: false });
    const registration = {
      userId: referee.userId,
      name: 'Referee',
      email: 'referee@example.com',
      referredBy: referrer.userId,
    };
    const registered = await h.publishIdentity('UserRegistered', registration);
    await h.republish(registered); // the same event again (at-least-once delivery)
    await h.publishIdentity('UserRegistered', registration); // a second copy under another id
    await h.settle();

    await h.fund(referee, '100');
    expect(await h.balances(referrer.userId)).toMatchObject({ depositCents: 500 });
    expect(await h.balances(referee.userId)).toMatchObject({ depositCents: 10000 });
    const [bonus] = await bonusesPaid(referrer.userId);
    expect(bonus).toMatchObject({
      refereeId: referee.userId,
      entries: expect.arrayContaining([{ accountId: 'platform:referral', amountCents: -500 }]),
    });

    await h.fund(referee, '250');
    await h.fund(referee, '1');
    await expectBonuses(referrer.userId, 1);
  });

  it('a rejected deposit earns nothing; the first CONFIRMED one does', async () => {
    const referrer = await h.user();
    const referee = await h.user({ referredBy: referrer.userId });
    await h.settle();
    const first = await h.requestDeposit(referee, '30');
    await h.call('rejectDeposit', { ...asAdmin(), depositId: first.depositId });
    expect(await h.balances(referrer.userId)).toMatchObject({ depositCents: 0 });
    await h.fund(referee, '50');
    expect(await h.balances(referrer.userId)).toMatchObject({ depositCents: 500 });
    // two admins confirming the referee's next deposits at once never pay twice
    const deposits = await Promise.all(['5', '6'].map((amount) => h.requestDeposit(referee, amount)));
    await Promise.all(
      deposits.map((d) => h.call('confirmDeposit', { ...asAdmin(), depositId: d.depositId })),
    );
    expect(await bonusesPaid(referrer.userId)).toHaveLength(1);
  });

  it('a first confirmed deposit under $50 earns nothing, and neither do later ones', async () => {
    const referrer = await h.user();
    const referee = await h.user({ referredBy: referrer.userId });
    await h.settle();
    await h.fund(referee, '49.99');
    await h.fund(referee, '500');
    await expectBonuses(referrer.userId, 0);
  });

  it('no referrer, no bonus', async () => {
    const loner = await h.user();
    await h.settle();
    await h.fund(loner, '100');
    const { transactions } = await h.call('listTransactions', { ...asAdmin(), userId: loner.userId });
    expect(transactions.map((t) => t.reason)).toEqual(['deposit_confirmed']);
  });
});
