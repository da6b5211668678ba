/**
 * The identity service through its gRPC surface on embedded adapters (SQLite ':memory:', in-process
 * bus, Redis with a random prefix).
 */
import { isSealed } from '@meridian/platform/personalData';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { identityPerTest } from '../testing/harness.js';
import { IDENTITY_TOPIC } from '../main.js';

const { status } = grpc;
const HOUR = 60 * 60 * 1000;

const h = identityPerTest();

describe('registration and email verification', () => {
  it('registers a user, publishes UserRegistered and a sealed verification link, and verifies once', async () => {
    const received: StoredEvent[] = [];
    await h.bus.subscribe({
      topic: IDENTITY_TOPIC,
      group: 'test-observer',
      handler: async (e) => void received.push(e),
    });

    const res = await h.register({ email: 'Ann.Lee@Example.com', name: 'Ann Lee' });
    expect(res.message).toBe('Registration Successful');
    expect(res.sessionToken).not.toBe('');
    expect(res.deviceToken).not.toBe('');
    expect(res.user).toMatchObject({
      name: 'Ann Lee',
      email: 'ann.lee@example.com',
      role: 'subscriber',
      isVerified: false,
      kycStatus: 'Not Submitted',
      balanceCents: 0,
      investmentBalanceCents: 0,
      totalMaturityAmountCents: 0,
      isImpersonated: false,
    });
    expect(res.user!.referralCode).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);

    const published = await waitFor(() => {
      const mine = received.filter((e) => (e.data as { userId?: string }).userId === res.user!.id);
      const types = mine.map((e) => e.type);
      return types.includes('UserRegistered') && types.includes('EmailVerificationRequested') ? mine : null;
    });
    const registered = published.find((e) => e.type === 'UserRegistered')!;
    // personal values travel sealed with the user's key; the blind index of the email never leaves identity
    const data = registered.data as { email: string; name: string; phone: string; emailIndex: string };
    for (const v of [data.email, data.name, data.phone]) expect(isSealed(v)).toBe(true);
    expect(JSON.stringify(registered.data)).not.toContain('ann.lee');
    expect(data.emailIndex).toBe('');
    expect(await h.opened(registered.data as object)).toMatchObject({
      userId: res.user!.id,
      email: 'ann.lee@example.com',
      role: 'subscriber',
      referredBy: '',
    });
    const verification = published.find((e) => e.type === 'EmailVerificationRequested')!;
    expect(JSON.stringify(verification.data)).not.toMatch(/password/i);

    const token = await h.latestSecret('EmailVerificationRequested', 'ann.lee@example.com');
    const verified = await h.call('verifyUser', { verificationToken: token });
    expect(verified.message).toBe('Account verified successfully');
    const caller = await h.callerOf(res.sessionToken);
    expect((await h.call('getUser', { caller })).isVerified).toBe(true);

    await expectStatus(
      h.call('verifyUser', { verificationToken: token }),
      status.INVALID_ARGUMENT,
      'Invalid or expired verification link',
    );
    await expectStatus(
      h.call('sendVerificationEmail', { caller }),
      status.FAILED_PRECONDITION,
      'Account already verified',
    );
  });

  it('refuses a verification link after 24 hours, and a resent link works', async () => {
    const res = await h.register();
    const first = await h.latestSecret('EmailVerificationRequested', res.email);
    h.advance(24 * HOUR);
    await expectStatus(
      h.call('verifyUser', { verificationToken: first }),
      status.INVALID_ARGUMENT,
      'Invalid or expired verification link',
    );
    const caller = await h.callerOf((await h.signInWithCode(res.email)).sessionToken);
    expect((await h.call('sendVerificationEmail', { caller })).message).toBe('Verification email sent');
    const second = await h.latestSecret('EmailVerificationRequested', res.email);
    expect(second).not.toBe(first);
    await h.call('verifyUser', { verificationToken: second });
    expect((await h.call('getUser', { caller })).isVerified).toBe(true);
  });

  it('validates like the form and keeps emails unique regardless of case', async () => {
    const ok = { name: 'A', email: 'a@example.com', password: 'abcdef', phone: '1', country: 'Kenya' };
    await expectStatus(
      h.call('register', { ...ok, name: '' }),
      status.INVALID_ARGUMENT,
      'All fields are required',
    );
    await expectStatus(
      h.call('register', { ...ok, email: 'a@b' }),
      status.INVALID_ARGUMENT,
      'Please enter a valid email',
    );
    await expectStatus(
      h.call('register', { ...ok, password: 'abcde' }),
      status.INVALID_ARGUMENT,
      'Password must be up to 6 characters',
    );
    await h.call('register', ok);
    await expectStatus(
      h.call('register', { ...ok, email: 'A@EXAMPLE.com' }),
      status.ALREADY_EXISTS,
      'Email is already registered',
    );
  });

  it('links a referee to the referrer by referral code and refuses unknown codes', async () => {
    const referrer = await h.register();
    await expectStatus(
      h.register({ referralCode: 'NOSUCHCODE' }),
      status.INVALID_ARGUMENT,
      'Invalid referral code',
    );
    const referee = await h.register({ name: 'Bob Referee', referralCode: referrer.user!.referralCode });

    const registered = (await h.events('UserRegistered')).find(
      (e) => (e.data as { userId: string }).userId === referee.user!.id,
    )!;
    expect(registered.data).toMatchObject({ referredBy: referrer.user!.id });
    const caller = await h.callerOf(referrer.sessionToken);
    const { referrals } = await h.call('listReferrals', { caller });
    expect(referrals).toEqual([
      expect.objectContaining({ id: referee.user!.id, name: 'Bob Referee', email: referee.email }),
    ]);
    const own = await h.call('listReferrals', { caller: await h.callerOf(referee.sessionToken) });
    expect(own.referrals).toEqual([]);
  });
});

