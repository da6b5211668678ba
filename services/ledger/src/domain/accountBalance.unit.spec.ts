import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { describe, expect, it } from 'vitest';
import {
  type AdjustBalance,
  type LedgerCommand,
  type LedgerEvent,
  LEDGER_MESSAGES,
  decide,
  evolve,
  evolveUnlinked,
  foldLedger,
  initialState,
  transactionProblem,
  userAccount,
  withChainLinks,
} from './account.js';
import { U, T0, fresh, credit, hold, capture, release, settle, adjust } from '../testing/accountFixtures.js';
import { history, stateOf, isDomainError, postedIn, spec } from '../testing/accountFixtures.js';

describe('SettleMaturity', () => {
  const active = () => history(credit(10_000), hold('inv-1', 'investment', 10_000), capture('inv-1'));

  it('moves principal from invested and profit from yield into Total Profit', () => {
    spec
      .given(active())
      .when(settle('inv-1', 10_000, 11_200))
      .then((events) => {
        const tx = postedIn(events)[0];
        expect(tx.reason).toBe('investment_matured');
        expect(tx.references).toEqual({ investmentId: 'inv-1' });
        expect(tx.entries).toEqual([
          { accountId: 'user:u-1:invested', amountCents: -10_000 },
          { accountId: 'platform:yield', amountCents: -1_200 },
          { accountId: 'user:u-1:profit', amountCents: 11_200 },
        ]);
        expect(events[1].data).toMatchObject({ investedCents: 0, profitCents: 11_200 });
      });
  });

  it('settles an investment exactly once (scheduler and deposit-maturity racing)', () => {
    const given = [...active(), ...decide(settle('inv-1', 10_000, 11_200), stateOf(active()))];
    spec
      .given(given)
      .when(settle('inv-1', 10_000, 11_200))
      .thenNothingHappens();
    spec
      .given(given)
      .when({ ...settle('inv-1', 10_000, 11_200), idempotencyKey: 'scheduler-run-2' })
      .thenNothingHappens();
  });

  it('refuses to take more from invested than it holds', () => {
    spec
      .given(history(credit(10_000), hold('inv-1', 'investment', 5_000), capture('inv-1')))
      .when(settle('inv-2', 10_000, 11_200))
      .thenThrows(isDomainError('precondition'), LEDGER_MESSAGES.insufficientInvested);
  });

  it('refuses a maturity amount below the principal', () => {
    spec
      .given(active())
      .when(settle('inv-1', 10_000, 9_999))
      .thenThrows(isDomainError('invalid'), LEDGER_MESSAGES.maturityBelowPrincipal);
  });
});

