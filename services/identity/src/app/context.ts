/**
 * Everything a use case needs, and the small helpers they share: running a User command inside a
 * transaction (append + inline projections), state-stored deciders, rate limits, devices and passwords;
 * sessions are in sessions.ts.
 */
import { DomainError, WriteConflict, invalid } from '@meridian/platform/eventSourcing/errors';
import { retryAfterConflict } from '@meridian/platform/util/async';
import { type CommandStream, handleCommand, loadStream } from '@meridian/platform/app/commandHandler';
import { eventMeta } from '@meridian/platform/app/requestContext';
import type { Actor, Decider, DomainEvent, EventMeta } from '@meridian/platform/eventSourcing/types';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import type { Logger } from '@meridian/platform/logger';
import { isSealed, isUserKeyDestroyed, type PersonalData } from '@meridian/platform/personalData';
import {
  isValidEmail,
  MESSAGES,
  normalizeEmail,
  toUserStreamId,
  userDecider,
  type UserCommand,
  type UserEvent,
  type UserState,
} from '../domain/user.js';
import { projectInline, type UserView } from '../projections/userView.js';
import type { SearchTokenizer } from '../projections/searchTokens.js';
import type {
  IdentityCrypto,
  OidcVerifier,
  PasswordHasher,
  SessionRevocationPublisher,
  TokenSigner,
} from './ports.js';

export interface RateLimit {
  max: number;
  windowMs: number;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * Per-email and per-client (IP) budgets. Over budget: RESOURCE_EXHAUSTED with RATE_LIMITED_MESSAGE.
 * Password logins count FAILURES only (a right password gives its attempt back), per account and browser
 * (OWASP's device cookies): `loginPerDevice` for each browser the account trusts, `loginPerEmail` for every
 * other browser together; so strangers' wrong passwords never lock the owner's known browsers, whose lock
 * lasts at most KNOWN_BROWSER_MAX_LOCK_MS. Code logins are bounded by each code's 5 attempts
 * (domain/loginCode.ts) and the codes `sendCodePerEmail` lets the account be sent, not by a per-email budget
 * that would refuse the owner's freshly mailed code.
 */
export const DEFAULT_RATE_LIMITS = {
  /** wrong passwords from browsers the account does not trust, together (and external sign-ins, per email) */
  loginPerEmail: { max: 10, windowMs: 15 * MIN },
  loginPerClient: { max: 50, windowMs: 15 * MIN },
  /** wrong passwords from one browser the account trusts: a budget of its own, per account and browser */
  loginPerDevice: { max: 10, windowMs: 15 * MIN },
  sendCodePerEmail: { max: 5, windowMs: 15 * MIN },
  sendCodePerClient: { max: 20, windowMs: 15 * MIN },
  codeLoginPerClient: { max: 50, windowMs: 15 * MIN },
  registerPerEmail: { max: 5, windowMs: HOUR },
  registerPerClient: { max: 20, windowMs: HOUR },
  forgotPerEmail: { max: 5, windowMs: HOUR },
  forgotPerClient: { max: 20, windowMs: HOUR },
  verificationPerUser: { max: 5, windowMs: HOUR },
} satisfies Record<string, RateLimit>;
export type RateLimits = typeof DEFAULT_RATE_LIMITS;

export const RATE_LIMITED_MESSAGE = 'Too many attempts. Please try again later';
/** The longest a browser the account trusts is refused for its own wrong passwords, whatever the config. */
export const KNOWN_BROWSER_MAX_LOCK_MS = 15 * MIN;
export const NOT_LOGGED_IN = 'Not authorized, please login';

export const SESSION_TTL_MS = 24 * HOUR;
/** An impersonation session ends by itself this long after it started, never refreshed. */
export const IMPERSONATION_TTL_MS = 30 * MIN;
/** A session token older than this is replaced by a fresh one on Authenticate (sliding refresh). */
export const SESSION_REFRESH_AFTER_MS = HOUR;
export const DEVICE_TTL_MS = 365 * 24 * HOUR;

export const CREDENTIALS = 'credentials';
export const TRUSTED_DEVICES = 'trusted-devices';
export const LOGIN_CODES = 'login-codes';
export const TOKENS = 'tokens';

export interface CredentialsDoc {
  userId: string;
  /** null: no password (an identity-provider account, or cleared) */
  passwordHash: string | null;
  updatedAt: string;
}

export interface TrustedDeviceDoc {
  userId: string;
  deviceId: string;
  trustedAt: string;
}

export interface IdentityContext {
  store: ServiceStore;
  kv: KeyValueStore;
  clock: () => Date;
  passwords: PasswordHasher;
  tokens: TokenSigner;
  crypto: IdentityCrypto;
  /** null when Google sign-in is not configured (no GOOGLE_CLIENT_ID). */
  oidc: OidcVerifier | null;
  logger: Logger;
  limits: RateLimits;
  /** Tells every gateway a session or a user's sessions ended (absent: gateways never cache, see auth.ts). */
  revocations?: SessionRevocationPublisher;
  /**
   * Seals personal values with the user's own key before they enter an event or a read model, and opens them
   * where they are answered (crypto-shredding: deleting the user destroys the key; identity's vault holds them).
   */
  personalData: PersonalData;
}

/** The user's personal values sealed with their key ('' stays '': nothing to hide, and it reads as absent). */
export async function sealPersonal<T extends Record<string, string>>(
  ctx: Pick<IdentityContext, 'personalData'>,
  userId: string,
  values: T,
): Promise<T> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) out[k] = v ? await ctx.personalData.seal(userId, v) : v;
  return out as T;
}

