/**
 * Sign-ins as events: each successful sign-in appends UserSignedIn to `signins-<userId>` (with the
 * client address in the actor, sealed with the user's key: personal data), published on meridian.identity.events like every identity event, so the
 * user's security events (projections/audit.ts) are built from events alone.
 */
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { getUserView } from '../projections/userView.js';
import { USER_SIGNED_IN, type SignInMethod, type UserSignedInData } from '../projections/audit.js';
import { metaFor, sealAddress, type IdentityContext } from './context.js';

export const toSignInStreamId = (userId: string) => `signins-${userId}`;

/** Appends UserSignedIn inside tx (or its own transaction). */
export async function recordSignIn(
  ctx: IdentityContext,
  input: {
    userId: string;
    method: SignInMethod;
    newDevice: boolean;
    address?: string;
    correlationId?: string;
  },
  tx?: StoreTx,
): Promise<void> {
  const address = input.address ? await sealAddress(ctx, input.userId, input.address) : '';
  const run = async (t: StoreTx) => {
    const role = (await getUserView(t, input.userId))?.role ?? 'subscriber';
    const data: UserSignedInData = {
      userId: input.userId,
      method: input.method,
      newDevice: input.newDevice,
      signedInAt: ctx.clock().toISOString(),
    };
    const meta = metaFor(
      input.correlationId,
      { userId: input.userId, role, ...(address ? { address } : {}) },
      ctx,
    );
    const { events } = await t.appendToStream(
      toSignInStreamId(input.userId),
      'any',
      [{ type: USER_SIGNED_IN, data }],
      meta,
    );
    for (const e of events) await t.recordIntegrationEvent(e.id, { type: e.type, data: e.data });
  };
  if (tx) await run(tx);
  else await ctx.store.transaction(run);
}
