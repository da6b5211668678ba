import { describe, expect, it } from 'vitest';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import {
  INVALID_LOGIN_CODE,
  LOGIN_CODE_FIRST_LOCK_MS,
  LOGIN_CODE_TTL_MS,
  loginCodeDecider,
  loginCodeLockMs,
  type LoginCodeEvent,
} from './loginCode.js';

const spec = DeciderSpecification.for(loginCodeDecider);
const t0 = new Date('2026-01-01T10:00:00.000Z');
const MINUTE = 60_000;
const later = (ms: number) => new Date(t0.getTime() + ms);
const issued: LoginCodeEvent = {
  type: 'LoginCodeIssued',
  data: { codeHash: 'h-good', issuedAt: t0.toISOString(), expiresAt: later(LOGIN_CODE_TTL_MS).toISOString() },
};
const failed: LoginCodeEvent = { type: 'LoginCodeAttemptFailed', data: { at: t0.toISOString() } };
const refused = (e: unknown) =>
  e instanceof DomainError && e.kind === 'invalid' && e.message === INVALID_LOGIN_CODE;

describe('LoginCode decider', () => {
  it('issues a code valid for 15 minutes', () => {
    spec.given([]).when({ type: 'IssueLoginCode', codeHash: 'h-good', now: t0 }).then([issued]);
  });

  it('the right code within 15 minutes is consumed', () => {
    spec
      .given([issued])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: later(LOGIN_CODE_TTL_MS - 1) })
      .then([{ type: 'LoginCodeConsumed', data: { at: later(LOGIN_CODE_TTL_MS - 1).toISOString() } }]);
  });

  it('a wrong code is a recorded failed attempt', () => {
    spec.given([issued]).when({ type: 'AttemptLoginCode', codeHash: 'h-bad', now: t0 }).then([failed]);
  });

  it('the right code is refused after expiry', () => {
    spec
      .given([issued])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: later(LOGIN_CODE_TTL_MS) })
      .thenThrows(refused);
  });

  it('the right code is refused after 5 failed attempts', () => {
    spec
      .given([issued, failed, failed, failed, failed])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: t0 })
      .then((events) => {
        if (events[0].type !== 'LoginCodeConsumed')
          throw new Error('4 failures must still allow the right code');
      });
    spec
      .given([issued, failed, failed, failed, failed, failed])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: t0 })
      .thenThrows(refused);
  });

  it('a code is single use', () => {
    spec
      .given([issued, { type: 'LoginCodeConsumed', data: { at: t0.toISOString() } }])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: t0 })
      .thenThrows(refused);
  });

  it('no code issued: refused', () => {
    spec.given([]).when({ type: 'AttemptLoginCode', codeHash: 'h-good', now: t0 }).thenThrows(refused);
  });

  it("a new code replaces the old one and resets the code's attempts, not the account's count", () => {
    const newCode: LoginCodeEvent = { ...issued, data: { ...issued.data, codeHash: 'h-new' } };
    spec
      .given([issued, failed, failed, failed, failed, newCode])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-new', now: t0 })
      .then((events) => {
        if (events[0].type !== 'LoginCodeConsumed') throw new Error('expected the new code to work');
      });
    // the 5th failure of the account, on the new code: code login is locked for 15 minutes
    spec
      .given([issued, failed, failed, failed, failed, newCode, failed])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-new', now: later(LOGIN_CODE_FIRST_LOCK_MS - 1) })
      .thenThrows(refused);
    const afterLock = later(LOGIN_CODE_FIRST_LOCK_MS);
    const thirdCode: LoginCodeEvent = {
      type: 'LoginCodeIssued',
      data: {
        codeHash: 'h-third',
        issuedAt: afterLock.toISOString(),
        expiresAt: later(LOGIN_CODE_FIRST_LOCK_MS + LOGIN_CODE_TTL_MS).toISOString(),
      },
    };
    spec
      .given([issued, failed, failed, failed, failed, newCode, failed, thirdCode])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-third', now: afterLock })
      .then((events) => {
        if (events[0].type !== 'LoginCodeConsumed') throw new Error('expected the lock to be over');
      });
  });

  it('each failure from the 5th on locks for twice as long, at most a day; a success starts again', () => {
    expect([4, 5, 6, 7, 8, 12, 13, 50].map(loginCodeLockMs)).toEqual([
      0,
      15 * MINUTE,
      30 * MINUTE,
      60 * MINUTE,
      120 * MINUTE,
      24 * 60 * MINUTE,
      24 * 60 * MINUTE,
      24 * 60 * MINUTE,
    ]);
    const consumed: LoginCodeEvent = { type: 'LoginCodeConsumed', data: { at: t0.toISOString() } };
    const state = [issued, failed, failed, failed, failed, consumed, issued, failed].reduce(
      loginCodeDecider.evolve,
      loginCodeDecider.initialState(),
    );
    expect(state).toMatchObject({ accountFailures: 1, lockedUntil: null });
  });
});
