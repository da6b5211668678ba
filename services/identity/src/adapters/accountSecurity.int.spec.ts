/**
 * Account security through the gRPC surface: login codes that cannot be guessed slowly,
 * rate limits that do not lock the owner's trusted browser out, emails unique after canonicalisation,
 * reset links retired by newer ones, and no answer that reveals a suspension without a secret.
 */
import { describe, expect, it } from 'vitest';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { identityPerTest } from '../testing/harness.js';

const { status } = grpc;
const MINUTE = 60_000;
const INVALID_CODE = 'Invalid or expired login code';
const RATE_LIMITED = 'Too many attempts. Please try again later';

// A generous code budget: these tests are about each code's attempts, not the windows (which run on
// real time in Redis while the harness's clock is fake).
const h = identityPerTest({
  deps: {
    rateLimits: {
      sendCodePerEmail: { max: 100, windowMs: 60 * MINUTE },
    },
  },
});

const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

async function newCode(email: string): Promise<string> {
  await h.call('sendLoginCode', { email });
  return h.latestSecret('LoginCodeRequested', email);
}

async function expectCodeRefused(email: string, loginCode: string): Promise<void> {
  await expectStatus(h.call('loginWithCode', { email, loginCode }), status.INVALID_ARGUMENT, INVALID_CODE);
}

/** One failed code login: a wrong guess at `code`. */
const failCode = (email: string, code: string) => expectCodeRefused(email, wrongFor(code));

/** A code login that succeeds, into `account`. */
async function expectCodeAccepted(account: { email: string; user?: { id: string } }, loginCode: string) {
  const ok = await h.call('loginWithCode', { email: account.email, loginCode });
  expect(ok.user!.id).toBe(account.user!.id);
}

describe('login codes', () => {
  it("counts wrong guesses per code: strangers' guesses never make the owner's freshly mailed code fail", async () => {
    const user = await h.register();
    // 20 wrong guesses at four codes: each code dies at its fifth
    for (let n = 0; n < 4; n++) {
      const code = await newCode(user.email);
      for (let i = 0; i < 5; i++) await failCode(user.email, code);
      await expectCodeRefused(user.email, code);
    }
    // the owner's fresh code works at once, and after four wrong guesses at it too
    await expectCodeAccepted(user, await newCode(user.email));
    const fresh = await newCode(user.email);
    for (let i = 0; i < 4; i++) await failCode(user.email, fresh);
    await expectCodeAccepted(user, fresh);
  });

  it("someone else's failed password logins do not block the owner's trusted browser", async () => {
    const user = await h.register();
    for (let i = 0; i < 10; i++) {
      await expectStatus(
        h.call('login', { email: user.email, password: 'wrong-pass', clientIp: '198.51.100.7' }),
        status.INVALID_ARGUMENT,
        'Invalid email or password',
      );
    }
    // plus-tags and case are the same address: no way around the per-email budget
    await expectStatus(
      h.call('login', { email: user.email.replace('@', '+x@').toUpperCase(), password: 'wrong-pass' }),
      status.RESOURCE_EXHAUSTED,
      RATE_LIMITED,
    );
    await expectStatus(
      h.call('login', { email: user.email, password: user.password }),
      status.RESOURCE_EXHAUSTED,
      RATE_LIMITED,
    );
    const trusted = await h.loginTrusted(user);
    expect(trusted.user!.id).toBe(user.user!.id);
    // successes do not count: the trusted browser signs in again and again
    for (let i = 0; i < 12; i++) await h.loginTrusted(user);

    // The trusted browser has a budget of its own (10 failures in the window): its failures still stop it.
    for (let i = 0; i < 10; i++) {
      await expectStatus(
        h.call('login', { email: user.email, password: 'wrong-pass', deviceToken: user.deviceToken }),
        status.INVALID_ARGUMENT,
        'Invalid email or password',
      );
    }
    await expectStatus(
      h.call('login', { email: user.email, password: user.password, deviceToken: user.deviceToken }),
      status.RESOURCE_EXHAUSTED,
      RATE_LIMITED,
    );
  });
});

describe('canonical emails', () => {
  it('case and plus-tags name one account for registration, login and login codes', async () => {
    const user = await h.register({ email: 'Ann.Lee+promo@Example.com' });
    expect(user.user!.email).toBe('ann.lee+promo@example.com');
    for (const email of ['ann.lee@example.com', 'ANN.LEE+other@example.com', 'ann.lee+promo@example.com']) {
      await expectStatus(h.register({ email }), status.ALREADY_EXISTS, 'Email is already registered');
    }
    const viaBase = await h.call('login', {
      email: 'ann.lee@example.com',
      password: user.password,
      deviceToken: user.deviceToken,
    });
    expect(viaBase.user!.id).toBe(user.user!.id);

    // a code asked for under another tag goes to the account's own address
    await h.call('sendLoginCode', { email: 'ann.lee+x@example.com' });
    const code = await h.latestSecret('LoginCodeRequested', user.user!.email);
    const viaCode = await h.call('loginWithCode', { email: 'Ann.Lee@example.com', loginCode: code });
    expect(viaCode.user!.id).toBe(user.user!.id);
  });

  it('a deleted account frees its canonical address', async () => {
    const admin = await h.adminCaller();
    const user = await h.register({ email: 'zed+a@example.com' });
    await h.call('deleteUser', { caller: admin, userId: user.user!.id });
    const again = await h.register({ email: 'zed@example.com' });
    expect(again.user!.id).not.toBe(user.user!.id);
  });
});

describe('reset links and suspension', () => {
  it('an older reset link stops working once a newer one is issued, and every link after a password change', async () => {
    const user = await h.register();
    await h.call('forgotPassword', { email: user.email });
    const older = await h.latestSecret('PasswordResetRequested', user.email);
    await h.call('forgotPassword', { email: user.email });
    const newer = await h.latestSecret('PasswordResetRequested', user.email);
    await expectStatus(
      h.call('resetPassword', { resetToken: older, password: 'New-pass-2' }),
      status.INVALID_ARGUMENT,
      'Invalid or expired reset link',
    );
    await h.call('resetPassword', { resetToken: newer, password: 'New-pass-2' });

    await h.call('forgotPassword', { email: user.email });
    const beforeChange = await h.latestSecret('PasswordResetRequested', user.email);
    const session = await h.call('login', {
      email: user.email,
      password: 'New-pass-2',
      deviceToken: user.deviceToken,
    });
    await h.call('changePassword', {
      caller: await h.callerOf(session.sessionToken),
      oldPassword: 'New-pass-2',
      password: 'New-pass-3',
    });
    await expectStatus(
      h.call('resetPassword', { resetToken: beforeChange, password: 'Stolen-pass-4' }),
      status.INVALID_ARGUMENT,
      'Invalid or expired reset link',
    );
    await h.call('login', { email: user.email, password: 'New-pass-3', deviceToken: user.deviceToken });
  });

  it('loginWithCode answers a suspended account as a wrong code unless the code is valid', async () => {
    const admin = await h.adminCaller();
    const user = await h.register();
    const code = await newCode(user.email);
    await h.call('upgradeUser', { caller: admin, userId: user.user!.id, role: 'suspended' });
    await failCode(user.email, code);
    await expectStatus(
      h.call('loginWithCode', { email: user.email, loginCode: code }),
      status.PERMISSION_DENIED,
      'Your account has been suspended. Please contact support',
    );
  });
});
