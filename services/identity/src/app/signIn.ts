import {
  DomainError,
  forbidden,
  invalid,
  precondition,
  unauthenticated,
} from '@meridian/platform/eventSourcing/errors';
import { assertCanSignIn, isValidEmail, MESSAGES, normalizeEmail } from '../domain/user.js';
import { INVALID_LOGIN_CODE, LOGIN_CODE_TTL_MS, loginCodeDecider } from '../domain/loginCode.js';
import { findUserIdByEmail, getUserView, type UserView } from '../projections/userView.js';
import {
  CREDENTIALS,
  createSession,
  decideAndAppend,
  decideStateStored,
  deviceIdOf,
  isTrustedDevice,
  loadUserState,
  LOGIN_CODES,
  metaFor,
  rateLimitEmailAndClient,
  readSession,
  revokeSession,
  trustDevice,
  type CallerInput,
  type CredentialsDoc,
  type IdentityContext,
} from './context.js';
import { newReferralCode, type AuthResult } from './register.js';

export const INVALID_CREDENTIALS = 'Invalid email or password';
export const NEW_DEVICE = 'New browser or device detected';
export const LOGIN_CODE_SENT = 'If the email is registered, a login code has been sent to it';
export const LOGIN_SUCCESSFUL = 'Login Successful';

let dummyHash: Promise<string> | null = null;
/** A hash to verify against when the email is unknown, so both answers take the same time. */
const timingDummy = (ctx: IdentityContext) =>
  (dummyHash ??= ctx.passwords.hash('timing-equaliser-not-a-password'));

function checkEmailAndPassword(email: string, password: string): string {
  if (!email || !password) throw invalid(MESSAGES.allFieldsRequired);
  if (!isValidEmail(email)) throw invalid(MESSAGES.invalidEmail);
  return normalizeEmail(email);
}

function suspendedError(view: UserView | null): DomainError | null {
  return view?.role === 'suspended' ? forbidden(MESSAGES.suspended) : null;
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
 * login code). Suspended: PERMISSION_DENIED.
 */