/** The personal values of a user view opened (a deleted user's key is gone: '[deleted]'). */
export async function openUserView(
  ctx: Pick<IdentityContext, 'personalData'>,
  view: UserView,
): Promise<UserView> {
  const pd = ctx.personalData;
  const [name, email, phone, country, bio, photo] = await Promise.all(
    [view.name, view.email, view.phone, view.country, view.bio, view.photo].map((v) => pd.open(v)),
  );
  return { ...view, name, email, phone, country, bio, photo };
}

/** The authenticated caller of an RPC as the gateway passes it (common.v1.Caller). */
export interface CallerInput {
  userId: string;
  sessionId: string;
  impersonatorId?: string;
  correlationId?: string;
  /** The client address the gateway saw (the audit trail's "from which address"). */
  address?: string;
}

export interface SessionRecord {
  userId: string;
  impersonatorId: string | null;
  createdAt: string;
}

/** A caller checked against the live session record and the store. */
export interface ResolvedCaller {
  userId: string;
  sessionId: string;
  impersonatorId: string | null;
  role: string;
  view: UserView;
  correlationId: string;
  address?: string;
}

export function metaFor(
  correlationId: string | undefined,
  actor: Actor | undefined,
  ctx: IdentityContext,
): EventMeta {
  return eventMeta(correlationId || ctx.crypto.newId(), actor);
}

export function actorOf(caller: ResolvedCaller): Actor {
  const actor: Actor = caller.impersonatorId
    ? { userId: caller.userId, role: caller.role, impersonatorId: caller.impersonatorId }
    : { userId: caller.userId, role: caller.role };
  return caller.address ? { ...actor, address: caller.address } : actor;
}

// ---------- the User aggregate inside a transaction (the platform's command handler) ----------

/** What the user search's tokens are made with: the keyed hash, and the user's key to open name and email. */
export const searchTokenizerOf = (
  ctx: Pick<IdentityContext, 'crypto' | 'personalData'>,
): SearchTokenizer => ({
  token: (term) => ctx.crypto.searchToken(term),
  open: (value) => ctx.personalData.openOrNull(value),
});

const userStreamOf = (
  ctx: Pick<IdentityContext, 'crypto' | 'personalData'>,
): CommandStream<UserCommand, UserEvent, UserState> => {
  const search = searchTokenizerOf(ctx);
  return {
    decider: userDecider,
    streamIdOf: toUserStreamId,
    project: (tx, events) => projectInline(tx, events, search),
  };
};

/** Loading only (nothing is appended through it, so nothing is projected). */
const USER_STREAM: CommandStream<UserCommand, UserEvent, UserState> = {
  decider: userDecider,
  streamIdOf: toUserStreamId,
  project: async () => {},
};

