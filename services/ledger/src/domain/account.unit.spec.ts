import type { DomainError } from '@meridian/platform/eventSourcing/errors';
import { describe, expect, it } from 'vitest';
import {
  type LedgerCommand,
  type LedgerEvent,
  LEDGER_MESSAGES,
  earlierResult,
  fingerprintOf,
  holdOf,
  parseAccountId,
  platformAccount,
  toAccountStreamId,
  transactionProblem,
  userAccount,
} from './account.js';
import { U, T0, credit, hold, capture, release, adjust } from '../testing/accountFixtures.js';
import { history, stateOf, isDomainError, postedIn, spec } from '../testing/accountFixtures.js';

describe('accounts and transactions', () => {
  it('names accounts and streams, and parses account ids back (user ids may contain colons)', () => {
    expect(userAccount('u:7', 'withdrawal_hold')).toBe('user:u:7:withdrawal_hold');
    expect(parseAccountId('user:u:7:withdrawal_hold')).toEqual({
      owner: 'user',
      userId: 'u:7',
      kind: 'withdrawal_hold',
    });
    expect(parseAccountId(platformAccount('yield'))).toEqual({ owner: 'platform', kind: 'yield' });
    expect(parseAccountId('platform:bank')).toBeNull();
    expect(parseAccountId('user:u-1:savings')).toBeNull();
    expect(parseAccountId('user::deposit')).toBeNull();
    expect(toAccountStreamId('u-1')).toBe('ledger-u-1');
  });

  it('accepts only two or more distinct, non-zero entries summing to zero', () => {
    const a = userAccount(U, 'deposit');
    const cash = platformAccount('cash');
    expect(
      transactionProblem([
        { accountId: a, amountCents: 5 },
        { accountId: cash, amountCents: -5 },
      ]),
    ).toBeNull();
    expect(transactionProblem([{ accountId: a, amountCents: 0 }])).toMatch(/at least two/);
    expect(
      transactionProblem([
        { accountId: a, amountCents: 5 },
        { accountId: cash, amountCents: -4 },
      ]),
    ).toMatch(/sum to zero/);
    expect(
      transactionProblem([
        { accountId: a, amountCents: 0 },
        { accountId: cash, amountCents: 0 },
      ]),
    ).toMatch(/non-zero/);
    expect(
      transactionProblem([
        { accountId: a, amountCents: 0.5 },
        { accountId: cash, amountCents: -0.5 },
      ]),
    ).toMatch(/whole number/);
    expect(
      transactionProblem([
        { accountId: a, amountCents: 5 },
        { accountId: a, amountCents: -5 },
      ]),
    ).toMatch(/twice/);
    expect(
      transactionProblem([
        { accountId: a, amountCents: 5 },
        { accountId: 'elsewhere', amountCents: -5 },
      ]),
    ).toMatch(/Unknown account/);
    // Sums are exact even past 2^53.
    expect(
      transactionProblem([
        { accountId: a, amountCents: Number.MAX_SAFE_INTEGER },
        { accountId: userAccount(U, 'profit'), amountCents: Number.MAX_SAFE_INTEGER },
        { accountId: cash, amountCents: -Number.MAX_SAFE_INTEGER },
        { accountId: platformAccount('yield'), amountCents: -Number.MAX_SAFE_INTEGER },
      ]),
    ).toBeNull();
  });
});

describe('CreditDeposit', () => {
  it('moves the amount from cash to the deposit account and reports the new balances', () => {
    spec
      .given([])
      .when({
        type: 'CreditDeposit',
        userId: U,
        depositId: 'd-1',
        amountCents: 12_345,
        idempotencyKey: 'deposit:d-1',
        transactionId: 'tx-1',
        now: T0,
      })
      .then([
        {
          type: 'TransactionPosted',
          data: {
            userId: U,
            transactionId: 'tx-1',
            idempotencyKey: 'deposit:d-1',
            fingerprint: '{"amountCents":12345,"depositId":"d-1","type":"CreditDeposit","userId":"u-1"}',
            reason: 'deposit_confirmed',
            memo: '',
            references: { depositId: 'd-1' },
            entries: [
              { accountId: 'platform:cash', amountCents: -12_345 },
              { accountId: 'user:u-1:deposit', amountCents: 12_345 },
            ],
            postedAt: '2025-01-01T10:00:00.000Z',
          },
        },
        {
          type: 'BalancesChanged',
          data: {
            userId: U,
            transactionId: 'tx-1',
            depositCents: 12_345,
            investedCents: 0,
            profitCents: 0,
            withdrawalHoldCents: 0,
            investmentHoldCents: 0,
          },
        },
      ]);
  });

  it('credits the same deposit once, whatever key a redelivery carries', () => {
    const given = history(credit(5000, 'd-1'));
    spec
      .given(given)
      .when({ ...credit(5000, 'd-1'), idempotencyKey: 'another-event-id' })
      .thenNothingHappens();
  });

  it.each([0, -100, 10.5, NaN])('refuses an amount of %s cents', (amountCents) => {
    spec
      .given([])
      .when(credit(amountCents))
      .thenThrows(isDomainError('invalid'), LEDGER_MESSAGES.amountNotPositive);
  });
});