describe('login', () => {
  it('lets the registering browser in, asks a new browser for an emailed code, then trusts it', async () => {
    const user = await h.register();
    const same = await h.call('login', {
      email: user.email.toUpperCase(),
      password: user.password,
      deviceToken: user.deviceToken,
    });
    expect(same.message).toBe('Login Successful');
    expect(same.user!.id).toBe(user.user!.id);

    await expectStatus(
      h.call('login', { email: user.email, password: user.password }),
      status.FAILED_PRECONDITION,
      'New browser or device detected',
    );

    expect((await h.call('sendLoginCode', { email: user.email })).message).toBe(
      'If the email is registered, a login code has been sent to it',
    );
    const code = await h.latestSecret('LoginCodeRequested', user.email);
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: wrong }),
      status.INVALID_ARGUMENT,
      'Invalid or expired login code',
    );
    const viaCode = await h.call('loginWithCode', { email: user.email, loginCode: code });
    expect(viaCode.sessionToken).not.toBe('');
    expect(viaCode.deviceToken).not.toBe('');
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: code }),
      status.INVALID_ARGUMENT,
      'Invalid or expired login code',
    );

    const trusted = await h.loginTrusted(user, viaCode.deviceToken);
    expect(trusted.user!.id).toBe(user.user!.id);
    // A device token trusted by one user does not let another user skip the code.
    const other = await h.register();
    await expectStatus(
      h.call('login', { email: other.email, password: other.password, deviceToken: viaCode.deviceToken }),
      status.FAILED_PRECONDITION,
      'New browser or device detected',
    );
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const user = await h.register();
    const a = await expectStatus(
      h.call('login', { email: user.email, password: 'wrong-pass' }),
      status.INVALID_ARGUMENT,
      'Invalid email or password',
    );
    const b = await expectStatus(
      h.call('login', { email: 'nobody@example.com', password: 'wrong-pass' }),
      status.INVALID_ARGUMENT,
      'Invalid email or password',
    );
    expect(a.details).toBe(b.details);
    await expectStatus(
      h.call('login', { email: '', password: 'x' }),
      status.INVALID_ARGUMENT,
      'All fields are required',
    );
    await expectStatus(
      h.call('login', { email: 'bad@', password: 'x' }),
      status.INVALID_ARGUMENT,
      'Please enter a valid email',
    );
  });

  it('does not reveal whether an email has an account when sending codes or reset links', async () => {
    const user = await h.register();
    const before = (await h.events()).length;
    const unknownCode = await h.call('sendLoginCode', { email: 'ghost@example.com' });
    const unknownReset = await h.call('forgotPassword', { email: 'ghost@example.com' });
    expect((await h.events()).length).toBe(before);
    expect(await h.call('sendLoginCode', { email: user.email })).toEqual(unknownCode);
    expect(await h.call('forgotPassword', { email: user.email })).toEqual(unknownReset);
    expect((await h.events()).length).toBe(before + 2);
  });

  it('refuses the right code after 5 wrong attempts, and after 15 minutes', async () => {
    const user = await h.register();
    await h.call('sendLoginCode', { email: user.email });
    const code = await h.latestSecret('LoginCodeRequested', user.email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      await expectStatus(
        h.call('loginWithCode', { email: user.email, loginCode: wrong }),
        status.INVALID_ARGUMENT,
        'Invalid or expired login code',
      );
    }
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: code }),
      status.INVALID_ARGUMENT,
      'Invalid or expired login code',
    );

    await h.call('sendLoginCode', { email: user.email });
    const fresh = await h.latestSecret('LoginCodeRequested', user.email);
    h.advance(15 * 60 * 1000);
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: fresh }),
      status.INVALID_ARGUMENT,
      'Invalid or expired login code',
    );
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: '12345' }),
      status.INVALID_ARGUMENT,
      'Access code must be 6 characters',
    );
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: '' }),
      status.INVALID_ARGUMENT,
      'Please fill in the login code',
    );
  });

  it('rate-limits login attempts per email, but not from a browser the account trusts', async () => {
    const user = await h.register();
    for (let i = 0; i < 10; i++) {
      await expectStatus(
        h.call('login', { email: user.email, password: 'wrong-pass' }),
        status.INVALID_ARGUMENT,
        'Invalid email or password',
      );
    }
    await expectStatus(
      h.call('login', { email: user.email, password: user.password }),
      status.RESOURCE_EXHAUSTED,
      'Too many attempts. Please try again later',
    );
    // the trusted browser has a budget of its own: the other browser's refusals do not use it up
    const trusted = await h.loginTrusted(user);
    expect(trusted.user!.id).toBe(user.user!.id);
  });

  it('rate-limits code requests and registrations per client address', async () => {
    for (let i = 0; i < 5; i++) await h.call('sendLoginCode', { email: 'same@example.com' });
    await expectStatus(
      h.call('sendLoginCode', { email: 'same@example.com' }),
      status.RESOURCE_EXHAUSTED,
      'Too many attempts. Please try again later',
    );
    const body = { name: 'A', password: 'abcdef', phone: '1', country: 'Kenya', clientIp: '203.0.113.9' };
    for (let i = 0; i < 20; i++) await h.call('register', { ...body, email: `r${i}@example.com` });
    await expectStatus(
      h.call('register', { ...body, email: 'r-last@example.com' }),
      status.RESOURCE_EXHAUSTED,
      'Too many attempts. Please try again later',
    );
  });
});

