/**
 * An impersonation ends by itself 30 minutes after it started: its token and its
 * session record are refused from then on, ImpersonationEnded is recorded once with the admin as
 * actor, and the admin's own sessions are untouched.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { startHarness, type Harness } from '../testing/harness.js';
import { IMPERSONATION_TTL_MS } from './context.js';

const { status } = grpc;
const MIN = 60_000;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.stop();
});

/** An admin with a session of their own, impersonating a new user from a second session. */
async function impersonating() {
  const own = await h.signInWithCode(h.admin.email);
  const admin = await h.adminCaller();
  const user = await h.register({ name: 'Imp Target' });
  const started = await h.call('impersonate', { caller: admin, userId: user.user!.id });
  const asUser = await h.callerOf(started.sessionToken);
  return { own, admin, userId: user.user!.id, started, asUser };
}

describe('impersonation lifetime', () => {
  it('is 30 minutes', () => {
    expect(IMPERSONATION_TTL_MS).toBe(30 * MIN);
  });

  it('works until 30 minutes, is never refreshed, and is refused from then on', async () => {
    const { own, admin, userId, started, asUser } = await impersonating();

    h.advance(29 * MIN);
    const principal = await h.call('authenticate', { sessionToken: started.sessionToken });
    expect(principal).toMatchObject({ userId, impersonatorId: admin.userId, refreshedSessionToken: '' });
    expect((await h.call('getUser', { caller: asUser })).isImpersonated).toBe(true);
    expect(await h.events('ImpersonationEnded')).toHaveLength(0);

    h.advance(1 * MIN);
    await expectStatus(
      h.call('authenticate', { sessionToken: started.sessionToken }),
      status.UNAUTHENTICATED,
    );
    // The session record itself is refused too (a caller passed on without a fresh Authenticate).
    await expectStatus(h.call('getUser', { caller: asUser }), status.UNAUTHENTICATED);
    await expectStatus(h.call('getUser', { caller: asUser }), status.UNAUTHENTICATED);

    const ended = await h.events('ImpersonationEnded');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.data).toEqual({ adminId: admin.userId, userId });
    expect(ended[0]!.actor).toMatchObject({ userId: admin.userId, role: 'admin' });

    // The admin's own session still works.
    const back = await h.call('authenticate', { sessionToken: own.sessionToken });
    expect(back).toMatchObject({ userId: admin.userId, role: 'admin', impersonatorId: '' });
    const ownCaller = await h.callerOf(own.sessionToken);
    expect((await h.call('getUser', { caller: ownCaller })).role).toBe('admin');
  });
});
