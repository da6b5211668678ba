import { describe, expect, it } from 'vitest';
import { DomainError, precondition } from '../eventSourcing/errors.js';
import type { Decider } from '../eventSourcing/types.js';
import { DeciderSpecification } from './deciderSpec.js';
import { waitFor } from './waitFor.js';

type Event = { type: 'Deposited'; data: { cents: number } } | { type: 'Withdrawn'; data: { cents: number } };
type Command = { type: 'Withdraw'; cents: number };
const account: Decider<Command, Event, { balance: number }> = {
  initialState: () => ({ balance: 0 }),
  evolve: (s, e) => ({ balance: s.balance + (e.type === 'Deposited' ? e.data.cents : -e.data.cents) }),
  decide: (c, s) => {
    if (c.cents > s.balance) throw precondition('Insufficient balance', 'insufficient_funds');
    return [{ type: 'Withdrawn', data: { cents: c.cents } }];
  },
};
const spec = DeciderSpecification.for(account);

describe('DeciderSpecification', () => {
  it('passes on the expected events and fails with a diff otherwise', () => {
    spec
      .given([{ type: 'Deposited', data: { cents: 100 } }])
      .when({ type: 'Withdraw', cents: 60 })
      .then([{ type: 'Withdrawn', data: { cents: 60 } }]);
    expect(() =>
      spec
        .given([{ type: 'Deposited', data: { cents: 100 } }])
        .when({ type: 'Withdraw', cents: 60 })
        .then([{ type: 'Withdrawn', data: { cents: 61 } }]),
    ).toThrow(/deepStrictEqual|Expected values to be strictly deep-equal/);
  });

  it('thenThrows matches a class, a predicate and a message', () => {
    spec.given([]).when({ type: 'Withdraw', cents: 1 }).thenThrows(DomainError, 'Insufficient balance');
    spec
      .given([])
      .when({ type: 'Withdraw', cents: 1 })
      .thenThrows((e) => (e as DomainError).code === 'insufficient_funds', /Insufficient/);
    expect(() => spec.given([]).when({ type: 'Withdraw', cents: 1 }).thenThrows(TypeError)).toThrow(
      /unexpected error/,
    );
    expect(() =>
      spec
        .given([{ type: 'Deposited', data: { cents: 5 } }])
        .when({ type: 'Withdraw', cents: 1 })
        .thenThrows(),
    ).toThrow(/expected decide\(\) to throw/);
  });
});

describe('waitFor', () => {
  it('resolves with the first truthy value', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : 0))).toBe(3);
  });
  it('times out with the message and the last error', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('not yet');
        },
        { timeoutMs: 30, message: 'the thing' },
      ),
    ).rejects.toThrow(/timed out after 30 ms: the thing \(last error: not yet\)/);
  });
});