describe('AdjustBalance (admin)', () => {
  it.each(['deposit', 'invested', 'profit'] as const)(
    'adds to %s against the adjustment account, with the admin and the reason',
    (account) => {
      spec
        .given([])
        .when(adjust({ account, amountCents: 2_500, reason: '  compensation  ' }))
        .then((events) => {
          const tx = postedIn(events)[0];
          expect(tx).toMatchObject({
            reason: 'admin_adjustment',
            memo: 'compensation',
            references: { adminId: 'admin-1' },
          });
          expect(tx.entries).toEqual([
            { accountId: 'platform:adjustment', amountCents: -2_500 },
            { accountId: `user:u-1:${account}`, amountCents: 2_500 },
          ]);
        });
    },
  );

  it('deducts down to exactly zero', () => {
    spec
      .given(history(credit(3_000)))
      .when(adjust({ operation: 'deduct', amountCents: 3_000, reason: undefined }))
      .then((events) => {
        const tx = postedIn(events)[0];
        expect(tx.memo).toBe('Admin deduct on deposit');
        expect(tx.entries).toEqual([
          { accountId: 'platform:adjustment', amountCents: 3_000 },
          { accountId: 'user:u-1:deposit', amountCents: -3_000 },
        ]);
        expect(events[1].data).toMatchObject({ depositCents: 0 });
      });
  });

  it('refuses a deduction past zero with a clear message', () => {
    spec
      .given(history(credit(3_000)))
      .when(adjust({ operation: 'deduct', amountCents: 3_001 }))
      .thenThrows(isDomainError('precondition'), 'Insufficient balance for this deduction');
    spec
      .given(history(credit(3_000)))
      .when(adjust({ account: 'profit', operation: 'deduct', amountCents: 1 }))
      .thenThrows(isDomainError('precondition'), 'Insufficient balance for this deduction');
  });

  it('does not let a deduction reach funds held for a pending request', () => {
    spec
      .given(history(credit(3_000), hold('inv-1', 'investment', 2_000)))
      .when(adjust({ operation: 'deduct', amountCents: 1_001 }))
      .thenThrows(isDomainError('precondition'), LEDGER_MESSAGES.insufficientForDeduction);
  });

  it('never takes Total Investment below the principal of active investments', () => {
    // 4,000 captured into an active investment, 1,500 added by an admin: 1,500 may go, not a cent more
    const given = history(
      credit(10_000),
      hold('inv-1', 'investment', 4_000),
      capture('inv-1'),
      adjust({ account: 'invested', amountCents: 1_500 }),
    );
    spec
      .given(given)
      .when(adjust({ account: 'invested', operation: 'deduct', amountCents: 1_501 }))
      .thenThrows(isDomainError('precondition'), LEDGER_MESSAGES.belowActivePrincipal);
    spec
      .given(given)
      .when(adjust({ account: 'invested', operation: 'deduct', amountCents: 1_500 }))
      .then((events) => expect(events.at(-1)?.data).toMatchObject({ investedCents: 4_000 }));
    // once settled, the principal is no longer active: the settlement itself took it
    const settled = history(
      credit(10_000),
      hold('inv-1', 'investment', 4_000),
      capture('inv-1'),
      adjust({ account: 'invested', amountCents: 1_500 }),
      settle('inv-1', 4_000, 4_400),
    );
    spec
      .given(settled)
      .when(adjust({ account: 'invested', operation: 'deduct', amountCents: 1_500 }))
      .then((events) => expect(events.at(-1)?.data).toMatchObject({ investedCents: 0 }));
    // a held (not yet captured) investment is not in invested: deducting what an admin added is fine
    spec
      .given(history(credit(10_000), hold('inv-2', 'investment', 4_000), adjust({ account: 'invested' })))
      .when(adjust({ account: 'invested', operation: 'deduct', amountCents: 1_000 }))
      .then((events) => expect(events.at(-1)?.data).toMatchObject({ investedCents: 0 }));
  });

  it('is for admins only', () => {
    for (const actorRole of ['author', 'subscriber', 'suspended', '']) {
      spec
        .given([])
        .when(adjust({ actorRole }))
        .thenThrows(isDomainError('forbidden'), LEDGER_MESSAGES.notAuthorized);
    }
  });

  it.each([
    ['an unknown operation', { operation: 'multiply' as never }, LEDGER_MESSAGES.invalidOperation],
    ['a hold account', { account: 'withdrawal_hold' as never }, LEDGER_MESSAGES.invalidAccount],
    ['a zero amount', { amountCents: 0 }, LEDGER_MESSAGES.amountNotPositive],
    ['a negative amount', { amountCents: -5 }, LEDGER_MESSAGES.amountNotPositive],
    ['a reason over 500 characters', { reason: 'x'.repeat(501) }, LEDGER_MESSAGES.reasonTooLong],
  ])('refuses %s', (_, over: Partial<AdjustBalance>, refusal) => {
    spec.given([]).when(adjust(over)).thenThrows(isDomainError('invalid'), refusal);
  });
});

describe('referrals', () => {
  const link = (referrerId: string, userId = U): LedgerCommand => ({
    type: 'LinkReferrer',
    userId,
    referrerId,
    now: T0,
  });

  it('links a referrer once; the same link again is a no-op, another one a conflict', () => {
    spec
      .given([])
      .when(link('ref-1'))
      .then([
        { type: 'ReferrerLinked', data: { userId: U, referrerId: 'ref-1', linkedAt: T0.toISOString() } },
      ]);
    spec
      .given(history(link('ref-1')))
      .when(link('ref-1'))
      .thenNothingHappens();
    spec
      .given(history(link('ref-1')))
      .when(link('ref-2'))
      .thenThrows(isDomainError('conflict'), LEDGER_MESSAGES.alreadyReferred);
    spec.given([]).when(link(U)).thenThrows(isDomainError('invalid'), LEDGER_MESSAGES.selfReferral);
  });

  it("the referee's first confirmed deposit of at least $50 earns the referrer $5", () => {
    spec
      .given(history(link('ref-1')))
      .when(credit(5_000, 'd-first'))
      .then((events) => {
        expect(events.at(-1)).toEqual({
          type: 'ReferralBonusEarned',
          data: { userId: U, referrerId: 'ref-1', depositId: 'd-first', amountCents: 500 },
        });
      });
  });

  it('a first deposit under $50 earns nothing, and neither do later ones', () => {
    spec
      .given(history(link('ref-1')))
      .when(credit(4_999, 'd-small'))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['TransactionPosted', 'BalancesChanged']));
    spec
      .given(history(link('ref-1'), credit(1)))
      .when(credit(100_000))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['TransactionPosted', 'BalancesChanged']));
    // a minimum set by configuration travels with the command
    spec
      .given(history(link('ref-1')))
      .when({ ...credit(1_000), referralMinimumCents: 1_000 })
      .then((events) => expect(events.at(-1)?.type).toBe('ReferralBonusEarned'));
  });

  it('later deposits earn nothing more', () => {
    spec
      .given(history(link('ref-1'), credit(5_000)))
      .when(credit(3_000))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['TransactionPosted', 'BalancesChanged']));
  });

  it('a user without a referrer earns nobody a bonus', () => {
    spec
      .given([])
      .when(credit(2_000))
      .then((events) => expect(events.some((e) => e.type === 'ReferralBonusEarned')).toBe(false));
  });

  it('PayReferralBonus credits the referrer $5 from the referral account, once per referee', () => {
    const pay = (refereeId: string, key = `referral:${refereeId}`): LedgerCommand => ({
      type: 'PayReferralBonus',
      userId: U,
      refereeId,
      depositId: 'd-1',
      idempotencyKey: key,
      transactionId: fresh('tx'),
      now: T0,
    });
    const paid = spec
      .given([])
      .when(pay('friend-1'))
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual([
          'TransactionPosted',
          'ReferralBonusPaid',
          'BalancesChanged',
        ]);
        expect(postedIn(events)[0].entries).toEqual([
          { accountId: 'platform:referral', amountCents: -500 },
          { accountId: 'user:u-1:deposit', amountCents: 500 },
        ]);
        expect(events[2].data).toMatchObject({ depositCents: 500 });
      });
    spec.given(paid).when(pay('friend-1', 'a-different-key')).thenNothingHappens();
    spec
      .given(paid)
      .when(pay('friend-2'))
      .then((events) => expect(events).toHaveLength(3));
    spec.given([]).when(pay(U)).thenThrows(isDomainError('invalid'), LEDGER_MESSAGES.selfReferral);
  });
});

