import { forbidden, precondition } from '@meridian/platform/eventSourcing/errors';
import {
  decideAndAppend,
  endImpersonation,
  metaFor,
  type CallerInput,
  type IdentityContext,
} from './context.js';
import { revokeSession, resolveCaller, signedIn, type AuthResult } from './sessions.js';
import { requireAdmin } from './admin.js';

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
      ctx,
      tx,
      userId,
      { type: 'StartImpersonation', adminId: caller.userId, adminRole: caller.role },
      metaFor(
        caller.correlationId,
        { userId: caller.userId, role: caller.role, ...(caller.address ? { address: caller.address } : {}) },
        ctx,
      ),
    ),
  );
  await revokeSession(ctx, caller.sessionId);
  return signedIn(ctx, userId, (user) => `You are now impersonating ${user.name}`, {
    impersonatorId: caller.userId,
  });
}

/** Ends an impersonation: ImpersonationEnded (actor: the admin), a fresh session of the admin. */
export async function exitImpersonation(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<AuthResult> {
  const caller = await resolveCaller(ctx, callerInput);
  const adminId = caller.impersonatorId;
  if (!adminId) throw precondition('You are not impersonating anyone');
  await endImpersonation(ctx, caller.userId, adminId, caller);
  await revokeSession(ctx, caller.sessionId);
  return signedIn(ctx, adminId, 'Impersonation ended');
}