export async function login(ctx: IdentityContext, input: LoginInput): Promise<AuthResult> {
  const email = checkEmailAndPassword(input.email?.trim() ?? '', input.password ?? '');
  await rateLimitEmailAndClient(
    ctx,
    'login',
    email,
    input.clientIp,
    ctx.limits.loginPerEmail,
    ctx.limits.loginPerClient,
  );
  const userId = await findUserIdByEmail(ctx.store, email);
  const creds = userId ? await ctx.store.get<CredentialsDoc>(CREDENTIALS, userId) : null;
  const ok = await ctx.passwords.verify(creds?.passwordHash ?? (await timingDummy(ctx)), input.password);
  if (!userId || !creds?.passwordHash || !ok) throw invalid(INVALID_CREDENTIALS);
  const view = await getUserView(ctx.store, userId);
  if (!view) throw invalid(INVALID_CREDENTIALS);
  const suspended = suspendedError(view);
  if (suspended) throw suspended;
  if (!(await isTrustedDevice(ctx, userId, deviceIdOf(ctx, input.deviceToken))))
    throw precondition(NEW_DEVICE);
  const session = await createSession(ctx, userId);
  return {
    user: view,
    isImpersonated: false,
    sessionToken: session.token,
    deviceToken: '',
    message: LOGIN_SUCCESSFUL,
  };
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
  const raw = input.email?.trim() ?? '';
  if (!raw) throw invalid('Please enter an email');
  if (!isValidEmail(raw)) throw invalid(MESSAGES.invalidEmail);
  const email = normalizeEmail(raw);
  await rateLimitEmailAndClient(
    ctx,
    'send-code',
    email,
    input.clientIp,
    ctx.limits.sendCodePerEmail,
    ctx.limits.sendCodePerClient,
  );
  const userId = await findUserIdByEmail(ctx.store, email);
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
 * The code from the mailbox: 15 minutes, 5 wrong attempts, single use. On success the browser
 * becomes trusted: the answer carries a device token (long-lived cookie) and a session token.
 */
export async function loginWithCode(ctx: IdentityContext, input: LoginWithCodeInput): Promise<AuthResult> {
  const code = input.loginCode?.trim() ?? '';
  if (!code) throw invalid('Please fill in the login code');
  if (code.length !== 6) throw invalid('Access code must be 6 characters');
  const raw = input.email?.trim() ?? '';
  if (!raw) throw invalid(MESSAGES.allFieldsRequired);
  if (!isValidEmail(raw)) throw invalid(MESSAGES.invalidEmail);
  const email = normalizeEmail(raw);
  await rateLimitEmailAndClient(
    ctx,
    'code-login',
    email,
    input.clientIp,
    ctx.limits.codeLoginPerEmail,
    ctx.limits.codeLoginPerClient,
  );
  const userId = await findUserIdByEmail(ctx.store, email);
  if (!userId || !/^\d{6}$/.test(code)) throw invalid(INVALID_LOGIN_CODE);
  const suspended = suspendedError(await getUserView(ctx.store, userId));
  if (suspended) throw suspended;

  const now = ctx.clock();
  const outcome = await ctx.store.transaction(async (tx) => {
    const { events } = await decideStateStored(tx, LOGIN_CODES, userId, loginCodeDecider, {
      type: 'AttemptLoginCode',
      codeHash: ctx.crypto.keyedHash(`${userId}:${code}`),
      now,
    });
    if (events.some((e) => e.type === 'LoginCodeAttemptFailed')) return { ok: false as const };
    return { ok: true as const, deviceToken: await trustDevice(ctx, tx, userId, input.deviceToken) };
  });
  // A wrong code is recorded (attempts count) and only then refused.
  if (!outcome.ok) throw invalid(INVALID_LOGIN_CODE);
  const view = (await getUserView(ctx.store, userId))!;
  const session = await createSession(ctx, userId);
  return {
    user: view,
    isImpersonated: false,
    sessionToken: session.token,
    deviceToken: outcome.deviceToken,
    message: LOGIN_SUCCESSFUL,
  };
}

export interface GoogleLoginInput {
  credential: string;
  deviceToken?: string;
  clientIp?: string;
  correlationId?: string;
}

export const INVALID_GOOGLE = 'Google sign-in failed: invalid credential';

/**
 * Sign-in with an OIDC ID token (Google): signature against the issuer's JWKS, issuer, audience,
 * expiry; the email must be verified by the provider. Creates the user (verified) or links the
 * existing one by email. Linking to a never-verified account clears its password (a stranger may
 * have registered the address first) and verifies it. The browser becomes trusted.
 */
export async function googleLogin(ctx: IdentityContext, input: GoogleLoginInput): Promise<AuthResult> {
  if (!ctx.oidc) throw new DomainError('unavailable', 'Google sign-in is not available');
  if (!input.credential) throw invalid(INVALID_GOOGLE);
  let identity;
  try {
    identity = await ctx.oidc.verify(input.credential, ctx.clock());
  } catch (err) {
    ctx.logger.info({ err: (err as Error).message }, 'google credential refused');
    throw unauthenticated(INVALID_GOOGLE);
  }
  if (!identity.emailVerified || !isValidEmail(identity.email))
    throw invalid('Your Google email address is not verified');
  const email = normalizeEmail(identity.email);
  await rateLimitEmailAndClient(
    ctx,
    'login',
    email,
    input.clientIp,
    ctx.limits.loginPerEmail,
    ctx.limits.loginPerClient,
  );
  const now = ctx.clock();
  const existing = await findUserIdByEmail(ctx.store, email);
  if (existing) {
    const suspended = suspendedError(await getUserView(ctx.store, existing));
    if (suspended) throw suspended;
  }
  const userId = existing ?? ctx.crypto.newId();
  const referralCode = existing ? '' : await newReferralCode(ctx);

  const deviceToken = await ctx.store.transaction(async (tx) => {
    const meta = metaFor(input.correlationId, { userId, role: 'subscriber' }, ctx);
    const { state } = await loadUserState(tx, userId);
    if (state.status === 'none') {
      if (await findUserIdByEmail(tx, email)) throw invalid('Please try again');
      const name = identity.name.trim().slice(0, 100) || email.split('@')[0];
      await decideAndAppend(
        tx,
        userId,
        {
          type: 'RegisterUser',
          userId,
          name,
          email,
          phone: '',
          country: '',
          role: 'subscriber',
          referralCode,
          referredBy: '',
          now,
          verified: true,
        },
        meta,
      );
      if (identity.picture)
        await decideAndAppend(
          tx,
          userId,
          { type: 'UpdateProfile', changes: { photo: identity.picture } },
          meta,
        ).catch(() => undefined);
      await tx.put<CredentialsDoc>(CREDENTIALS, userId, {
        userId,
        passwordHash: null,
        updatedAt: now.toISOString(),
      });
    } else {
      assertCanSignIn(state);
      if (!state.isVerified) {
        await decideAndAppend(
          tx,
          userId,
          { type: 'VerifyEmail', now },
          { ...meta, actor: { userId, role: state.role } },
        );
        await tx.put<CredentialsDoc>(CREDENTIALS, userId, {
          userId,
          passwordHash: null,
          updatedAt: now.toISOString(),
        });
      }
    }
    return trustDevice(ctx, tx, userId, input.deviceToken);
  });
  const view = (await getUserView(ctx.store, userId))!;
  const session = await createSession(ctx, userId);
  return {
    user: view,
    isImpersonated: false,
    sessionToken: session.token,
    deviceToken,
    message: LOGIN_SUCCESSFUL,
  };
}

/** Ends the caller's session (idempotent: an unknown session is already logged out). */
export async function logout(ctx: IdentityContext, caller: CallerInput | undefined): Promise<string> {
  if (caller?.sessionId) {
    const record = await readSession(ctx, caller.sessionId);
    if (record && record.userId === caller.userId) await revokeSession(ctx, caller.sessionId);
  }
  return 'Logout successful';
}