describe('sessions', () => {
  it('authenticates, slides forward after an hour, expires after a day without refresh, and logs out', async () => {
    const user = await h.register();
    const p = await h.call('authenticate', { sessionToken: user.sessionToken });
    expect(p).toMatchObject({
      userId: user.user!.id,
      role: 'subscriber',
      impersonatorId: '',
      refreshedSessionToken: '',
    });

    h.advance(2 * HOUR);
    const slid = await h.call('authenticate', { sessionToken: user.sessionToken });
    expect(slid.refreshedSessionToken).not.toBe('');
    h.advance(23 * HOUR);
    await expectStatus(
      h.call('authenticate', { sessionToken: user.sessionToken }),
      status.UNAUTHENTICATED,
      'Not authorized, please login',
    );
    const again = await h.call('authenticate', { sessionToken: slid.refreshedSessionToken });
    expect(again.sessionId).toBe(p.sessionId);

    const caller = await h.callerOf(slid.refreshedSessionToken);
    expect((await h.call('logout', { caller })).message).toBe('Logout successful');
    await expectStatus(
      h.call('authenticate', { sessionToken: slid.refreshedSessionToken }),
      status.UNAUTHENTICATED,
    );
    await expectStatus(h.call('getUser', { caller }), status.UNAUTHENTICATED, 'Not authorized, please login');
    await expectStatus(h.call('authenticate', { sessionToken: 'garbage' }), status.UNAUTHENTICATED);
  });

  it('does not trust a caller whose session id does not belong to the user', async () => {
    const a = await h.register();
    const b = await h.register();
    const callerB = await h.callerOf(b.sessionToken);
    await expectStatus(
      h.call('getUser', { caller: { ...callerB, userId: a.user!.id } }),
      status.UNAUTHENTICATED,
    );
  });
});

