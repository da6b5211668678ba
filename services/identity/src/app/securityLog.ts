/**
 * Sign-ins as events: each successful sign-in appends UserSignedIn to `signins-<userId>` (with the
 * client address in the actor, sealed with the user's key: personal data) and, in the same transaction,
 * the user's security event it is (projections/audit.ts projectSignIns), so the security events are built
 * from events alone. Only identity reads sign-ins: they are not published (app/integrationEvents.ts).
 */
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { getUserView } from '../projections/userView.js';
import {
  projectSignIns,
  USER_SIGNED_IN,
  type SignInMethod,
  type UserSignedInData,
} from '../projections/audit.js';
import { metaFor, sealAddress, type IdentityContext } from './context.js';

export const toSignInStreamId = (userId: string) => `signins-${userId}`;

/**
 * Appends UserSignedIn and its security event inside tx (or its own transaction). `role`: the user's, as
 * the sign-in just read it (else read here).
 */
export async function recordSignIn(
  ctx: IdentityContext,
  input: {
    userId: string;
    role?: string;
    method: SignInMethod;
    newDevice: boolean;
    address?: string;
    correlationId?: string;
  },
  tx?: StoreTx,
): Promise<void> {
  const address = input.address ? await sealAddress(ctx, input.userId, input.address) : '';
  const run = async (t: StoreTx) => {
    const role = input.role ?? (await getUserView(t, input.userId))?.role ?? 'subscriber';
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
    await projectSignIns(t, events);
  };
  if (tx) await run(tx);
  else await ctx.store.transaction(run);
}
