/**
 * The identity service's administration and impersonation through its gRPC surface on embedded adapters
 * (SQLite ':memory:', in-process bus, Redis with a random prefix).
 */
import { describe, expect, it } from 'vitest';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { identityPerTest } from '../testing/harness.js';

const { status } = grpc;

const h = identityPerTest();

/** Each call, made in turn, is refused with its status and message. */
async function expectRefused(
  refusals: ReadonlyArray<readonly [call: () => Promise<unknown>, code: grpc.status, details: string]>,
): Promise<void> {
  for (const [call, code, details] of refusals) await expectStatus(call(), code, details);
}

async function adminCaller() {
  const res = await h.signInWithCode(h.admin.email);
  return { res, caller: await h.callerOf(res.sessionToken) };
}

describe('administration', () => {
  it('creates the first admin once, verified, from ADMIN_EMAIL / ADMIN_PASSWORD', async () => {
    await h.restart();
    const { res } = await adminCaller();
    expect(res.user).toMatchObject({ role: 'admin', isVerified: true, email: h.admin.email });
    expect(
      (await h.events('UserRegistered')).filter((e) => (e.data as { role: string }).role === 'admin'),
    ).toHaveLength(1);
  });

  it('refuses admin calls from subscribers and authors (role looked up, never taken from the request)', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    const userCaller = await h.callerOf(user.sessionToken);
    await expectStatus(
      h.call('listUsers', { caller: userCaller }),
      status.PERMISSION_DENIED,
      'Not authorized as an admin',
    );
    await h.call('upgradeUser', { caller: admin, userId: user.user!.id, role: 'author' });
    for (const call of [
      h.call('listUsers', { caller: userCaller }),
      h.call('deleteUser', { caller: userCaller, userId: admin.userId }),
      h.call('upgradeUser', { caller: userCaller, userId: user.user!.id, role: 'admin' }),
      h.call('impersonate', { caller: userCaller, userId: admin.userId }),
    ]) {
      await expectStatus(call, status.PERMISSION_DENIED, 'Not authorized as an admin');
    }
    await expectStatus(h.call('listUsers', {}), status.UNAUTHENTICATED);
    const { users } = await h.call('listUsers', { caller: admin });
    expect(users.map((u) => u.email)).toEqual(expect.arrayContaining([h.admin.email, user.email]));
  });

  it('suspension refuses the open session at once and blocks login', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    await h.call('authenticate', { sessionToken: user.sessionToken });
    expect(
      (await h.call('upgradeUser', { caller: admin, userId: user.user!.id, role: 'suspended' })).message,
    ).toBe('User role updated to suspended');
    await expectStatus(h.call('authenticate', { sessionToken: user.sessionToken }), status.UNAUTHENTICATED);
    await expectStatus(
      h.call('login', { email: user.email, password: user.password, deviceToken: user.deviceToken }),
      status.PERMISSION_DENIED,
      'Your account has been suspended. Please contact support',
    );
    const roleChanged = (await h.events('RoleChanged')).at(-1)!;
    expect(roleChanged.data).toMatchObject({
      userId: user.user!.id,
      fromRole: 'subscriber',
      toRole: 'suspended',
      changedBy: admin.userId,
    });
    expect(roleChanged.actor).toMatchObject({ userId: admin.userId, role: 'admin' });
  });

  it('an admin cannot change their own role or delete themselves; roles must be valid', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    await expectRefused([
      [
        () => h.call('upgradeUser', { caller: admin, userId: admin.userId, role: 'subscriber' }),
        status.PERMISSION_DENIED,
        'You cannot change your own role',
      ],
      [
        () => h.call('deleteUser', { caller: admin, userId: admin.userId }),
        status.PERMISSION_DENIED,
        'You cannot delete your own account',
      ],
      [
        () => h.call('upgradeUser', { caller: admin, userId: user.user!.id, role: 'root' }),
        status.INVALID_ARGUMENT,
        'Invalid role',
      ],
      [
        () => h.call('upgradeUser', { caller: admin, userId: 'no-such-user', role: 'author' }),
        status.NOT_FOUND,
        'User not found',
      ],
    ]);
  });

  it('a second admin can be made and then demoted while another admin remains', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    await h.call('upgradeUser', { caller: admin, userId: user.user!.id, role: 'admin' });
    const second = await h.callerOf(user.sessionToken);
    expect((await h.call('listUsers', { caller: second })).users.length).toBeGreaterThanOrEqual(2);
    await h.call('upgradeUser', { caller: second, userId: admin.userId, role: 'subscriber' });
    await expectStatus(h.call('listUsers', { caller: admin }), status.PERMISSION_DENIED);
  });

  it('two admins demoting each other at once leave one admin', async () => {
    const { caller: a } = await adminCaller();
    const user = await h.register();
    await h.call('upgradeUser', { caller: a, userId: user.user!.id, role: 'admin' });
    const b = await h.callerOf(user.sessionToken);
    const results = await Promise.allSettled([
      h.call('upgradeUser', { caller: a, userId: b.userId, role: 'subscriber' }),
      h.call('upgradeUser', { caller: b, userId: a.userId, role: 'subscriber' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const admins = (await h.store.find<{ role: string }>('users', { where: { role: 'admin' } })).length;
    expect(admins).toBe(1);
  });

  it('deleting a user revokes their sessions and frees the email', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    expect((await h.call('deleteUser', { caller: admin, userId: user.user!.id })).message).toBe(
      'User deleted successfully',
    );
    await expectStatus(h.call('authenticate', { sessionToken: user.sessionToken }), status.UNAUTHENTICATED);
    await expectStatus(
      h.call('login', { email: user.email, password: user.password, deviceToken: user.deviceToken }),
      status.INVALID_ARGUMENT,
      'Invalid email or password',
    );
    await h.register({ email: user.email });
    expect((await h.events('UserDeleted')).at(-1)!.data).toEqual({
      userId: user.user!.id,
      deletedBy: admin.userId,
    });
  });
});

describe('impersonation', () => {
  it('an admin acts as a user, the session keeps the admin, exit returns the admin session', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register({ name: 'Imp Target' });
    const started = await h.call('impersonate', { caller: admin, userId: user.user!.id });
    expect(started.user).toMatchObject({ id: user.user!.id, isImpersonated: true });

    const principal = await h.call('authenticate', { sessionToken: started.sessionToken });
    expect(principal).toMatchObject({
      userId: user.user!.id,
      role: 'subscriber',
      impersonatorId: admin.userId,
    });
    const asUser = await h.callerOf(started.sessionToken);
    expect((await h.call('getUser', { caller: asUser })).isImpersonated).toBe(true);
    await expectStatus(h.call('listUsers', { caller: asUser }), status.PERMISSION_DENIED);

    // The person's profile and password are theirs: an impersonating admin changes neither.
    const profiles = (await h.events('ProfileUpdated')).length;
    await expectRefused([
      [
        () => h.call('updateUser', { caller: asUser, bio: 'set by admin' }),
        status.PERMISSION_DENIED,
        'Profiles cannot be changed while impersonating',
      ],
      [
        () => h.call('changePassword', { caller: asUser, oldPassword: 'Passw0rd!', password: 'Taken0ver!' }),
        status.PERMISSION_DENIED,
        'Passwords cannot be changed while impersonating',
      ],
    ]);
    expect(await h.events('ProfileUpdated')).toHaveLength(profiles);

    const exited = await h.call('exitImpersonation', { caller: asUser });
    expect(exited.user).toMatchObject({ id: admin.userId, role: 'admin', isImpersonated: false });
    await expectStatus(
      h.call('authenticate', { sessionToken: started.sessionToken }),
      status.UNAUTHENTICATED,
    );
    const back = await h.call('authenticate', { sessionToken: exited.sessionToken });
    expect(back).toMatchObject({ userId: admin.userId, role: 'admin', impersonatorId: '' });

    const s = (await h.events('ImpersonationStarted')).at(-1)!;
    const e = (await h.events('ImpersonationEnded')).at(-1)!;
    expect(s.data).toEqual({ adminId: admin.userId, userId: user.user!.id });
    expect(s.actor).toMatchObject({ userId: admin.userId, role: 'admin' });
    expect(e.actor).toMatchObject({ userId: admin.userId });
  });

  it('nobody impersonates an admin, and exit without impersonation is refused', async () => {
    const { caller: admin } = await adminCaller();
    const other = await h.register();
    await h.call('upgradeUser', { caller: admin, userId: other.user!.id, role: 'admin' });
    await expectRefused([
      [
        () => h.call('impersonate', { caller: admin, userId: other.user!.id }),
        status.PERMISSION_DENIED,
        'Admins cannot be impersonated',
      ],
      [
        () => h.call('exitImpersonation', { caller: admin }),
        status.FAILED_PRECONDITION,
        'You are not impersonating anyone',
      ],
    ]);
  });

  it('suspending the impersonated user ends the impersonation session', async () => {
    const { caller: admin } = await adminCaller();
    const user = await h.register();
    const started = await h.call('impersonate', { caller: admin, userId: user.user!.id });
    const { caller: admin2 } = await adminCaller();
    await h.call('upgradeUser', { caller: admin2, userId: user.user!.id, role: 'suspended' });
    await expectStatus(
      h.call('authenticate', { sessionToken: started.sessionToken }),
      status.UNAUTHENTICATED,
    );
  });
});
