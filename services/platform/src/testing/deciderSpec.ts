import assert from 'node:assert/strict';
import { DomainError } from '../eventSourcing/errors.js';
import type { Decider, DomainEvent } from '../eventSourcing/types.js';

type ErrorMatcher = (new (...args: any[]) => Error) | ((error: unknown) => boolean);

/**
 * given / when / then for deciders (emmett style):
 *
 *   const spec = DeciderSpecification.for(accountDecider);
 *   spec.given([deposited(100)]).when(withdraw(150)).thenThrows(InsufficientFunds);
 *   spec.given([]).when(open()).then([opened()]);
 *
 * `then` asserts deep equality of the produced events (node:assert diff on failure).
 * Note: the object returned by when() has a `then` method, so never `await` it or return it from an
 * async function.
 */
export const DeciderSpecification = {
  for<Command, Event extends DomainEvent, State>(decider: Decider<Command, Event, State>) {
    return {
      given(events: Event[] = []) {
        return {
          when(command: Command) {
            const run = () => {
              const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
              return { state, produced: decider.decide(command, state) };
            };
            return {
              then(expected: Event[] | ((produced: Event[], state: State) => void)) {
                const { produced, state } = run();
                if (typeof expected === 'function') expected(produced, state);
                else assert.deepStrictEqual(produced, expected);
                return produced;
              },
              thenNothingHappens() {
                assert.deepStrictEqual(run().produced, []);
              },
              thenThrows(matcher?: ErrorMatcher, message?: string | RegExp) {
                let thrown: unknown;
                try {
                  run();
                } catch (err) {
                  thrown = err;
                }
                if (thrown === undefined) assert.fail('expected decide() to throw, but it returned events');
                if (matcher) {
                  const ok = isClass(matcher) ? thrown instanceof matcher : matcher(thrown);
                  if (!ok) {
                    assert.fail(
                      `decide() threw an unexpected error: ${String((thrown as Error)?.name)}: ${String((thrown as Error)?.message)}`,
                    );
                  }
                }
                if (message !== undefined) {
                  const text = String((thrown as Error)?.message);
                  if (typeof message === 'string') assert.equal(text, message);
                  else assert.match(text, message);
                }
                return thrown;
              },
            };
          },
        };
      },
    };
  },
};

/** A thenThrows matcher: a DomainError of `kind`, and with exactly `message` when one is given. */
export const domainError =
  (kind: DomainError['kind'], message?: string) =>
  (e: unknown): boolean =>
    e instanceof DomainError && e.kind === kind && (message === undefined || e.message === message);

function isClass(m: ErrorMatcher): m is new (...args: any[]) => Error {
  return (typeof m === 'function' && m.prototype instanceof Error) || m === Error;
}