describe('invariants under a random sequence of commands', () => {
  // A small seeded generator: deterministic, so a failure reproduces.
  function prng(seed: number) {
    let s = seed >>> 0;
    return () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }

  it.each([1, 2, 3, 42, 2025])(
    'every posting balances, no user account goes negative, balances equal their entries (seed %d)',
    (seed) => {
      const rnd = prng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
      let state = initialState();
      const sums = new Map<string, number>();
      const holdIds: string[] = [];
      const all: LedgerEvent[] = [];
      let applied = 0;
      for (let i = 0; i < 300; i++) {
        const amount = 1 + Math.floor(rnd() * 20_000);
        const id = `${seed}-${i}`;
        const candidates: LedgerCommand[] = [
          credit(amount, `d-${id}`),
          hold(`h-${id}`, pick(['investment', 'withdrawal'] as const), amount),
          adjust({
            account: pick(['deposit', 'invested', 'profit'] as const),
            operation: pick(['add', 'deduct'] as const),
            amountCents: amount,
          }),
          settle(`i-${id}`, amount, amount + Math.floor(rnd() * 3_000)),
        ];
        if (holdIds.length) {
          candidates.push(capture(pick(holdIds)), release(pick(holdIds)));
        }
        const command = pick(candidates);
        let events: LedgerEvent[];
        try {
          events = decide(command, state);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError); // refusals only, never a crash
          continue;
        }
        for (const e of events) {
          if (e.type === 'TransactionPosted') {
            expect(transactionProblem(e.data.entries)).toBeNull();
            for (const entry of e.data.entries)
              sums.set(entry.accountId, (sums.get(entry.accountId) ?? 0) + entry.amountCents);
          }
          if (e.type === 'FundsHeld') holdIds.push(e.data.holdId);
          state = evolve(state, e);
          all.push(e);
          applied++;
        }
        for (const [kind, balance] of Object.entries(state.balances)) {
          expect(balance).toBeGreaterThanOrEqual(0);
          expect(balance).toBe(sums.get(userAccount(U, kind as never)) ?? 0);
        }
      }
      expect(applied).toBeGreaterThan(100);
      const total = [...sums.values()].reduce((a, b) => a + b, 0);
      expect(total).toBe(0);
      expect(foldLedger(all)).toEqual(state);
    },
  );
});

describe('evolve and foldLedger', () => {
  it('evolve never changes the state it is given', () => {
    const before = stateOf(history(credit(10_000), hold('inv-1', 'investment', 4_000)));
    const snapshot = structuredClone(before);
    const events = decide(capture('inv-1'), before);
    events.reduce(evolve, before);
    expect(before).toEqual(snapshot);
  });

  it('foldLedger continues from a state without changing it', () => {
    const first = history(credit(10_000, 'd-a'));
    const from = stateOf(first);
    const snapshot = structuredClone(from);
    const more = decide(hold('inv-9', 'investment', 2_500), from);
    expect(foldLedger(more, from)).toEqual(more.reduce(evolve, from));
    expect(foldLedger(more, from).balances).toMatchObject({ deposit: 7_500, investment_hold: 2_500 });
    expect(from).toEqual(snapshot);
  });

  it('evolveUnlinked moves everything but the chain head; the decision is linked once, after', () => {
    const from = stateOf(history(credit(10_000, 'd-u')));
    const [posted] = decide(credit(2_000, 'd-v'), from);
    const unlinked = evolveUnlinked(from, posted!);
    expect(unlinked.chain).toEqual(from.chain);
    const [linked] = withChainLinks([posted!], from.chain);
    expect({ ...unlinked, chain: evolve(from, linked!).chain }).toEqual(evolve(from, linked!));
    expect(evolve(from, linked!).chain.seq).toBe(from.chain.seq + 1);
  });
});