export const loadUserState = (tx: StoreTx, userId: string) => loadStream(tx, USER_STREAM, userId);

/** Decides a User command on the current stream, appends (expected version) and projects inline. */
export const decideAndAppend = (
  ctx: Pick<IdentityContext, 'crypto' | 'personalData'>,
  tx: StoreTx,
  userId: string,
  command: UserCommand | ((state: UserState) => UserCommand),
  meta: EventMeta,
) => handleCommand(tx, userStreamOf(ctx), userId, command, meta);

/** decideAndAppend on the caller's own stream, the caller as actor under their correlation id. */
export const appendAsCaller = (
  ctx: IdentityContext,
  tx: StoreTx,
  caller: ResolvedCaller,
  command: UserCommand | ((state: UserState) => UserCommand),
) => decideAndAppend(ctx, tx, caller.userId, command, metaFor(caller.correlationId, actorOf(caller), ctx));

/**
 * Records the end of an admin's impersonation of `userId` (EndImpersonation in its own transaction), the
 * admin as actor: by the caller's correlation id and address when a caller ends it.
 */
export const endImpersonation = (
  ctx: IdentityContext,
  userId: string,
  adminId: string,
  by: { correlationId?: string; address?: string } = {},
) =>
  ctx.store.transaction((tx) =>
    decideAndAppend(
      ctx,
      tx,
      userId,
      { type: 'EndImpersonation', adminId },
      metaFor(
        by.correlationId,
        { userId: adminId, role: 'admin', ...(by.address ? { address: by.address } : {}) },
        ctx,
      ),
    ),
  );

// ---------- state-stored deciders (login codes, one-time tokens: never published) ----------

export async function decideStateStored<C, E extends DomainEvent, S>(
  tx: StoreTx,
  collection: string,
  id: string,
  decider: Decider<C, E, S>,
  command: C,
  extra: Record<string, string> = {},
): Promise<{ state: S; events: E[] }> {
  const doc = await tx.get<{ state: S }>(collection, id);
  const state = doc?.state ?? decider.initialState();
  const events = decider.decide(command, state);
  const next = events.reduce(decider.evolve, state);
  if (events.length > 0) await tx.put(collection, id, { ...extra, state: next });
  return { state: next, events };
}

// ---------- rate limits ----------

export async function rateLimit(ctx: IdentityContext, key: string, limit: RateLimit): Promise<void> {
  const count = await ctx.kv.incr(`rl:${key}`, limit.windowMs);
  if (count > limit.max) throw new DomainError('rate_limited', RATE_LIMITED_MESSAGE);
}

/**
 * Counts one attempt against a budget of FAILURES before it is checked: refused (RATE_LIMITED_MESSAGE) when
 * `limit.max` attempts that failed are already in the window. Counting first keeps concurrent guesses inside the
 * budget; `succeeded()` gives the attempt back once it proved not to be a failure, so successes never count.
 */
export async function countFailure(
  ctx: IdentityContext,
  key: string,
  limit: RateLimit,
): Promise<{ succeeded(): Promise<void> }> {
  const counter = `rl:${key}`;
  const count = await ctx.kv.incr(counter, limit.windowMs);
  if (count > limit.max) throw new DomainError('rate_limited', RATE_LIMITED_MESSAGE);
  return {
    async succeeded() {
      // a decrement that keeps the window's end (the store has no DECR): again while others count, and
      // given up (the attempt stays counted until the window ends) when they keep winning
      await retryAfterConflict(10, async () => {
        const [value, ttl] = await Promise.all([ctx.kv.get(counter), ctx.kv.ttl(counter)]);
        const n = Number(value);
        if (value === null || ttl <= 0 || !(n > 0)) return;
        if (!(await ctx.kv.compareAndSet(counter, value, n > 1 ? String(n - 1) : null, ttl)))
          throw new WriteConflict(`${counter} changed meanwhile`);
      }).catch((err: unknown) => {
        if (!(err instanceof WriteConflict)) throw err;
      });
    },
  };
}

