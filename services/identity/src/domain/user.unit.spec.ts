import { describe, expect, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import { canonicalEmail, isValidEmail, MESSAGES, userDecider, type UserEvent } from './user.js';

const spec = DeciderSpecification.for(userDecider);
const now = new Date('2026-01-01T10:00:00.000Z');
const at = now.toISOString();

const registered = (
  userId = 'u1',
  role = 'subscriber',
  extra: Partial<Extract<UserEvent, { type: 'UserRegistered' }>['data']> = {},
): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId,
    name: 'Ann',
    email: 'ann@example.com',
    role,
    referralCode: 'CODE234567',
    referredBy: '',
    registeredAt: at,
    phone: '+100',
    country: 'Kenya',
    emailIndex: 'ix-ann',
    ...extra,
  },
});
const verified = (userId = 'u1'): UserEvent => ({ type: 'UserVerified', data: { userId, verifiedAt: at } });
const roleChanged = (toRole: string, fromRole = 'subscriber'): UserEvent => ({
  type: 'RoleChanged',
  data: { userId: 'u1', email: 'ann@example.com', name: 'Ann', fromRole, toRole, changedBy: 'admin' },
});
const deleted: UserEvent = { type: 'UserDeleted', data: { userId: 'u1', deletedBy: 'admin' } };

