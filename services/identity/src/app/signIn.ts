import { forbidden, invalid, precondition, unauthenticated } from '@meridian/platform/eventSourcing/errors';
import { assertCanSignIn, checkProfile, isValidEmail, MESSAGES, normalizeEmail } from '../domain/user.js';
import { INVALID_LOGIN_CODE, LOGIN_CODE_TTL_MS, loginCodeDecider } from '../domain/loginCode.js';
import { findUserIdByEmail, getUserView, type UserView } from '../projections/userView.js';
import {
  CREDENTIALS,
  countFailure,
  decideAndAppend,
  decideStateStored,
  deviceIdOf,
  formEmail,
  isTrustedDevice,
  KNOWN_BROWSER_MAX_LOCK_MS,
  loadUserState,
  forgetUserSecrets,
  LOGIN_CODES,
  metaFor,
  rateLimit,
  rateLimitEmailAndClient,
  setPassword,
  trustDevice,
  type CallerInput,
  type CredentialsDoc,
  type IdentityContext,
} from './context.js';
import { readSession, revokeAllSessions, revokeSession, signedIn, type AuthResult } from './sessions.js';
import { newReferralCode, registerVerified } from './register.js';
import { revokeTokens } from './tokens.js';
import { recordSignIn } from './securityLog.js';
import type { OidcIdentity } from './ports.js';
import type { SignInMethod } from '../projections/audit.js';

export const INVALID_CREDENTIALS = 'Invalid email or password';
export const NEW_DEVICE = 'New browser or device detected';
export const LOGIN_CODE_SENT = 'If the email is registered, a login code has been sent to it';
export const LOGIN_SUCCESSFUL = 'Login Successful';

let dummyHash: Promise<string> | null = null;
/** A hash to verify against when the email is unknown, so both answers take the same time. */
const timingDummy = (ctx: IdentityContext) =>
  (dummyHash ??= ctx.passwords.hash('timing-equaliser-not-a-password'));

function assertNotSuspended(view: UserView | null): void {
  if (view?.role === 'suspended') throw forbidden(MESSAGES.suspended);
}

export interface LoginInput {
  email: string;
  password: string;
  deviceToken?: string;
  clientIp?: string;
}

/**
 * Email + password. Unknown email and wrong password answer the same ('Invalid email or password',
 * INVALID_ARGUMENT) after the same argon2 work. A correct password from a browser this user has not
 * trusted answers FAILED_PRECONDITION 'New browser or device detected' (the client then asks for a
 * login code). Suspended: PERMISSION_DENIED. Wrong passwords count per account and browser
 * (context.ts DEFAULT_RATE_LIMITS): a browser the account trusts against a budget of its own
 * (`loginPerDevice`, a lock of at most KNOWN_BROWSER_MAX_LOCK_MS), every other browser against the
 * account's (`loginPerEmail`) and its client address's; so strangers' failures never lock the owner's
 * known browser. A right password does not count.
 */
export async function login(ctx: IdentityContext, input: LoginInput): Promise<AuthResult> {
  if (!input.password) throw invalid(MESSAGES.allFieldsRequired);
  const email = formEmail(input.email, MESSAGES.allFieldsRequired);
  const userId = await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex);
  const deviceId = deviceIdOf(ctx, input.deviceToken);
  const trusted = !!userId && (await isTrustedDevice(ctx, userId, deviceId));
  let attempt;
  if (trusted) {
    const { max, windowMs } = ctx.limits.loginPerDevice;
    attempt = await countFailure(ctx, `login-failures:browser:${userId}:${deviceId}`, {
      max,
      windowMs: Math.min(windowMs, KNOWN_BROWSER_MAX_LOCK_MS),
    });
  } else {
    if (input.clientIp) await rateLimit(ctx, `login:ip:${input.clientIp}`, ctx.limits.loginPerClient);
    attempt = await countFailure(
      ctx,
      `login-failures:email:${ctx.crypto.emailIndex(email)}`,
      ctx.limits.loginPerEmail,
    );
  }
  const creds = userId ? await ctx.store.get<CredentialsDoc>(CREDENTIALS, userId) : null;
  const ok = await ctx.passwords.verify(creds?.passwordHash ?? (await timingDummy(ctx)), input.password);
  if (!userId || !creds?.passwordHash || !ok) throw invalid(INVALID_CREDENTIALS);
  await attempt.succeeded();
  const view = await getUserView(ctx.store, userId);
  if (!view) throw invalid(INVALID_CREDENTIALS);
  assertNotSuspended(view);
  if (!trusted) throw precondition(NEW_DEVICE);
  const result = await signedIn(ctx, userId, LOGIN_SUCCESSFUL, { view });
  await recordSignIn(ctx, {
    userId,
    role: view.role,
    method: 'password',
    newDevice: false,
    address: input.clientIp,
  });
  return result;
}

export interface SendLoginCodeInput {
  email: string;
  clientIp?: string;
  correlationId?: string;
}

