import { isValidEmail, normalizeEmail } from '../domain/user.js';
import { findUserIdByEmail } from '../projections/userView.js';
import { setPassword, type IdentityContext } from './context.js';
import { newReferralCode, registerVerified } from './register.js';

/**
 * Creates the first admin (verified) from ADMIN_EMAIL / ADMIN_PASSWORD unless that email already has
 * an account. Idempotent: safe at every start. Returns whether it created the account.
 */
export async function ensureFirstAdmin(
  ctx: IdentityContext,
  input: { email: string; password: string; name?: string },
): Promise<boolean> {
  if (!isValidEmail(input.email)) throw new Error('ADMIN_EMAIL is not a valid email');
  const email = normalizeEmail(input.email);
  if (await findUserIdByEmail(ctx.store, email, ctx.crypto.emailIndex)) return false;
  const passwordHash = await ctx.passwords.hash(input.password);
  const referralCode = await newReferralCode(ctx);
  const userId = ctx.crypto.newId();
  const now = ctx.clock();
  return ctx.store.transaction(async (tx) => {
    if (await findUserIdByEmail(tx, email, ctx.crypto.emailIndex)) return false;
    await registerVerified(
      ctx,
      tx,
      { userId, name: input.name ?? 'Admin', email, role: 'admin', referralCode },
      now,
      { correlationId: ctx.crypto.newId(), actor: { userId: 'system', role: 'system' } },
    );
    await setPassword(tx, userId, passwordHash, now);
    return true;
  });
}