describe('idempotency keys', () => {
  it('the same key with the same payload decides nothing new, even with a fresh transaction id and clock', () => {
    const first = credit(5000, 'd-1');
    const given = history(first);
    spec
      .given(given)
      .when({ ...first, transactionId: 'tx-retry', now: new Date('2025-02-01T00:00:00Z') })
      .thenNothingHappens();
    const earlier = earlierResult(stateOf(given), 'deposit:d-1');
    expect(earlier?.transactionId).toBe(
      (given[0] as Extract<LedgerEvent, { type: 'TransactionPosted' }>).data.transactionId,
    );
  });

  it('the same key with another payload is refused and moves nothing', () => {
    const given = history(credit(5000, 'd-1'));
    spec
      .given(given)
      .when({ ...credit(9000, 'd-1') })
      .thenThrows(isDomainError('conflict'), 'Idempotency key reused with a different request');
  });

  it('binds a key across command types too', () => {
    const given = history(credit(5000, 'd-1'));
    spec
      .given(given)
      .when({ ...hold('inv-1', 'investment', 100), idempotencyKey: 'deposit:d-1' })
      .thenThrows(isDomainError('conflict'), LEDGER_MESSAGES.idempotencyConflict);
  });

  it('a repeated admin adjustment is applied once', () => {
    const first = adjust({ idempotencyKey: 'adj-1', amountCents: 700 });
    const given = history(first);
    spec
      .given(given)
      .when({ ...first, transactionId: 'tx-again' })
      .thenNothingHappens();
    spec
      .given(given)
      .when({ ...first, amountCents: 701 })
      .thenThrows(isDomainError('conflict'), LEDGER_MESSAGES.idempotencyConflict);
  });

  it('fingerprints ignore key order, the key, the transaction id and the clock', () => {
    const a = credit(100, 'd-9');
    const b = {
      now: new Date(0),
      transactionId: 'other',
      idempotencyKey: 'other',
      amountCents: 100,
      depositId: 'd-9',
      userId: U,
      type: 'CreditDeposit',
    } as LedgerCommand;
    expect(fingerprintOf(a)).toBe(fingerprintOf(b));
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(credit(101, 'd-9')));
  });

  it("refuses a command addressed to another user's ledger", () => {
    spec
      .given(history(credit(5000)))
      .when({ ...credit(100), userId: 'u-2' })
      .thenThrows(isDomainError('invalid'), LEDGER_MESSAGES.wrongLedger);
  });
});

