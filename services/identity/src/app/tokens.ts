import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { tokenDecider, type TokenPurpose, type TokenState } from '../domain/oneTimeToken.js';
import { decideStateStored, TOKENS, type IdentityContext } from './context.js';

/** Stores a mailed token by its sha256 (never in clear), with its purpose, owner and expiry. */
export async function issueToken(
  ctx: IdentityContext,
  tx: StoreTx,
  token: string,
  purpose: TokenPurpose,
  userId: string,
  now: Date,
) {
  const tokenHash = ctx.crypto.sha256(token);
  await decideStateStored(
    tx,
    TOKENS,
    tokenHash,
    tokenDecider,
    { type: 'IssueToken', purpose, userId, now },
    { userId, purpose, tokenHash },
  );
}

/** Consumes a mailed token (single use, not expired, right purpose) and returns its owner. */
export async function consumeToken(
  ctx: IdentityContext,
  tx: StoreTx,
  token: string,
  purpose: TokenPurpose,
  now: Date,
): Promise<string> {
  const { state } = await decideStateStored(tx, TOKENS, ctx.crypto.sha256(token), tokenDecider, {
    type: 'ConsumeToken',
    purpose,
    now,
  });
  return (state as Extract<TokenState, { userId: string }>).userId;
}

/**
 * Retires every mailed link of `purposes` the user holds (used or not): a newer reset link retires the
 * older ones, a password change or reset retires them all, taking an account back retires everything.
 */
export async function revokeTokens(tx: StoreTx, userId: string, purposes: readonly TokenPurpose[]) {
  for (const purpose of purposes) {
    for (const doc of await tx.find<{ tokenHash?: string }>(TOKENS, { where: { userId, purpose } })) {
      if (doc.tokenHash) await tx.delete(TOKENS, doc.tokenHash);
    }
  }
}
