import { describe, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import { INVALID_LOGIN_CODE, LOGIN_CODE_TTL_MS, loginCodeDecider, type LoginCodeEvent } from './loginCode.js';

const spec = DeciderSpecification.for(loginCodeDecider);
const t0 = new Date('2026-01-01T10:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const issued: LoginCodeEvent = {
  type: 'LoginCodeIssued',
  data: { codeHash: 'h-good', issuedAt: t0.toISOString(), expiresAt: later(LOGIN_CODE_TTL_MS).toISOString() },
};
const failed: LoginCodeEvent = { type: 'LoginCodeAttemptFailed', data: { at: t0.toISOString() } };
const refused = domainError('invalid', INVALID_LOGIN_CODE);

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

  it('a freshly mailed code works whatever the wrong guesses at earlier codes: each code counts its own', () => {
    const codeNo = (n: number): LoginCodeEvent => ({
      ...issued,
      data: { ...issued.data, codeHash: `h-${n}` },
    });
    // four codes, each guessed wrong five times (and so dead), then the owner's fresh one
    const history = [1, 2, 3, 4].flatMap((n) => [codeNo(n), failed, failed, failed, failed, failed]);
    spec
      .given([...history, codeNo(5)])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-5', now: t0 })
      .then([{ type: 'LoginCodeConsumed', data: { at: t0.toISOString() } }]);
    // and its own five attempts: four wrong guesses still leave the right code working
    spec
      .given([...history, codeNo(5), failed, failed, failed, failed])
      .when({ type: 'AttemptLoginCode', codeHash: 'h-5', now: t0 })
      .then([{ type: 'LoginCodeConsumed', data: { at: t0.toISOString() } }]);
  });
});
