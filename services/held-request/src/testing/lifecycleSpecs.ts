/**
 * Spec helpers of a held-request kind's decider (investment, withdrawal): the lifecycle's events built
 * from a request's facts, and the expectations every kind's decider meets — the ledger call each state
 * owes, each ledger confirmation recorded once and only where it is owed, and a stream opened under its
 * former event name read as the new one (ledgerCallSpecs: the three as tests). Each kind's specs add
 * their own steps (investment's maturity and settlement).
 */
import { expect, it } from 'vitest';
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import type { Decider, DomainEvent } from '@meridian/platform/eventSourcing/types';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import type { HoldCommand, HoldFacts, LifecycleMessages } from '../domain/lifecycle.js';

export const isDomainError = (kind: DomainError['kind']) => (e: unknown) =>
  e instanceof DomainError && e.kind === kind;

/** The lifecycle's events of one request (`base`: its id, user and amount) at `at`. */
export function lifecycleEvents<B extends HoldFacts<never>, R extends string>(
  base: B,
  at: string,
  rejectedType: R,
) {
  return {
    held: { type: 'HoldPlaced' as const, data: { ...base, placedAt: at } },
    refused: { type: 'HoldRefused' as const, data: { ...base, reason: 'x', refusedAt: at } },
    rejected: { type: rejectedType, data: { ...base, rejectedBy: 'a', rejectedAt: at } },
    captured: { type: 'HoldCaptured' as const, data: { ...base, capturedAt: at } },
    released: { type: 'HoldReleased' as const, data: { ...base, releasedAt: at } },
  };
}

/** A kind's request opened, held, approved, rejected, refused, captured and released. */
export interface LifecycleStory<E> {
  requested: E;
  held: E;
  approved: E;
  rejected: E;
  refused: E;
  captured: E;
  released: E;
}

/** hold until recorded, capture after the approval, release after a rejection, nothing after a refusal. */
export function expectOwedCalls<E>(owed: (events: E[]) => string, e: LifecycleStory<E>): void {
  expect(owed([])).toBe('none');
  expect(owed([e.requested])).toBe('hold');
  expect(owed([e.requested, e.held])).toBe('none');
  expect(owed([e.requested, e.held, e.approved])).toBe('capture');
  expect(owed([e.requested, e.held, e.approved, e.captured])).toBe('none');
  expect(owed([e.requested, e.held, e.rejected])).toBe('release');
  expect(owed([e.requested, e.held, e.rejected, e.released])).toBe('none');
  expect(owed([e.requested, e.refused])).toBe('none');
}

/**
 * Each of the ledger's confirmations of a decision (`commands`: the kind's RecordHoldCaptured and
 * RecordHoldReleased) is recorded once, and only where it is owed.
 */
export function expectConfirmationsOnce<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  e: LifecycleStory<E>,
  messages: LifecycleMessages,
  commands: { capture: C; release: C },
): void {
  const spec = DeciderSpecification.for(decider);
  const { capture, release } = commands;
  spec.given([e.requested, e.held, e.approved]).when(capture).then([e.captured]);
  spec.given([e.requested, e.held, e.approved, e.captured]).when(capture).thenNothingHappens();
  spec.given([e.requested, e.held, e.rejected]).when(release).then([e.released]);
  spec.given([e.requested, e.held, e.rejected, e.released]).when(release).thenNothingHappens();
  spec
    .given([e.requested, e.held])
    .when(capture)
    .thenThrows(isDomainError('precondition'), messages.notApproved);
  spec
    .given([e.requested, e.held, e.approved])
    .when(release)
    .thenThrows(isDomainError('precondition'), messages.notRejected);
}

/**
 * Streams written before a rename still read: a stored event under its former type name folds into the
 * same state as under its current one; the request it opens owes its hold, recorded as `held` by
 * `recordHoldPlaced` (the kind's RecordHoldPlaced). The stored event's former name is one the kind's
 * event type no longer has: it reaches the decider as a stored event does, untyped.
 */
export function expectFormerNameRead<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  current: E,
  formerType: string,
  opened: { then: E[]; held: E; recordHoldPlaced: C; owed(events: E[]): string },
): void {
  const fold = (events: E[]) => events.reduce((s, ev) => decider.evolve(s, ev), decider.initialState());
  const former = { ...current, type: formerType } as unknown as E;
  expect(fold([former, ...opened.then])).toEqual(fold([current, ...opened.then]));
  expect(fold([former])).not.toEqual(decider.initialState());
  DeciderSpecification.for(decider).given([former]).when(opened.recordHoldPlaced).then([opened.held]);
  expect(opened.owed([former])).toBe('hold');
}

/**
 * The ledger calls a kind's request owes, as tests (in the caller's describe): owed from the events alone
 * (expectOwedCalls), each confirmation recorded once at `now` (expectConfirmationsOnce), and a stream whose
 * `requested` is stored under `former.type` read as the new name (expectFormerNameRead, `then` folded after
 * it). Answers `owed` (the ledger call after a list of events), for the kind's own steps.
 */
export function ledgerCallSpecs<C, E extends DomainEvent, S>(k: {
  /** The kind's noun ('withdrawal'). */
  noun: string;
  decider: Decider<C | HoldCommand, E, S>;
  /** The ledger call a state owes (the kind's ledgerCallOwed). */
  ledgerCallOwed(state: S): string;
  messages: LifecycleMessages;
  /** One request's events (lifecycleEvents with the kind's requested and approved). */
  story: LifecycleStory<E>;
  /** When the ledger's confirmations are recorded. */
  now: Date;
  /** The former type name of `story.requested`, and the events folded after it. */
  former: { type: string; then: E[] };
}) {
  const { decider, story, now } = k;
  const owed = (list: E[]) =>
    k.ledgerCallOwed(list.reduce((s, e) => decider.evolve(s, e), decider.initialState()));
  it('hold until recorded, capture after the approval, release after a rejection', () => {
    expectOwedCalls(owed, story);
  });
  it('records each confirmation once, and only where it is owed', () => {
    const capture: HoldCommand = { type: 'RecordHoldCaptured', now };
    const release: HoldCommand = { type: 'RecordHoldReleased', now };
    expectConfirmationsOnce(decider, story, k.messages, { capture, release });
  });
  it(`${k.former.type} (now ${story.requested.type}) still opens the ${k.noun}`, () => {
    const recordHoldPlaced: HoldCommand = { type: 'RecordHoldPlaced', now };
    expectFormerNameRead(decider, story.requested, k.former.type, {
      then: k.former.then,
      held: story.held,
      recordHoldPlaced,
      owed,
    });
  });
  return { owed };
}