describe('User decider', () => {
  describe('RegisterUser', () => {
    const base = {
      type: 'RegisterUser' as const,
      userId: 'u1',
      name: 'Ann',
      email: 'ann@example.com',
      phone: '+100',
      country: 'Kenya',
      role: 'subscriber' as const,
      referralCode: 'CODE234567',
      referredBy: '',
      emailIndex: 'ix-ann',
      now,
    };

    it('registers and asks for verification with the sealed token', () => {
      spec
        .given([])
        .when({
          ...base,
          verification: { sealedToken: 'v1.sealed', expiresAt: new Date('2026-01-02T10:00:00.000Z') },
        })
        .then([
          registered(),
          {
            type: 'EmailVerificationRequested',
            data: {
              userId: 'u1',
              email: 'ann@example.com',
              name: 'Ann',
              sealedToken: 'v1.sealed',
              expiresAt: '2026-01-02T10:00:00.000Z',
            },
          },
        ]);
    });

    it('registers an already verified user (first admin) without a verification mail', () => {
      spec
        .given([])
        .when({ ...base, role: 'admin', verified: true })
        .then([registered('u1', 'admin'), verified()]);
    });

    it('refuses to register the same stream twice', () => {
      spec.given([registered()]).when(base).thenThrows(domainError('conflict'));
    });
  });

  describe('verification', () => {
    it('verifies once; a second VerifyEmail changes nothing', () => {
      spec.given([registered()]).when({ type: 'VerifyEmail', now }).then([verified()]);
      spec.given([registered(), verified()]).when({ type: 'VerifyEmail', now }).thenNothingHappens();
    });

    it('refuses to resend a link to a verified user', () => {
      spec
        .given([registered(), verified()])
        .when({ type: 'RequestVerification', sealedToken: 's', expiresAt: now })
        .thenThrows(domainError('precondition', MESSAGES.alreadyVerified));
    });

    it('refuses commands on a deleted user', () => {
      spec
        .given([registered(), deleted])
        .when({ type: 'VerifyEmail', now })
        .thenThrows(domainError('not_found'));
    });
  });

  describe('login codes', () => {
    it('a suspended user gets no login code', () => {
      spec
        .given([registered(), roleChanged('suspended')])
        .when({ type: 'RequestLoginCode', sealedCode: 's', expiresAt: now })
        .thenThrows(domainError('forbidden', MESSAGES.suspended));
    });

    it('an active user gets LoginCodeRequested with the sealed code', () => {
      spec
        .given([registered()])
        .when({ type: 'RequestLoginCode', sealedCode: 'v1.code', expiresAt: now })
        .then([
          {
            type: 'LoginCodeRequested',
            data: {
              userId: 'u1',
              email: 'ann@example.com',
              name: 'Ann',
              sealedCode: 'v1.code',
              expiresAt: at,
            },
          },
        ]);
    });
  });

  describe('ChangePassword', () => {
    it('needs the old password to match when changing', () => {
      spec
        .given([registered()])
        .when({ type: 'ChangePassword', via: 'change', oldPasswordMatches: false, now })
        .thenThrows(domainError('invalid', MESSAGES.incorrectOldPassword));
    });

    it('records PasswordChanged via change or reset', () => {
      spec
        .given([registered()])
        .when({ type: 'ChangePassword', via: 'change', oldPasswordMatches: true, now })
        .then([
          {
            type: 'PasswordChanged',
            data: { userId: 'u1', email: 'ann@example.com', name: 'Ann', via: 'change', changedAt: at },
          },
        ]);
      spec
        .given([registered()])
        .when({ type: 'ChangePassword', via: 'reset', now })
        .then((events) => expect(events[0].data).toMatchObject({ via: 'reset' }));
    });
  });

  describe('UpdateProfile', () => {
    it('emits the changed fields with their new values', () => {
      spec
        .given([registered()])
        .when({ type: 'UpdateProfile', changes: { name: '  Anne ', bio: 'hi' } })
        .then([
          {
            type: 'ProfileUpdated',
            data: {
              userId: 'u1',
              fields: ['name', 'bio'],
              name: 'Anne',
              phone: '',
              bio: 'hi',
              country: '',
              photo: '',
            },
          },
        ]);
    });

    it('refuses an empty name and a photo that is not an http(s) address', () => {
      spec
        .given([registered()])
        .when({ type: 'UpdateProfile', changes: { name: ' ' } })
        .thenThrows(domainError('invalid', MESSAGES.nameRequired));
      spec
        .given([registered()])
        .when({ type: 'UpdateProfile', changes: { photo: 'javascript:alert(1)' } })
        .thenThrows(domainError('invalid', MESSAGES.invalidPhoto));
    });

    it('takes an inline png or jpeg picture (spec §5), refuses any other inline type and a URL over 2,048 characters', () => {
      const photo = `data:image/png;base64,${Buffer.from('pixels').toString('base64')}`;
      spec
        .given([registered()])
        .when({ type: 'UpdateProfile', changes: { photo } })
        .then([
          {
            type: 'ProfileUpdated',
            data: { userId: 'u1', fields: ['photo'], name: '', phone: '', bio: '', country: '', photo },
          },
        ]);
      for (const bad of ['data:image/svg+xml;base64,PHN2Zz4=', `https://img.example/${'a'.repeat(2048)}`])
        spec
          .given([registered()])
          .when({ type: 'UpdateProfile', changes: { photo: bad } })
          .thenThrows(domainError('invalid', MESSAGES.invalidPhoto));
    });

    it('does nothing without changes', () => {
      spec.given([registered()]).when({ type: 'UpdateProfile', changes: {} }).thenNothingHappens();
    });
  });

  describe('ChangeRole', () => {
    const change = (
      role: string,
      extra: Partial<{ actorId: string; actorRole: string; adminCount: number }> = {},
    ) => ({
      type: 'ChangeRole' as const,
      actorId: 'admin',
      actorRole: 'admin',
      role,
      adminCount: 2,
      ...extra,
    });

    it('an admin changes another user role', () => {
      spec
        .given([registered()])
        .when(change('author'))
        .then([roleChanged('author')]);
    });

    it.each([
      [
        'only an admin may change roles (an author is not an admin)',
        'subscriber',
        change('author', { actorRole: 'author' }),
        domainError('forbidden', MESSAGES.notAuthorized),
      ],
      [
        'an admin cannot change their own role',
        'admin',
        change('subscriber', { actorId: 'u1' }),
        domainError('forbidden', MESSAGES.ownRole),
      ],
      [
        'the last admin cannot be demoted',
        'admin',
        change('subscriber', { adminCount: 1 }),
        domainError('precondition', MESSAGES.lastAdmin),
      ],
      ['refuses an unknown role', 'subscriber', change('root'), domainError('invalid', MESSAGES.invalidRole)],
      ['refuses a missing role', 'subscriber', change(''), domainError('invalid', MESSAGES.selectRole)],
    ])('%s', (_, role, command, refusal) => {
      spec
        .given([registered('u1', role)])
        .when(command)
        .thenThrows(refusal);
    });

    it('the same role again changes nothing', () => {
      spec.given([registered()]).when(change('subscriber')).thenNothingHappens();
    });
  });

  describe('DeleteUser', () => {
    const deleteBy = (actorId: string, actorRole = 'admin') => ({
      type: 'DeleteUser' as const,
      actorId,
      actorRole,
    });

    it('an admin deletes another user, not themselves', () => {
      spec.given([registered()]).when(deleteBy('admin')).then([deleted]);
      spec
        .given([registered('u1', 'admin')])
        .when(deleteBy('u1'))
        .thenThrows(domainError('forbidden', MESSAGES.ownDelete));
      spec.given([registered()]).when(deleteBy('x', 'subscriber')).thenThrows(domainError('forbidden'));
    });

    it('a deleted user cannot be deleted again', () => {
      spec.given([registered(), deleted]).when(deleteBy('admin')).thenThrows(domainError('not_found'));
    });
  });

  describe('impersonation', () => {
    it('an admin impersonates a non-admin', () => {
      spec
        .given([registered()])
        .when({ type: 'StartImpersonation', adminId: 'admin', adminRole: 'admin' })
        .then([{ type: 'ImpersonationStarted', data: { adminId: 'admin', userId: 'u1' } }]);
    });

    it('nobody impersonates an admin, and only admins impersonate', () => {
      spec
        .given([registered('u1', 'admin')])
        .when({ type: 'StartImpersonation', adminId: 'a2', adminRole: 'admin' })
        .thenThrows(domainError('forbidden', MESSAGES.impersonateAdmin));
      spec
        .given([registered()])
        .when({ type: 'StartImpersonation', adminId: 'a2', adminRole: 'author' })
        .thenThrows(domainError('forbidden'));
    });
  });
});

describe('email format (spec §5)', () => {
  it.each(['a@b.co', 'first.last@sub.example.org', 'x@[10.0.0.1]', '"quoted name"@example.com'])(
    'accepts %s',
    (email) => {
      expect(isValidEmail(email)).toBe(true);
    },
  );
  it.each(['', 'plain', 'a@b', 'a@b.c', 'a@b.c1', 'a b@c.com', 'a@@b.com', '@b.com'])(
    'refuses %s',
    (email) => {
      expect(isValidEmail(email)).toBe(false);
    },
  );
});

describe('canonicalEmail (one account per address)', () => {
  it('lower-cases and drops the plus-tag of the local part, nothing else', () => {
    expect(canonicalEmail(' A+x@Gmail.com ')).toBe('a@gmail.com');
    expect(canonicalEmail('ann.lee+promo+2@example.com')).toBe('ann.lee@example.com');
    expect(canonicalEmail('ann.lee@example.com')).toBe('ann.lee@example.com');
    expect(canonicalEmail('+only@example.com')).toBe('+only@example.com');
    expect(canonicalEmail('"a+b"@example.com')).toBe('"a+b"@example.com');
    expect(canonicalEmail('a@b+c.example.com')).toBe('a@b+c.example.com');
  });
});
