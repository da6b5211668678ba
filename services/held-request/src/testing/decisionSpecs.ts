/**
 * The request and decision rules every held-request kind's decider meets (investment, withdrawal), as its
 * unit specs check them: a request needs a verified email and an amount, a retry is answered with nothing
 * new, the hold's outcome is recorded once, a decision waits for the hold, only admins decide, and a
 * request is decided once. Each kind's spec gives its story's events and its commands; its own rules
 * (plans and terms, maturity, the wallet) stay in its spec.
 */
import { expect, it } from 'vitest';
import type { DomainError } from '@meridian/platform/eventSourcing/errors';
import type { Decider, DomainEvent } from '@meridian/platform/eventSourcing/types';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import type { HoldCommand, LifecycleMessages } from '../domain/lifecycle.js';
import { isDomainError } from './lifecycleSpecs.js';

/** One request of a kind up to its decision, and the commands making and deciding it. */
export interface DecisionStory<C, E extends DomainEvent, S> {
  decider: Decider<C, E, S>;
  /** The request's events: submitted, its hold placed, approved, rejected. */
  story: { requested: E; held: E; approved: E; rejected: E };
  /** The request `requested` records, with `over` changed. */
  request(over?: { isVerified?: boolean; amountCents?: number }): C;
  /**
   * The approval and the rejection by `adminId` (default the admin of `approved`) acting as `actorRole`
   * (default 'admin'): decisionCommands'.
   */
  decisions: {
    approve(adminId?: string, actorRole?: string): C;
    reject(adminId?: string, actorRole?: string): C;
  };
  messages: LifecycleMessages & { verifyEmail: string };
}

/**
 * A kind's decisions at `now`, under the command types it names (`ApproveWithdrawal`, `RejectWithdrawal`):
 * by `adminId` (default 'admin-1') acting as `actorRole` (default 'admin').
 */
export function decisionCommands<A extends string, R extends string>(
  approveType: A,
  rejectType: R,
  now: Date,
) {
  const by =
    <T extends string>(type: T) =>
    (adminId = 'admin-1', actorRole = 'admin') => ({ type, adminId, actorRole, now });
  return { approve: by(approveType), reject: by(rejectType) };
}

/**
 * The shared rules as tests, and `spec`: the kind's decider specification (its commands and the lifecycle's
 * RecordHold* commands).
 */
export function decisionSpecs<C, E extends DomainEvent, S>(d: DecisionStory<C, E, S>) {
  const spec = DeciderSpecification.for<C | HoldCommand, E, S>(d.decider);
  const { requested, held, approved, rejected } = d.story;
  const { approve, reject } = d.decisions;
  /** The ledger's confirmation that the funds are held, recorded at `now`. */
  const recordHoldPlaced = (now: Date): HoldCommand => ({ type: 'RecordHoldPlaced', now });
  return {
    spec,
    /** Tests: the request needs a verified email; each of `nonAmounts` is refused as an invalid amount. */
    requestRules(nonAmounts: readonly number[]): void {
      it('needs a verified email', () => {
        spec
          .given([])
          .when(d.request({ isVerified: false }))
          .thenThrows(isDomainError('precondition'), d.messages.verifyEmail);
      });
      it.each(nonAmounts)('refuses a non-amount: %s', (amountCents) => {
        spec
          .given([])
          .when(d.request({ amountCents }))
          .thenThrows(isDomainError('invalid'), d.messages.invalidAmount);
      });
    },

    /** A bound of the request: `past` (just past it) refused as `kind` with `message`, `on` (exactly on it) recorded. */
    expectBound(past: C, kind: DomainError['kind'], message: string, on: C): void {
      spec.given([]).when(past).thenThrows(isDomainError(kind), message);
      spec
        .given([])
        .when(on)
        .then((events) => expect(events).toHaveLength(1));
    },

    /** The same request again is answered with nothing new; one for `otherAmountCents` is a conflict. */
    expectRetryAnswered(otherAmountCents: number): void {
      spec.given([requested]).when(d.request()).thenNothingHappens();
      spec
        .given([requested])
        .when(d.request({ amountCents: otherAmountCents }))
        .thenThrows(isDomainError('conflict'), d.messages.alreadyExists);
    },

    /** The held funds are recorded as `held`; recorded again (at `later`), nothing happens. */
    expectHoldPlacedOnce(now: Date, later: Date): void {
      spec.given([requested]).when(recordHoldPlaced(now)).then([held]);
      spec.given([requested, held]).when(recordHoldPlaced(later)).thenNothingHappens();
    },

    /** Neither decision is taken before the funds are held. */
    expectDecisionAwaitsHold(): void {
      for (const decide of [approve(), reject()]) {
        spec
          .given([requested])
          .when(decide)
          .thenThrows(isDomainError('precondition'), d.messages.holdNotPlaced);
      }
    },

    /** A subscriber (the owner here) or an author deciding is forbidden; an unknown request is not found. */
    expectAdminsOnly(): void {
      for (const [adminId, role] of [
        ['u-1', 'subscriber'],
        ['u-2', 'author'],
      ]) {
        for (const decide of [approve(adminId, role), reject(adminId, role)]) {
          spec
            .given([requested, held])
            .when(decide)
            .thenThrows(isDomainError('forbidden'), d.messages.notAuthorized);
        }
      }
      for (const decide of [approve(), reject()]) {
        spec.given([]).when(decide).thenThrows(isDomainError('not_found'), d.messages.notFound);
      }
    },

    /**
     * Decided once: after the approval, and after the rejection, either decision (by the same admin or
     * another) is a conflict naming the first.
     */
    expectDecidedOnce(): void {
      const firsts = [
        { decided: approved, message: d.messages.alreadyApproved },
        { decided: rejected, message: d.messages.alreadyRejected },
      ];
      for (const { decided, message } of firsts) {
        for (const decide of [approve(), reject(), approve('admin-2'), reject('admin-2')]) {
          spec.given([requested, held, decided]).when(decide).thenThrows(isDomainError('conflict'), message);
        }
      }
    },
  };
}
