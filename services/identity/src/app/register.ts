import { conflict, invalid } from '@meridian/platform/eventSourcing/errors';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { checkPassword, isValidEmail, MESSAGES, normalizeEmail, type Role } from '../domain/user.js';
import { expiryOf } from '../domain/oneTimeToken.js';
import {
  findUserIdByEmail,
  findUserIdByReferralCode,
  getUserView,
  REFERRAL_INDEX,
} from '../projections/userView.js';
import {
  decideAndAppend,
  metaFor,
  rateLimitEmailAndClient,
  sealPersonal,
  setPassword,
  trustDevice,
  type IdentityContext,
} from './context.js';
import { signedIn, type AuthResult } from './sessions.js';
import { issueToken } from './tokens.js';

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  phone: string;
  country: string;
  referralCode?: string;
  deviceToken?: string;
  clientIp?: string;
  correlationId?: string;
}

export const EMAIL_TAKEN = 'Email is already registered';
export const UNKNOWN_REFERRAL = 'Invalid referral code';

/** A fresh referral code that no user holds yet (10 crypto-random characters). */
export async function newReferralCode(ctx: IdentityContext): Promise<string> {
  for (;;) {
    const code = ctx.crypto.referralCode();
    if (!(await ctx.store.get(REFERRAL_INDEX, code))) return code;
  }
}

/**
 * Registers an account whose email is already verified (the first admin, an identity-provider sign-in), inside
 * tx: its name and email sealed with the user's own key (created here), the address found by its blind index.
 */
export async function registerVerified(
  ctx: IdentityContext,
  tx: StoreTx,
  user: { userId: string; name: string; email: string; role: Role; referralCode: string },
  now: Date,
  meta: EventMeta,
): Promise<void> {
  const sealed = await sealPersonal(ctx, user.userId, { name: user.name, email: user.email });
  await decideAndAppend(
    ctx,
    tx,
    user.userId,
    {
      type: 'RegisterUser',
      ...user,
      ...sealed,
      emailIndex: ctx.crypto.emailIndex(user.email),
      phone: '',
      country: '',
      referredBy: '',
      now,
      verified: true,
    },
    meta,
  );
}

/**
 * Register: validation as the form (spec §5), unique email (case-insensitive), optional referral
 * code (unknown refused), argon2id hash, verification link mailed (sealed in
 * EmailVerificationRequested), the browser trusted, a session opened.
 */
export async function register(ctx: IdentityContext, input: RegisterInput): Promise<AuthResult> {
  const name = input.name?.trim() ?? '';
  const emailRaw = input.email?.trim() ?? '';
  const phone = input.phone?.trim() ?? '';
  const country = input.country?.trim() ?? '';
  const password = input.password ?? '';
  if (!name || !emailRaw || !password || !phone || !country) throw invalid(MESSAGES.allFieldsRequired);
  if (!isValidEmail(emailRaw)) throw invalid(MESSAGES.invalidEmail);
  checkPassword(password);
  if (name.length > 100 || phone.length > 40 || country.length > 100)
    throw invalid('Some fields are too long');
  const email = normalizeEmail(emailRaw);
  await rateLimitEmailAndClient(ctx, 'register', email, input.clientIp);

  const referralInput = input.referralCode?.trim() ?? '';
  let referredBy = '';
  if (referralInput) {
    referredBy = (await findUserIdByReferralCode(ctx.store, referralInput)) ?? '';
    if (!referredBy) throw invalid(UNKNOWN_REFERRAL);
  }
  if (await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex)) throw conflict(EMAIL_TAKEN);

  const passwordHash = await ctx.passwords.hash(password);
  const userId = ctx.crypto.newId();
  const referralCode = await newReferralCode(ctx);
  const now = ctx.clock();
  const token = ctx.crypto.randomToken();
  // the user's key is made here: everything personal is sealed with it before it is stored anywhere
  const sealed = await sealPersonal(ctx, userId, { name, email, phone, country });

  const deviceToken = await ctx.store.transaction(async (tx) => {
    if (await findUserIdByEmail(tx, email, ctx.crypto.emailIndex)) throw conflict(EMAIL_TAKEN);
    if (referredBy && !(await getUserView(tx, referredBy))) throw invalid(UNKNOWN_REFERRAL);
    if (await tx.get(REFERRAL_INDEX, referralCode)) throw conflict('Please try again');
    await issueToken(ctx, tx, token, 'verify', userId, now);
    await decideAndAppend(
      ctx,
      tx,
      userId,
      {
        type: 'RegisterUser',
        userId,
        ...sealed,
        emailIndex: ctx.crypto.emailIndex(email),
        role: 'subscriber',
        referralCode,
        referredBy,
        now,
        verification: { sealedToken: ctx.crypto.seal(token), expiresAt: expiryOf('verify', now) },
      },
      metaFor(input.correlationId, { userId, role: 'subscriber' }, ctx),
    );
    await setPassword(tx, userId, passwordHash, now);
    return trustDevice(ctx, tx, userId, input.deviceToken);
  });
  return signedIn(ctx, userId, 'Registration Successful', { deviceToken });
}
