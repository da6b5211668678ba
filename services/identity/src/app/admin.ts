import { invalid } from '@meridian/platform/eventSourcing/errors';
import { requireAdminRole } from '@meridian/platform/eventSourcing/guards';
import { MESSAGES } from '../domain/user.js';
import {
  countAdmins,
  decodeUserCursor,
  getUserStats,
  getUserView,
  listUserPage,
  listUserViews,
  type UserView,
} from '../projections/userView.js';
import { searchUserPage } from './userSearch.js';
import {
  actorOf,
  decideAndAppend,
  forgetUserSecrets,
  metaFor,
  openUserView,
  type CallerInput,
  type IdentityContext,
  type ResolvedCaller,
} from './context.js';
import { resolveCaller, announceRevocation, revokeAllSessions } from './sessions.js';

/** The caller's role is the one in our store for the session's user, never one sent in a request. */
export async function requireAdmin(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<ResolvedCaller> {
  const caller = await resolveCaller(ctx, callerInput);
  requireAdminRole(caller.role, MESSAGES.notAuthorized);
  return caller;
}

export const MAX_USERS_PAGE = 500;
export const INVALID_USERS_PAGE = 'Invalid cursor or limit';

/**
 * A page of users (keyset: newest first), optionally only those whose name (at one of its words) or email
 * starts with `query` (any case; blind prefix tokens, app/userSearch.ts). limit 0: every user, as listUsers (the spec's unpaged answer).
 * `userId`: only that user (an admin screen about one user opened by its address), or none; not with a page
 * or a query.
 */
export async function listUsersPage(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: { limit: number; cursor: string; query: string; userId?: string },
): Promise<{ users: UserView[]; nextCursor: string }> {
  await requireAdmin(ctx, callerInput);
  const after = input.cursor ? decodeUserCursor(input.cursor) : null;
  if ((input.cursor && !after) || input.limit < 0 || input.limit > MAX_USERS_PAGE || input.query.length > 200)
    throw invalid(INVALID_USERS_PAGE);
  const open = (views: UserView[]) => Promise.all(views.map((v) => openUserView(ctx, v)));
  if (input.userId) {
    if (input.userId.length > 128 || input.limit || input.cursor || input.query)
      throw invalid(INVALID_USERS_PAGE);
    const view = await getUserView(ctx.store, input.userId);
    return { users: view ? await open([view]) : [], nextCursor: '' };
  }
  if (input.limit === 0 && !input.cursor && !input.query)
    return { users: await open(await listUserViews(ctx.store)), nextCursor: '' };
  const limit = input.limit || MAX_USERS_PAGE;
  const query = input.query.trim();
  if (query) return searchUserPage(ctx, ctx.store, { limit, after, query });
  const page = await listUserPage(ctx.store, { limit, after });
  return { users: await open(page.users), nextCursor: page.nextCursor };
}

/** The user statistics (total, verified, unverified, suspended) from the projection's counters. */
export async function userStats(ctx: IdentityContext, callerInput: CallerInput | undefined) {
  await requireAdmin(ctx, callerInput);
  return getUserStats(ctx.store);
}

/**
 * Deletes a user (not oneself): UserDeleted, secrets forgotten, the user's personal-data key destroyed (every
 * copy of their name, email, phone… anywhere, sealed with it, is unreadable from now on), every session revoked.
 */
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
      ctx,
      tx,
      userId,
      { type: 'DeleteUser', actorId: caller.userId, actorRole },
      metaFor(caller.correlationId, actorOf(caller), ctx),
    );
    await forgetUserSecrets(tx, userId);
    // the key goes in the same step as UserDeleted (decided above: the deletion is allowed); were the commit to
    // fail now, the admin's retry deletes a user whose data is already unreadable, never the other way round
    await ctx.personalData.shred(userId);
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
      ctx,
      tx,
      input.userId,
      { type: 'ChangeRole', actorId: caller.userId, actorRole, role, adminCount },
      metaFor(caller.correlationId, actorOf(caller), ctx),
    );
  });
  if (role === 'suspended') await revokeAllSessions(ctx, input.userId);
  // Any other role: the sessions stand, but a gateway's cached principal carries the old role.
  else await announceRevocation(ctx, { uid: input.userId });
  return `User role updated to ${role}`;
}