/**
 * Mails a 6-digit code (LoginCodeRequested carries it sealed). The same answer whether or not the
 * email belongs to an account that may sign in: no enumeration.
 */
export async function sendLoginCode(ctx: IdentityContext, input: SendLoginCodeInput): Promise<string> {
  const email = formEmail(input.email, MESSAGES.enterEmail);
  await rateLimitEmailAndClient(ctx, 'sendCode', email, input.clientIp);
  const userId = await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex);
  if (!userId) return LOGIN_CODE_SENT;
  const code = ctx.crypto.randomDigits(6);
  const now = ctx.clock();
  await ctx.store.transaction(async (tx) => {
    const { state } = await loadUserState(tx, userId);
    if (state.status !== 'active' || state.role === 'suspended') return;
    await decideStateStored(tx, LOGIN_CODES, userId, loginCodeDecider, {
      type: 'IssueLoginCode',
      codeHash: ctx.crypto.keyedHash(`${userId}:${code}`),
      now,
    });
    await decideAndAppend(
      ctx,
      tx,
      userId,
      {
        type: 'RequestLoginCode',
        sealedCode: ctx.crypto.seal(code),
        expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_MS),
      },
      metaFor(input.correlationId, { userId, role: state.role }, ctx),
    );
  });
  return LOGIN_CODE_SENT;
}

export interface LoginWithCodeInput {
  email: string;
  loginCode: string;
  deviceToken?: string;
  clientIp?: string;
}

/**
 * The code from the mailbox: 15 minutes, 5 wrong attempts, single use; a new code counts its own attempts,
 * so the owner's freshly mailed code works whoever guessed before (domain/loginCode.ts); a client address
 * has a budget of attempts (`codeLoginPerClient`). On success the browser becomes trusted: the
 * answer carries a device token (long-lived cookie) and a session token. A suspension is told only to
 * whoever holds a valid code; anyone else gets the wrong-code answer.
 */
export async function loginWithCode(ctx: IdentityContext, input: LoginWithCodeInput): Promise<AuthResult> {
  const code = input.loginCode?.trim() ?? '';
  if (!code) throw invalid('Please fill in the login code');
  if (code.length !== 6) throw invalid('Access code must be 6 characters');
  const email = formEmail(input.email, MESSAGES.allFieldsRequired);
  if (input.clientIp) await rateLimit(ctx, `code-login:ip:${input.clientIp}`, ctx.limits.codeLoginPerClient);
  const userId = await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex);
  if (!userId || !/^\d{6}$/.test(code)) throw invalid(INVALID_LOGIN_CODE);

  const now = ctx.clock();
  const wasTrusted = await isTrustedDevice(ctx, userId, deviceIdOf(ctx, input.deviceToken));
  const outcome = await ctx.store.transaction(async (tx) => {
    const { events } = await decideStateStored(tx, LOGIN_CODES, userId, loginCodeDecider, {
      type: 'AttemptLoginCode',
      codeHash: ctx.crypto.keyedHash(`${userId}:${code}`),
      now,
    });
    if (events.some((e) => e.type === 'LoginCodeAttemptFailed')) return { ok: false as const };
    // the right code: only now may the answer say the account is suspended (the code stays unused)
    const view = await getUserView(tx, userId);
    assertNotSuspended(view);
    return { ok: true as const, view, deviceToken: await trustDevice(ctx, tx, userId, input.deviceToken) };
  });
  // A wrong code is recorded (attempts count) and only then refused.
  if (!outcome.ok) throw invalid(INVALID_LOGIN_CODE);
  const view = outcome.view ?? undefined;
  const result = await signedIn(ctx, userId, LOGIN_SUCCESSFUL, { deviceToken: outcome.deviceToken, view });
  await recordSignIn(ctx, {
    userId,
    role: view?.role,
    method: 'code',
    newDevice: !wasTrusted,
    address: input.clientIp,
  });
  return result;
}

export interface GoogleLoginInput {
  credential: string;
  deviceToken?: string;
  clientIp?: string;
  correlationId?: string;
}

export const INVALID_GOOGLE = 'Google sign-in failed: invalid credential';
export const GOOGLE_NOT_AVAILABLE = 'Google sign-in is not available';

/**
 * Sign-in with a Google ID token the browser got itself: signature against the issuer's JWKS, issuer,
 * audience, expiry (ctx.oidc); then the account rules of every external sign-in (externalSignIn).
 */
export async function googleLogin(ctx: IdentityContext, input: GoogleLoginInput): Promise<AuthResult> {
  // switched off (no GOOGLE_CLIENT_ID) is how this install is, not a passing outage: a permanent 400
  if (!ctx.oidc) throw precondition(GOOGLE_NOT_AVAILABLE, 'GOOGLE_SIGN_IN_OFF');
  if (!input.credential) throw invalid(INVALID_GOOGLE);
  let identity;
  try {
    identity = await ctx.oidc.verify(input.credential, ctx.clock());
  } catch (err) {
    ctx.logger.info({ err: (err as Error).message }, 'google credential refused');
    throw unauthenticated(INVALID_GOOGLE);
  }
  return externalSignIn(ctx, { ...input, provider: 'Google', method: 'google', identity });
}

