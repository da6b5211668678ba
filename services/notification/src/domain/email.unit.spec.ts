import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  isDue,
  markAttemptFailed,
  markDelivered,
  newEmail,
  type RetryPolicy,
} from './email.js';
import { emailForIdentityEvent, isIdentityEmailEvent } from './identityEmails.js';

const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 3_000 };
const t0 = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const given = () =>
  newEmail(
    {
      template: 'verifyEmail',
      to: ' ada@example.com ',
      data: { name: 'Ada' },
      sealed: { token: 'v1.sealed' },
    },
    { id: 'evt-1', correlationId: 'c-1' },
    t0,
  );

describe('email outbox life cycle', () => {
  it('a new email is pending, due at once, keyed by its cause, with its secret still sealed', () => {
    const email = given();
    expect(email).toMatchObject({
      id: 'evt-1',
      causeEventId: 'evt-1',
      status: 'pending',
      attempts: 0,
      to: 'ada@example.com',
      sealed: { token: 'v1.sealed' },
    });
    expect(JSON.stringify(email.data)).not.toContain('v1.sealed');
    expect(isDue(email, t0)).toBe(true);
  });

  it('backoff doubles per failed attempt and is capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy))).toEqual([
      1_000, 2_000, 3_000, 3_000, 3_000,
    ]);
  });

  it('a failed attempt schedules the next one later and emits nothing', () => {
    const { email, event } = markAttemptFailed(given(), '451 try later', t0, policy);
    expect(event).toBeNull();
    expect(email).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: '451 try later',
      nextAttemptAt: at(1_000).toISOString(),
    });
    expect(isDue(email, at(999))).toBe(false);
    expect(isDue(email, at(1_000))).toBe(true);
    const second = markAttemptFailed(email, 'again', at(1_000), policy);
    expect(second.email.nextAttemptAt).toBe(at(3_000).toISOString());
  });

  it('the last allowed attempt gives up with EmailFailed', () => {
    let email = given();
    for (let i = 0; i < 2; i++) email = markAttemptFailed(email, 'down', t0, policy).email;
    const last = markAttemptFailed(email, 'still down', t0, policy);
    expect(last.email).toMatchObject({ status: 'failed', attempts: 3 });
    expect(last.event).toEqual({
      type: 'EmailFailed',
      data: {
        to: 'ada@example.com',
        template: 'verifyEmail',
        causeEventId: 'evt-1',
        error: 'still down',
        attempts: 3,
      },
    });
    expect(isDue(last.email, at(10_000_000))).toBe(false);
  });

  it('a permanent failure gives up at once', () => {
    const { email, event } = markAttemptFailed(given(), '550 no such user', t0, policy, { permanent: true });
    expect(email.status).toBe('failed');
    expect(event?.type).toBe('EmailFailed');
  });

  it('delivery marks it sent with EmailSent', () => {
    const { email, event } = markDelivered(given(), '<m1@x>', at(5));
    expect(email).toMatchObject({
      status: 'sent',
      attempts: 1,
      messageId: '<m1@x>',
      sentAt: at(5).toISOString(),
    });
    expect(event).toEqual({
      type: 'EmailSent',
      data: {
        messageId: '<m1@x>',
        to: 'ada@example.com',
        template: 'verifyEmail',
        causeEventId: 'evt-1',
        sentAt: at(5).toISOString(),
      },
    });
  });
});

describe('identity events -> emails', () => {
  const base = { userId: 'u1', email: 'ada@example.com', name: 'Ada' };
  it('maps each account event to its template, keeping secrets sealed', () => {
    const cases = [
      [
        { type: 'EmailVerificationRequested', data: { ...base, sealedToken: 's-tok', expiresAt: '' } },
        'verifyEmail',
        { token: 's-tok' },
      ],
      [
        { type: 'LoginCodeRequested', data: { ...base, sealedCode: 's-code', expiresAt: '' } },
        'loginCode',
        { code: 's-code' },
      ],
      [
        { type: 'PasswordResetRequested', data: { ...base, sealedToken: 's-reset', expiresAt: '' } },
        'resetPassword',
        { token: 's-reset' },
      ],
      [
        { type: 'PasswordChanged', data: { ...base, via: 'reset', changedAt: 'now' } },
        'passwordChanged',
        undefined,
      ],
      [
        { type: 'RoleChanged', data: { ...base, fromRole: 'subscriber', toRole: 'admin', changedBy: 'a1' } },
        'roleChanged',
        undefined,
      ],
    ] as const;
    for (const [event, template, sealed] of cases) {
      expect(isIdentityEmailEvent(event)).toBe(true);
      const request = emailForIdentityEvent(event as never);
      expect(request).toMatchObject({ template, to: 'ada@example.com', userId: 'u1' });
      expect(request?.sealed).toEqual(sealed);
    }
  });

  it('ignores other events and events without an address', () => {
    expect(isIdentityEmailEvent({ type: 'UserRegistered', data: base })).toBe(false);
    expect(
      emailForIdentityEvent({
        type: 'PasswordChanged',
        data: { ...base, email: '', via: 'change', changedAt: '' },
      }),
    ).toBeNull();
  });
});