describe('holds', () => {
  it('PlaceHold for an investment moves the amount from deposit to investment_hold', () => {
    const given = history(credit(10_000));
    spec
      .given(given)
      .when({
        type: 'PlaceHold',
        userId: U,
        holdId: 'inv-1',
        purpose: 'investment',
        amountCents: 10_000,
        idempotencyKey: 'inv-1',
        transactionId: 'tx-h',
        now: T0,
      })
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['TransactionPosted', 'FundsHeld', 'BalancesChanged']);
        expect(postedIn(events)[0]).toMatchObject({
          reason: 'hold_placed',
          references: { holdId: 'inv-1', investmentId: 'inv-1' },
          entries: [
            { accountId: 'user:u-1:deposit', amountCents: -10_000 },
            { accountId: 'user:u-1:investment_hold', amountCents: 10_000 },
          ],
        });
        expect(events[1]).toEqual({
          type: 'FundsHeld',
          data: {
            userId: U,
            holdId: 'inv-1',
            purpose: 'investment',
            amountCents: 10_000,
            transactionId: 'tx-h',
            heldAt: T0.toISOString(),
          },
        });
        expect(events[2].data).toMatchObject({ depositCents: 0, investmentHoldCents: 10_000 });
      });
  });

  it("PlaceHold is refused with 'Insufficient balance' when the balance is short by a cent", () => {
    spec
      .given(history(credit(9_999)))
      .when(hold('inv-1', 'investment', 10_000))
      .thenThrows(
        (e) => isDomainError('precondition')(e) && (e as DomainError).code === 'INSUFFICIENT_FUNDS',
        'Insufficient balance',
      );
  });

  it('two requests can never spend the same dollar: the second hold is refused', () => {
    const given = history(credit(10_000), hold('inv-1', 'investment', 6_000));
    spec
      .given(given)
      .when(hold('inv-2', 'investment', 6_000))
      .thenThrows(isDomainError('precondition'), 'Insufficient balance');
    spec
      .given(given)
      .when(hold('inv-2', 'investment', 4_000))
      .then((events) => expect(events).toHaveLength(3));
  });

  it('a withdrawal hold draws on profit, not on the deposit balance', () => {
    const given = history(credit(100_000));
    spec
      .given(given)
      .when(hold('w-1', 'withdrawal', 5_000))
      .thenThrows(isDomainError('precondition'), 'Insufficient balance');
    const withProfit = history(adjust({ account: 'profit', amountCents: 5_000 }));
    spec
      .given(withProfit)
      .when(hold('w-1', 'withdrawal', 5_000))
      .then((events) => {
        expect(postedIn(events)[0].entries).toEqual([
          { accountId: 'user:u-1:profit', amountCents: -5_000 },
          { accountId: 'user:u-1:withdrawal_hold', amountCents: 5_000 },
        ]);
        expect(postedIn(events)[0].references).toEqual({ holdId: 'w-1', withdrawalId: 'w-1' });
      });
  });

  it('one hold per request: the same hold id under another key is refused', () => {
    const given = history(credit(10_000), hold('inv-1', 'investment', 1_000));
    spec
      .given(given)
      .when({ ...hold('inv-1', 'investment', 1_000), idempotencyKey: 'other-key' })
      .thenThrows(isDomainError('conflict'), LEDGER_MESSAGES.holdAlreadyPlaced);
  });

  /** $100 deposited, $40 of it held for investment inv-1. */
  const heldForInv1 = history(credit(10_000), hold('inv-1', 'investment', 4_000));

  /** A hold is settled once: after `settled`, the same settlement again changes nothing, the other is refused. */
  function expectSettledOnce(
    settled: LedgerEvent[],
    again: LedgerCommand,
    other: LedgerCommand,
    refusal: string,
  ): void {
    spec.given(settled).when(again).thenNothingHappens();
    spec.given(settled).when(other).thenThrows(isDomainError('conflict'), refusal);
  }

  it('CaptureHold of an investment hold moves it into invested, once', () => {
    const captured = spec
      .given(heldForInv1)
      .when(capture('inv-1'))
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['TransactionPosted', 'FundsCaptured', 'BalancesChanged']);
        expect(postedIn(events)[0].entries).toEqual([
          { accountId: 'user:u-1:investment_hold', amountCents: -4_000 },
          { accountId: 'user:u-1:invested', amountCents: 4_000 },
        ]);
        expect(events[2].data).toMatchObject({
          depositCents: 6_000,
          investedCents: 4_000,
          investmentHoldCents: 0,
        });
      });
    const after = [...heldForInv1, ...captured];
    expectSettledOnce(
      after,
      capture('inv-1', 'a-redelivered-approval'),
      release('inv-1'),
      'This hold has already been captured',
    );
    expect(holdOf(stateOf(after), 'inv-1')?.status).toBe('captured');
  });

  it('CaptureHold of a withdrawal hold pays it out to cash', () => {
    const given = history(
      adjust({ account: 'profit', amountCents: 8_000 }),
      hold('w-1', 'withdrawal', 8_000),
    );
    spec
      .given(given)
      .when(capture('w-1'))
      .then((events) => {
        expect(postedIn(events)[0].entries).toEqual([
          { accountId: 'user:u-1:withdrawal_hold', amountCents: -8_000 },
          { accountId: 'platform:cash', amountCents: 8_000 },
        ]);
        expect(events[2].data).toMatchObject({ profitCents: 0, withdrawalHoldCents: 0 });
      });
  });

  it('ReleaseHold gives the funds back to their source, once', () => {
    const released = spec
      .given(heldForInv1)
      .when(release('inv-1'))
      .then((events) => {
        expect(events[1]).toMatchObject({
          type: 'FundsReleased',
          data: { holdId: 'inv-1', amountCents: 4_000 },
        });
        expect(postedIn(events)[0].reason).toBe('hold_released');
        expect(events[2].data).toMatchObject({ depositCents: 10_000, investmentHoldCents: 0 });
      });
    expectSettledOnce(
      [...heldForInv1, ...released],
      release('inv-1', 'other-key'),
      capture('inv-1'),
      'This hold has already been released',
    );
  });

  it('capturing or releasing an unknown hold is refused', () => {
    spec
      .given(history(credit(100)))
      .when(capture('nope'))
      .thenThrows(isDomainError('not_found'), LEDGER_MESSAGES.holdNotFound);
    spec.given([]).when(release('nope')).thenThrows(isDomainError('not_found'), LEDGER_MESSAGES.holdNotFound);
  });
});