export interface ExternalLoginInput {
  /** The provider's display name (its security event names it). */
  provider: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
  picture: string;
  deviceToken?: string;
  clientIp?: string;
  correlationId?: string;
}

export const INVALID_EXTERNAL = 'Sign-in failed: the provider gave no subject or email';

/**
 * Sign-in through a configured OpenID Connect provider: the claims of an ID token the gateway checked at
 * the end of its authorization code flow (gateway/src/http/oidcRoutes.ts). Recorded as `oidc:<provider>`.
 */
export async function externalLogin(ctx: IdentityContext, input: ExternalLoginInput): Promise<AuthResult> {
  const provider = input.provider.trim().slice(0, 100);
  if (!provider || !input.subject || !input.email) throw invalid(INVALID_EXTERNAL);
  const { subject, email, emailVerified, name, picture } = input;
  return externalSignIn(ctx, {
    ...input,
    provider,
    method: `oidc:${provider}`,
    identity: { subject, email, emailVerified, name, picture },
  });
}

/**
 * The account rules of a sign-in through an identity provider (Google's ID token, an OIDC provider's
 * flow): the email must be verified by the provider. Creates the user (verified) or links the existing
 * one by canonical email. Linking to a never-verified account verifies it and takes it back from whoever
 * registered the address first: its password, login code, mailed links, trusted browsers and every
 * session end. Suspended or deleted accounts are refused. The browser becomes trusted; the sign-in is a
 * security event with `method`.
 */
async function externalSignIn(
  ctx: IdentityContext,
  input: {
    provider: string;
    method: SignInMethod;
    identity: OidcIdentity;
    deviceToken?: string;
    clientIp?: string;
    correlationId?: string;
  },
): Promise<AuthResult> {
  const { identity } = input;
  if (!identity.emailVerified || !isValidEmail(identity.email))
    throw invalid(`Your ${input.provider} email address is not verified`);
  const email = normalizeEmail(identity.email);
  await rateLimitEmailAndClient(ctx, 'login', email, input.clientIp);
  const now = ctx.clock();
  const existing = await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex);
  if (existing) assertNotSuspended(await getUserView(ctx.store, existing));
  const userId = existing ?? ctx.crypto.newId();
  const wasTrusted = !!existing && (await isTrustedDevice(ctx, existing, deviceIdOf(ctx, input.deviceToken)));
  const referralCode = existing ? '' : await newReferralCode(ctx);

  const { deviceToken, takenBack } = await ctx.store.transaction(async (tx) => {
    let takenBack = false;
    const meta = metaFor(input.correlationId, { userId, role: 'subscriber' }, ctx);
    const { state } = await loadUserState(tx, userId);
    if (state.status === 'none') {
      if (await findUserIdByEmail(tx, email, ctx.crypto.emailIndex)) throw invalid('Please try again');
      const name = identity.name.trim().slice(0, 100) || email.split('@')[0];
      await registerVerified(ctx, tx, { userId, name, email, role: 'subscriber', referralCode }, now, meta);
      if (identity.picture && validPhoto(identity.picture))
        await decideAndAppend(
          ctx,
          tx,
          userId,
          {
            type: 'UpdateProfile',
            changes: { photo: await ctx.personalData.seal(userId, identity.picture) },
          },
          meta,
        ).catch(() => undefined);
      await setPassword(tx, userId, null, now);
    } else {
      assertCanSignIn(state);
      if (!state.isVerified) {
        await decideAndAppend(
          ctx,
          tx,
          userId,
          { type: 'VerifyEmail', now },
          { ...meta, actor: { userId, role: state.role } },
        );
        await forgetUserSecrets(tx, userId);
        await revokeTokens(tx, userId, ['verify', 'reset']);
        await setPassword(tx, userId, null, now);
        takenBack = true;
      }
    }
    return { deviceToken: await trustDevice(ctx, tx, userId, input.deviceToken), takenBack };
  });
  if (takenBack) await revokeAllSessions(ctx, userId);
  const result = await signedIn(ctx, userId, LOGIN_SUCCESSFUL, { deviceToken });
  await recordSignIn(ctx, {
    userId,
    method: input.method,
    newDevice: !wasTrusted,
    address: input.clientIp,
    correlationId: input.correlationId,
  });
  return result;
}

/** Whether a provider's picture is a photo the profile accepts (checked before it is sealed). */
function validPhoto(photo: string): boolean {
  try {
    checkProfile({ photo });
    return true;
  } catch {
    return false;
  }
}

/** Ends the caller's session (idempotent: an unknown session is already logged out). */
export async function logout(ctx: IdentityContext, caller: CallerInput | undefined): Promise<string> {
  if (caller?.sessionId) {
    const record = await readSession(ctx, caller.sessionId);
    if (record && record.userId === caller.userId) await revokeSession(ctx, caller.sessionId);
  }
  return 'Logout successful';
}