/** The actions limited per email and per client, with the key prefix each counts under. */
const EMAIL_AND_CLIENT_LIMITED = {
  login: 'login',
  sendCode: 'send-code',
  register: 'register',
  forgot: 'forgot',
} as const;

/**
 * Counts an attempt of `action` against its per-client (IP) and per-email budgets (`<action>PerClient`,
 * `<action>PerEmail`); the email counts in its canonical form, so case and plus-tags share one budget, under its
 * blind index (a keyed hash: the key-value store never holds an address or a plain hash of one).
 */
export async function rateLimitEmailAndClient(
  ctx: IdentityContext,
  action: keyof typeof EMAIL_AND_CLIENT_LIMITED,
  email: string,
  clientIp: string | undefined,
): Promise<void> {
  const key = EMAIL_AND_CLIENT_LIMITED[action];
  if (clientIp) await rateLimit(ctx, `${key}:ip:${clientIp}`, ctx.limits[`${action}PerClient`]);
  await rateLimit(ctx, `${key}:email:${ctx.crypto.emailIndex(email)}`, ctx.limits[`${action}PerEmail`]);
}

/** The normalised address typed in a form's email field: refused when empty (`missing`) or malformed. */
export function formEmail(value: string | undefined, missing: string): string {
  const raw = value?.trim() ?? '';
  if (!raw) throw invalid(missing);
  if (!isValidEmail(raw)) throw invalid(MESSAGES.invalidEmail);
  return normalizeEmail(raw);
}

/**
 * A client address as identity's events keep it (the actor's address: the audit trail's "from which
 * address", a user's own security events): personal data, sealed with the key of the person at the keyboard
 * (the impersonating admin while impersonating), so a deleted user's addresses are unreadable everywhere.
 * '' when that person's key is gone (deleted meanwhile): nothing readable is written for them.
 */
export async function sealAddress(
  ctx: Pick<IdentityContext, 'personalData'>,
  ownerId: string,
  address: string,
): Promise<string> {
  if (!address || isSealed(address)) return address;
  try {
    return await ctx.personalData.seal(ownerId, address);
  } catch (err) {
    if (isUserKeyDestroyed(err)) return '';
    throw err;
  }
}

// ---------- devices ----------

export function deviceIdOf(ctx: IdentityContext, deviceToken: string | undefined): string | null {
  if (!deviceToken) return null;
  return ctx.tokens.verifyDevice(deviceToken, ctx.clock())?.deviceId ?? null;
}

export async function isTrustedDevice(
  ctx: IdentityContext,
  userId: string,
  deviceId: string | null,
): Promise<boolean> {
  if (!deviceId) return false;
  return (await ctx.store.get<TrustedDeviceDoc>(TRUSTED_DEVICES, `${userId}:${deviceId}`)) !== null;
}

/** Records the browser as trusted for the user (inside tx) and returns its (possibly new) device token. */
export async function trustDevice(
  ctx: IdentityContext,
  tx: StoreTx,
  userId: string,
  presentedToken: string | undefined,
): Promise<string> {
  const now = ctx.clock();
  const deviceId = deviceIdOf(ctx, presentedToken) ?? ctx.crypto.newId();
  await tx.put<TrustedDeviceDoc>(TRUSTED_DEVICES, `${userId}:${deviceId}`, {
    userId,
    deviceId,
    trustedAt: now.toISOString(),
  });
  return ctx.tokens.signDevice(deviceId, now, DEVICE_TTL_MS);
}

/** Records the user's password hash inside tx (null: no password, as for an identity-provider account). */
export async function setPassword(
  tx: StoreTx,
  userId: string,
  passwordHash: string | null,
  now: Date,
): Promise<void> {
  await tx.put<CredentialsDoc>(CREDENTIALS, userId, { userId, passwordHash, updatedAt: now.toISOString() });
}

export async function forgetUserSecrets(tx: StoreTx, userId: string): Promise<void> {
  await tx.delete(CREDENTIALS, userId);
  await tx.delete(LOGIN_CODES, userId);
  for (const d of await tx.find<TrustedDeviceDoc>(TRUSTED_DEVICES, { where: { userId } })) {
    await tx.delete(TRUSTED_DEVICES, `${userId}:${d.deviceId}`);
  }
}
