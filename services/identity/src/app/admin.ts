import { requireAdminRole } from '@meridian/platform/eventSourcing/guards';
import { MESSAGES } from '../domain/user.js';
import { countAdmins, getUserView, listUserViews, type UserView } from '../projections/userView.js';
import {
  actorOf,
  decideAndAppend,
  forgetUserSecrets,
  metaFor,
  resolveCaller,
  revokeAllSessions,
  type CallerInput,
  type IdentityContext,
  type ResolvedCaller,
} from './context.js';

/** The caller's role is the one in our store for the session's user, never one sent in a request. */
export async function requireAdmin(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<ResolvedCaller> {
  const caller = await resolveCaller(ctx, callerInput);
  requireAdminRole(caller.role, MESSAGES.notAuthorized);
  return caller;
}

export async function listUsers(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<UserView[]> {
  await requireAdmin(ctx, callerInput);
  return listUserViews(ctx.store);
}

/** Deletes a user (not oneself): UserDeleted, secrets forgotten, every session revoked. */
export async function deleteUser(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  userId: string,
): Promise<string> {
  const caller = await requireAdmin(ctx, callerInput);
  await ctx.store.transaction(async (tx) => {
    // The actor's role is read again inside the transaction (it may have changed since the check).
    const actorRole = (await getUserView(tx, caller.userId))?.role ?? '';
    await decideAndAppend(
      tx,
      userId,
      { type: 'DeleteUser', actorId: caller.userId, actorRole },
      metaFor(caller.correlationId, actorOf(caller), ctx),
    );
    await forgetUserSecrets(tx, userId);
  });
  await revokeAllSessions(ctx, userId);
  return 'User deleted successfully';
}

/**
 * Changes a user's role (subscriber, author, admin, suspended). Not one's own; never the last admin.
 * Suspension revokes the user's sessions at once.
 */
export async function upgradeUser(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: { userId: string; role: string },
): Promise<string> {
  const caller = await requireAdmin(ctx, callerInput);
  const role = input.role?.trim() ?? '';
  await ctx.store.transaction(async (tx) => {
    const adminCount = await countAdmins(tx);
    const actorRole = (await getUserView(tx, caller.userId))?.role ?? '';
    await decideAndAppend(
      tx,
      input.userId,
      { type: 'ChangeRole', actorId: caller.userId, actorRole, role, adminCount },
      metaFor(caller.correlationId, actorOf(caller), ctx),
    );
  });
  if (role === 'suspended') await revokeAllSessions(ctx, input.userId);
  return `User role updated to ${role}`;
}
