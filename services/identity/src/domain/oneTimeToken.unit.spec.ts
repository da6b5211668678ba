import { describe, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import {
  INVALID_TOKEN_MESSAGE,
  tokenDecider,
  TOKEN_TTL_MS,
  type TokenEvent,
  type TokenPurpose,
} from './oneTimeToken.js';

const spec = DeciderSpecification.for(tokenDecider);
const t0 = new Date('2026-01-01T10:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const issued = (purpose: TokenPurpose): TokenEvent => ({
  type: 'TokenIssued',
  data: {
    purpose,
    userId: 'u1',
    issuedAt: t0.toISOString(),
    expiresAt: later(TOKEN_TTL_MS[purpose]).toISOString(),
  },
});
const refused = (purpose: TokenPurpose) => domainError('invalid', INVALID_TOKEN_MESSAGE[purpose]);

describe('one-time token decider', () => {
  it('verification links last 24 hours, reset links 1 hour', () => {
    spec
      .given([])
      .when({ type: 'IssueToken', purpose: 'verify', userId: 'u1', now: t0 })
      .then([issued('verify')]);
    spec
      .given([])
      .when({ type: 'IssueToken', purpose: 'reset', userId: 'u1', now: t0 })
      .then([issued('reset')]);
  });

  it('a token is consumed once, before expiry', () => {
    spec
      .given([issued('reset')])
      .when({ type: 'ConsumeToken', purpose: 'reset', now: later(TOKEN_TTL_MS.reset - 1000) })
      .then([{ type: 'TokenConsumed', data: { at: later(TOKEN_TTL_MS.reset - 1000).toISOString() } }]);
  });

  it('refuses reuse', () => {
    spec
      .given([issued('verify'), { type: 'TokenConsumed', data: { at: t0.toISOString() } }])
      .when({ type: 'ConsumeToken', purpose: 'verify', now: t0 })
      .thenThrows(refused('verify'));
  });

  it('refuses an expired token', () => {
    spec
      .given([issued('reset')])
      .when({ type: 'ConsumeToken', purpose: 'reset', now: later(TOKEN_TTL_MS.reset) })
      .thenThrows(refused('reset'));
    spec
      .given([issued('verify')])
      .when({ type: 'ConsumeToken', purpose: 'verify', now: later(TOKEN_TTL_MS.verify) })
      .thenThrows(refused('verify'));
  });

  it('refuses a token of another purpose or an unknown one', () => {
    spec
      .given([issued('verify')])
      .when({ type: 'ConsumeToken', purpose: 'reset', now: t0 })
      .thenThrows(refused('reset'));
    spec.given([]).when({ type: 'ConsumeToken', purpose: 'verify', now: t0 }).thenThrows(refused('verify'));
  });
});