describe('passwords', () => {
  it('resets with a single-use link, revokes every session and lets the new password in', async () => {
    const user = await h.register();
    expect((await h.call('forgotPassword', { email: user.email })).message).toBe(
      'If the email is registered, a password reset link has been sent to it',
    );
    const token = await h.latestSecret('PasswordResetRequested', user.email);
    await expectStatus(
      h.call('resetPassword', { resetToken: token, password: 'short' }),
      status.INVALID_ARGUMENT,
      'Password must be up to 6 characters',
    );
    expect((await h.call('resetPassword', { resetToken: token, password: 'New-pass-2' })).message).toBe(
      'Password Reset Successful, please login',
    );
    await expectStatus(h.call('authenticate', { sessionToken: user.sessionToken }), status.UNAUTHENTICATED);
    await expectStatus(
      h.call('resetPassword', { resetToken: token, password: 'Other-pass-3' }),
      status.INVALID_ARGUMENT,
      'Invalid or expired reset link',
    );
    await expectStatus(
      h.call('login', { email: user.email, password: user.password, deviceToken: user.deviceToken }),
      status.INVALID_ARGUMENT,
      'Invalid email or password',
    );
    await h.call('login', { email: user.email, password: 'New-pass-2', deviceToken: user.deviceToken });
    const changed = (await h.events('PasswordChanged')).at(-1)!;
    expect(await h.opened(changed.data as object)).toMatchObject({
      userId: user.user!.id,
      email: user.email,
      via: 'reset',
    });
  });

  it('refuses a reset link older than an hour', async () => {
    const user = await h.register();
    await h.call('forgotPassword', { email: user.email });
    const token = await h.latestSecret('PasswordResetRequested', user.email);
    h.advance(HOUR);
    await expectStatus(
      h.call('resetPassword', { resetToken: token, password: 'New-pass-2' }),
      status.INVALID_ARGUMENT,
      'Invalid or expired reset link',
    );
  });

  it('changes the password with the old one and revokes the other sessions only', async () => {
    const user = await h.register();
    const second = await h.loginTrusted(user);
    const caller = await h.callerOf(user.sessionToken);
    await expectStatus(
      h.call('changePassword', { caller, oldPassword: 'not-it!', password: 'New-pass-2' }),
      status.INVALID_ARGUMENT,
      'Incorrect old password',
    );
    await expectStatus(
      h.call('changePassword', { caller, oldPassword: user.password, password: '' }),
      status.INVALID_ARGUMENT,
      'All fields are required',
    );
    expect(
      (await h.call('changePassword', { caller, oldPassword: user.password, password: 'New-pass-2' }))
        .message,
    ).toBe('Password changed successfully');
    await h.call('authenticate', { sessionToken: user.sessionToken });
    await expectStatus(h.call('authenticate', { sessionToken: second.sessionToken }), status.UNAUTHENTICATED);
    expect((await h.events('PasswordChanged')).at(-1)!.data).toMatchObject({
      via: 'change',
      userId: user.user!.id,
    });
  });
});

describe('profile', () => {
  it('updates name, phone, bio, country and photo but never the email', async () => {
    const user = await h.register();
    const caller = await h.callerOf(user.sessionToken);
    const updated = await h.call('updateUser', {
      caller,
      name: 'New Name',
      bio: 'Investor',
      photo: 'https://img.example.com/p.png',
    });
    expect(updated).toMatchObject({
      name: 'New Name',
      bio: 'Investor',
      photo: 'https://img.example.com/p.png',
      email: user.email,
      phone: '+254700000000',
    });
    const profileUpdated = (await h.events('ProfileUpdated')).at(-1)!.data as { name: string; bio: string };
    expect(isSealed(profileUpdated.name) && isSealed(profileUpdated.bio)).toBe(true);
    expect(await h.opened(profileUpdated)).toMatchObject({
      fields: ['name', 'bio', 'photo'],
      name: 'New Name',
    });
    await expectStatus(
      h.call('updateUser', { caller, photo: 'javascript:alert(1)' }),
      status.INVALID_ARGUMENT,
      'Photo must be a valid http(s) address',
    );
  });

  it('lists the ISO 3166 countries', async () => {
    const { countries } = await h.call('listCountries', {});
    expect(countries).toHaveLength(249);
    expect(countries).toContainEqual({ name: 'Kenya', code: 'KE' });
    expect(countries).toContainEqual({ name: 'Germany', code: 'DE' });
  });
});
