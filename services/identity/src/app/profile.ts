import { PROFILE_FIELDS, type ProfileChanges } from '../domain/user.js';
import { getUserView, listReferralsOf, type ReferralView, type UserView } from '../projections/userView.js';
import {
  actorOf,
  decideAndAppend,
  metaFor,
  resolveCaller,
  type CallerInput,
  type IdentityContext,
} from './context.js';

export interface UserResult {
  user: UserView;
  isImpersonated: boolean;
}

/** The caller's own user, flagged isImpersonated when an admin is acting as them. */
export async function getUser(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<UserResult> {
  const caller = await resolveCaller(ctx, callerInput);
  return { user: caller.view, isImpersonated: !!caller.impersonatorId };
}

/** Edits name, phone, bio, country, photo (email is not editable). Emits ProfileUpdated. */
export async function updateUser(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: ProfileChanges,
): Promise<UserResult> {
  const caller = await resolveCaller(ctx, callerInput);
  const changes: ProfileChanges = {};
  for (const field of PROFILE_FIELDS) {
    const value = input[field];
    if (typeof value === 'string') changes[field] = value.trim();
  }
  await ctx.store.transaction((tx) =>
    decideAndAppend(
      tx,
      caller.userId,
      { type: 'UpdateProfile', changes },
      metaFor(caller.correlationId, actorOf(caller), ctx),
    ),
  );
  return { user: (await getUserView(ctx.store, caller.userId))!, isImpersonated: !!caller.impersonatorId };
}

/** People who signed up with the caller's referral code, newest first. */
export async function listReferrals(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<ReferralView[]> {
  const caller = await resolveCaller(ctx, callerInput);
  return listReferralsOf(ctx.store, caller.userId);
}
