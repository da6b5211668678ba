/**
 * Sessions (KeyValueStore: session:<sid>, user-sessions:<userId>, session-revoked:<sid>): opened at sign-in,
 * checked on every call (the live record, the user's role, an impersonation's age), refreshed while in use,
 * revoked one by one or all of a user's at once, each revocation announced to the gateways.
 */
import { unauthenticated } from '@meridian/platform/eventSourcing/errors';
import { getUserView, type UserView } from '../projections/userView.js';
import {
  endImpersonation,
  IMPERSONATION_TTL_MS,
  NOT_LOGGED_IN,
  openUserView,
  sealAddress,
  SESSION_REFRESH_AFTER_MS,
  SESSION_TTL_MS,
  type CallerInput,
  type IdentityContext,
  type ResolvedCaller,
  type SessionRecord,
} from './context.js';
import type { SessionRevocation } from './ports.js';

const sessionKey = (sid: string) => `session:${sid}`;
const userSessionsKey = (userId: string) => `user-sessions:${userId}`;
/**
 * A revoked session's tombstone. Authenticate's sliding refresh rewrites the record after reading it;
 * a revocation in between (logout, password change, suspension) would be undone by that write. So a
 * revocation writes the tombstone BEFORE deleting the record, a refresh checks it AFTER its write (and
 * deletes what it wrote), and every read refuses a record with a tombstone: whichever order the
 * steps interleave in, a revoked session stays revoked. It outlives any record a refresh could write.
 */
const revokedKey = (sid: string) => `session-revoked:${sid}`;
const REVOKED_TTL_MS = SESSION_TTL_MS + 60 * 60_000;
const isRevoked = async (ctx: IdentityContext, sid: string) => (await ctx.kv.get(revokedKey(sid))) !== null;

export async function createSession(
  ctx: IdentityContext,
  userId: string,
  impersonatorId: string | null = null,
): Promise<{ sessionId: string; token: string }> {
  const now = ctx.clock();
  const sessionId = ctx.crypto.randomToken();
  const ttlMs = impersonatorId ? IMPERSONATION_TTL_MS : SESSION_TTL_MS;
  const record: SessionRecord = { userId, impersonatorId, createdAt: now.toISOString() };
  await ctx.kv.set(sessionKey(sessionId), JSON.stringify(record), { ttlMs });
  // The sets keep the full term: their ttl is the whole set's, shared with the owner's other sessions.
  await ctx.kv.sadd(userSessionsKey(userId), sessionId, SESSION_TTL_MS);
  // An impersonation session dies with the admin's sessions too (suspension, deletion, password change).
  if (impersonatorId) await ctx.kv.sadd(userSessionsKey(impersonatorId), sessionId, SESSION_TTL_MS);
  return { sessionId, token: ctx.tokens.signSession({ sid: sessionId, sub: userId }, now, ttlMs) };
}

export async function readSession(ctx: IdentityContext, sessionId: string): Promise<SessionRecord | null> {
  if (!sessionId) return null;
  const raw = await ctx.kv.get(sessionKey(sessionId));
  if (!raw || (await isRevoked(ctx, sessionId))) return null;
  return JSON.parse(raw) as SessionRecord;
}

/** Tells the gateways (after the KV says so: a gateway that asks again is refused). */
export async function announceRevocation(ctx: IdentityContext, revocation: SessionRevocation): Promise<void> {
  await ctx.revocations?.publish(revocation);
}

export async function revokeSession(ctx: IdentityContext, sessionId: string): Promise<void> {
  const raw = await ctx.kv.get(sessionKey(sessionId));
  const record = raw ? (JSON.parse(raw) as SessionRecord) : null;
  await ctx.kv.set(revokedKey(sessionId), '1', { ttlMs: REVOKED_TTL_MS });
  await ctx.kv.del(sessionKey(sessionId));
  if (record) {
    await ctx.kv.srem(userSessionsKey(record.userId), sessionId);
    if (record.impersonatorId) await ctx.kv.srem(userSessionsKey(record.impersonatorId), sessionId);
  }
  await announceRevocation(ctx, { sid: sessionId });
}

/** Revokes every session of a user (and impersonation sessions they hold), except `keep`. */
export async function revokeAllSessions(ctx: IdentityContext, userId: string, keep?: string): Promise<void> {
  const ids = await ctx.kv.smembers(userSessionsKey(userId));
  for (const sid of ids) {
    if (sid === keep) continue;
    await revokeSession(ctx, sid);
    await ctx.kv.srem(userSessionsKey(userId), sid);
  }
  // Also what no set lists: every cached session of the user, or impersonating as the user.
  if (!keep) await announceRevocation(ctx, { uid: userId });
}

/** What a sign-in answers: the user's view, a session and, when the browser became trusted, its device token. */
export interface AuthResult {
  user: UserView;
  isImpersonated: boolean;
  sessionToken: string;
  deviceToken: string;
  message: string;
}

/**
 * Opens a session for the user (for `impersonatorId` when an admin acts as them) and answers with their view
 * (`view`: the one the caller has just read and checked, else read here).
 */
