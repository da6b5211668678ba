import { forbidden, invalid } from '@meridian/platform/eventSourcing/errors';
import { checkPassword, MESSAGES } from '../domain/user.js';
import { expiryOf, INVALID_TOKEN_MESSAGE } from '../domain/oneTimeToken.js';
import { findUserIdByEmail } from '../projections/userView.js';
import {
  CREDENTIALS,
  appendAsCaller,
  decideAndAppend,
  formEmail,
  loadUserState,
  LOGIN_CODES,
  metaFor,
  rateLimitEmailAndClient,
  setPassword,
  type CallerInput,
  type CredentialsDoc,
  type IdentityContext,
} from './context.js';
import { resolveCaller, revokeAllSessions } from './sessions.js';
import { consumeToken, issueToken, revokeTokens } from './tokens.js';

export const RESET_LINK_SENT = 'If the email is registered, a password reset link has been sent to it';

/** Mails a reset link (1 h) when the email belongs to an account; the same answer either way. It retires the older links. */
export async function forgotPassword(
  ctx: IdentityContext,
  input: { email: string; clientIp?: string; correlationId?: string },
): Promise<string> {
  const email = formEmail(input.email, MESSAGES.enterEmail);
  await rateLimitEmailAndClient(ctx, 'forgot', email, input.clientIp);
  const userId = await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex);
  if (!userId) return RESET_LINK_SENT;
  const token = ctx.crypto.randomToken();
  const now = ctx.clock();
  await ctx.store.transaction(async (tx) => {
    const { state } = await loadUserState(tx, userId);
    if (state.status !== 'active') return;
    await decideAndAppend(
      ctx,
      tx,
      userId,
      {
        type: 'RequestPasswordReset',
        sealedToken: ctx.crypto.seal(token),
        expiresAt: expiryOf('reset', now),
      },
      metaFor(input.correlationId, { userId, role: state.role }, ctx),
    );
    await revokeTokens(tx, userId, ['reset']);
    await issueToken(ctx, tx, token, 'reset', userId, now);
  });
  return RESET_LINK_SENT;
}

/**
 * Sets a new password from a reset link (single use, 1 h, the newest only), retires every other reset
 * link, lifts a login-code lock (the link proved the mailbox) and revokes every session of the user.
 */
export async function resetPassword(
  ctx: IdentityContext,
  input: { resetToken: string; password: string; correlationId?: string },
): Promise<string> {
  if (!input.password) throw invalid(MESSAGES.allFieldsRequired);
  checkPassword(input.password);
  if (!input.resetToken) throw invalid(INVALID_TOKEN_MESSAGE.reset);
  const passwordHash = await ctx.passwords.hash(input.password);
  const now = ctx.clock();
  const userId = await ctx.store.transaction(async (tx) => {
    const owner = await consumeToken(ctx, tx, input.resetToken, 'reset', now);
    await decideAndAppend(
      ctx,
      tx,
      owner,
      { type: 'ChangePassword', via: 'reset', now },
      metaFor(input.correlationId, { userId: owner, role: 'subscriber' }, ctx),
    );
    await setPassword(tx, owner, passwordHash, now);
    await revokeTokens(tx, owner, ['reset']);
    await tx.delete(LOGIN_CODES, owner);
    return owner;
  });
  await revokeAllSessions(ctx, userId);
  return 'Password Reset Successful, please login';
}

/** Changes the caller's password (old one checked), retires mailed reset links and revokes the caller's other sessions. */
export async function changePassword(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: { oldPassword: string; password: string },
): Promise<string> {
  const caller = await resolveCaller(ctx, callerInput);
  if (caller.impersonatorId) throw forbidden('Passwords cannot be changed while impersonating');
  if (!input.oldPassword || !input.password) throw invalid(MESSAGES.allFieldsRequired);
  checkPassword(input.password);
  const creds = await ctx.store.get<CredentialsDoc>(CREDENTIALS, caller.userId);
  const oldPasswordMatches =
    !!creds?.passwordHash && (await ctx.passwords.verify(creds.passwordHash, input.oldPassword));
  const passwordHash = oldPasswordMatches ? await ctx.passwords.hash(input.password) : '';
  const now = ctx.clock();
  await ctx.store.transaction(async (tx) => {
    await appendAsCaller(ctx, tx, caller, { type: 'ChangePassword', via: 'change', oldPasswordMatches, now });
    await setPassword(tx, caller.userId, passwordHash, now);
    await revokeTokens(tx, caller.userId, ['reset']);
  });
  await revokeAllSessions(ctx, caller.userId, caller.sessionId);
  return 'Password changed successfully';
}
