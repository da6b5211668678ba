import { forbidden } from '@meridian/platform/eventSourcing/errors';
import { checkProfile, PROFILE_FIELDS, type ProfileChanges } from '../domain/user.js';
import { getUserView, listReferralsOf, type ReferralView, type UserView } from '../projections/userView.js';
import {
  appendAsCaller,
  openUserView,
  sealPersonal,
  type CallerInput,
  type IdentityContext,
} from './context.js';
import { resolveCaller } from './sessions.js';

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
  return { user: await openUserView(ctx, caller.view), isImpersonated: !!caller.impersonatorId };
}

export const PROFILE_WHILE_IMPERSONATING = 'Profiles cannot be changed while impersonating';

/**
 * Edits name, phone, bio, country, photo (email is not editable); refused to an impersonating admin.
 * Emits ProfileUpdated.
 */
export async function updateUser(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: ProfileChanges,
): Promise<UserResult> {
  const caller = await resolveCaller(ctx, callerInput);
  // the person's own details (photo included) are theirs to change, never an impersonating admin's
  if (caller.impersonatorId) throw forbidden(PROFILE_WHILE_IMPERSONATING);
  const changes: ProfileChanges = {};
  for (const field of PROFILE_FIELDS) {
    const value = input[field];
    if (typeof value === 'string') changes[field] = value.trim();
  }
  // the form's rules on the plain values; then only the sealed values go into the event
  checkProfile(changes);
  const sealed = await sealPersonal(ctx, caller.userId, changes as Record<string, string>);
  await ctx.store.transaction((tx) =>
    appendAsCaller(ctx, tx, caller, { type: 'UpdateProfile', changes: sealed }),
  );
  return {
    user: await openUserView(ctx, (await getUserView(ctx.store, caller.userId))!),
    isImpersonated: !!caller.impersonatorId,
  };
}

/** People who signed up with the caller's referral code, newest first. */
export async function listReferrals(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
): Promise<ReferralView[]> {
  const caller = await resolveCaller(ctx, callerInput);
  const pd = ctx.personalData;
  return Promise.all(
    (await listReferralsOf(ctx.store, caller.userId)).map(async (r) => ({
      ...r,
      name: await pd.open(r.name),
      email: await pd.open(r.email),
      photo: await pd.open(r.photo),
    })),
  );
}