export async function signedIn(
  ctx: IdentityContext,
  userId: string,
  message: string | ((user: UserView) => string),
  options: { deviceToken?: string; impersonatorId?: string; view?: UserView } = {},
): Promise<AuthResult> {
  const session = await createSession(ctx, userId, options.impersonatorId ?? null);
  const user = await openUserView(ctx, options.view ?? (await getUserView(ctx.store, userId))!);
  return {
    user,
    isImpersonated: !!options.impersonatorId,
    sessionToken: session.token,
    deviceToken: options.deviceToken ?? '',
    message: typeof message === 'string' ? message : message(user),
  };
}

/**
 * An impersonation session IMPERSONATION_TTL_MS old (by the context's clock): revoked, and the first
 * reader to see it (an only-if-absent marker) records ImpersonationEnded with the admin as actor.
 * The signed token expires at the same moment, so most late requests are refused by its expiry
 * before they reach here; this is the check on the record itself.
 */
async function endedImpersonation(
  ctx: IdentityContext,
  sessionId: string,
  record: SessionRecord,
): Promise<boolean> {
  const adminId = record.impersonatorId;
  if (!adminId || ctx.clock().getTime() - Date.parse(record.createdAt) < IMPERSONATION_TTL_MS) return false;
  const first = await ctx.kv.set(`impersonation-expired:${sessionId}`, '1', {
    ttlMs: REVOKED_TTL_MS,
    onlyIfAbsent: true,
  });
  await revokeSession(ctx, sessionId);
  if (first && (await getUserView(ctx.store, record.userId)))
    await endImpersonation(ctx, record.userId, adminId);
  return true;
}

/**
 * Who may act on a session: the user must exist and not be suspended; an impersonating admin must
 * still be an admin and the impersonation younger than IMPERSONATION_TTL_MS. Returns the user's
 * view, or null (the session is then revoked).
 */
async function liveSessionUser(
  ctx: IdentityContext,
  sessionId: string,
  record: SessionRecord,
): Promise<UserView | null> {
  if (await endedImpersonation(ctx, sessionId, record)) return null;
  const view = await getUserView(ctx.store, record.userId);
  let ok = !!view && view.role !== 'suspended';
  if (ok && record.impersonatorId) {
    const admin = await getUserView(ctx.store, record.impersonatorId);
    ok = admin?.role === 'admin';
  }
  if (!ok) {
    await revokeSession(ctx, sessionId);
    return null;
  }
  return view;
}

/** Checks a caller passed by the gateway against the live session record (never trusts ids or roles blindly). */
export async function resolveCaller(
  ctx: IdentityContext,
  caller: CallerInput | undefined,
): Promise<ResolvedCaller> {
  if (!caller?.sessionId || !caller.userId) throw unauthenticated(NOT_LOGGED_IN);
  const record = await readSession(ctx, caller.sessionId);
  if (!record || record.userId !== caller.userId) throw unauthenticated(NOT_LOGGED_IN);
  const view = await liveSessionUser(ctx, caller.sessionId, record);
  if (!view) throw unauthenticated(NOT_LOGGED_IN);
  return {
    userId: record.userId,
    sessionId: caller.sessionId,
    impersonatorId: record.impersonatorId,
    role: view.role,
    view,
    correlationId: caller.correlationId || ctx.crypto.newId(),
    ...(caller.address
      ? { address: await sealAddress(ctx, record.impersonatorId ?? record.userId, caller.address) }
      : {}),
  };
}

export interface Principal {
  userId: string;
  sessionId: string;
  role: string;
  impersonatorId: string;
  refreshedSessionToken: string;
  /** The session's user (what GetUser answers for this session). */
  view: UserView;
}

/** Validates a session token: signature and expiry, the live record, the user's current role. */
export async function authenticate(ctx: IdentityContext, token: string): Promise<Principal> {
  const now = ctx.clock();
  const claims = token ? ctx.tokens.verifySession(token, now) : null;
  if (!claims) throw unauthenticated(NOT_LOGGED_IN);
  const record = await readSession(ctx, claims.sid);
  if (!record || record.userId !== claims.sub) throw unauthenticated(NOT_LOGGED_IN);
  const view = await liveSessionUser(ctx, claims.sid, record);
  if (!view) throw unauthenticated(NOT_LOGGED_IN);
  let refreshedSessionToken = '';
  if (!record.impersonatorId && now.getTime() - claims.iat * 1000 >= SESSION_REFRESH_AFTER_MS) {
    // Sliding refresh: a fresh token for the same session, and the record lives another full term,
    // unless it was revoked since it was read (see revokedKey: the write first, then the check).
    // An impersonation session is never refreshed: it ends IMPERSONATION_TTL_MS after it started.
    await ctx.kv.set(sessionKey(claims.sid), JSON.stringify(record), { ttlMs: SESSION_TTL_MS });
    if (await isRevoked(ctx, claims.sid)) {
      await ctx.kv.del(sessionKey(claims.sid));
      throw unauthenticated(NOT_LOGGED_IN);
    }
    await ctx.kv.sadd(userSessionsKey(record.userId), claims.sid, SESSION_TTL_MS);
    refreshedSessionToken = ctx.tokens.signSession(
      { sid: claims.sid, sub: record.userId },
      now,
      SESSION_TTL_MS,
    );
  }
  return {
    userId: record.userId,
    sessionId: claims.sid,
    role: view.role,
    impersonatorId: record.impersonatorId ?? '',
    refreshedSessionToken,
    view,
  };
}
