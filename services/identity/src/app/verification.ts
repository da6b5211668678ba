import { invalid } from '@meridian/platform/eventSourcing/errors';
import { expiryOf, INVALID_TOKEN_MESSAGE } from '../domain/oneTimeToken.js';
import {
  appendAsCaller,
  decideAndAppend,
  metaFor,
  rateLimit,
  type CallerInput,
  type IdentityContext,
} from './context.js';
import { resolveCaller } from './sessions.js';
import { consumeToken, issueToken } from './tokens.js';

/** Mails a fresh verification link (24 h) to the caller; refused once verified. */
export async function sendVerificationEmail(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<string> {
  const caller = await resolveCaller(ctx, callerInput);
  await rateLimit(ctx, `verify-mail:${caller.userId}`, ctx.limits.verificationPerUser);
  const token = ctx.crypto.randomToken();
  const now = ctx.clock();
  await ctx.store.transaction(async (tx) => {
    await appendAsCaller(ctx, tx, caller, {
      type: 'RequestVerification',
      sealedToken: ctx.crypto.seal(token),
      expiresAt: expiryOf('verify', now),
    });
    await issueToken(ctx, tx, token, 'verify', caller.userId, now);
  });
  return 'Verification email sent';
}

/** Uses a verification link: single use, 24 h; marks the account verified. */
export async function verifyUser(
  ctx: IdentityContext,
  input: { verificationToken: string; correlationId?: string },
): Promise<string> {
  if (!input.verificationToken) throw invalid(INVALID_TOKEN_MESSAGE.verify);
  const now = ctx.clock();
  await ctx.store.transaction(async (tx) => {
    const userId = await consumeToken(ctx, tx, input.verificationToken, 'verify', now);
    await decideAndAppend(
      ctx,
      tx,
      userId,
      { type: 'VerifyEmail', now },
      metaFor(input.correlationId, { userId, role: 'subscriber' }, ctx),
    );
  });
  return 'Account verified successfully';
}
