import { forbidden, precondition } from '@meridian/platform/eventSourcing/errors';
import { getUserView } from '../projections/userView.js';
import {
  createSession,
  decideAndAppend,
  metaFor,
  revokeSession,
  resolveCaller,
  type CallerInput,
  type IdentityContext,
} from './context.js';
import { requireAdmin } from './admin.js';
import type { AuthResult } from './register.js';

/**
 * An admin acts as a (non-admin) user: a new session whose record keeps the admin's id
 * (impersonatorId); the admin's own session is closed (the cookie is replaced).
 * ImpersonationStarted is recorded with the admin as actor.
 */
export async function impersonate(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  userId: string,
): Promise<AuthResult> {
  const caller = await requireAdmin(ctx, callerInput);
  if (caller.impersonatorId) throw forbidden('Exit the current impersonation first');
  if (userId === caller.userId) throw forbidden('You cannot impersonate yourself');
  await ctx.store.transaction((tx) =>
    decideAndAppend(
      tx,
      userId,
      { type: 'StartImpersonation', adminId: caller.userId, adminRole: caller.role },
      metaFor(caller.correlationId, { userId: caller.userId, role: caller.role }, ctx),
    ),
  );
  await revokeSession(ctx, caller.sessionId);
  const session = await createSession(ctx, userId, caller.userId);
  const user = (await getUserView(ctx.store, userId))!;
  return {
    user,
    isImpersonated: true,
    sessionToken: session.token,
    deviceToken: '',
    message: `You are now impersonating ${user.name}`,
  };
}

/** Ends an impersonation: ImpersonationEnded (actor: the admin), a fresh session of the admin. */
export async function exitImpersonation(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<AuthResult> {
  const caller = await resolveCaller(ctx, callerInput);
  const adminId = caller.impersonatorId;
  if (!adminId) throw precondition('You are not impersonating anyone');
  await ctx.store.transaction((tx) =>
    decideAndAppend(
      tx,
      caller.userId,
      { type: 'EndImpersonation', adminId },
      metaFor(caller.correlationId, { userId: adminId, role: 'admin' }, ctx),
    ),
  );
  await revokeSession(ctx, caller.sessionId);
  const session = await createSession(ctx, adminId);
  const admin = (await getUserView(ctx.store, adminId))!;
  return {
    user: admin,
    isImpersonated: false,
    sessionToken: session.token,
    deviceToken: '',
    message: 'Impersonation ended',
  };
}
