/**
 * The signed-in user's own account: the profile, the password, the verification email, referrals, and
 * the way back from impersonation.
 */
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import { sessionOf } from './auth.js';
import { defaultAvatarUrl, referralJson, userJson } from './userView.js';
import { schemas } from './validation.js';
import { impersonationAnswer, referralsAnswer, userAnswer } from './answers.js';
import { ALL_FIELDS_REQUIRED, IDENTITY_RATE_LIMITED, SHORT_PASSWORD, mustBeString } from './refusals.js';
import { TAGS, json, message, route, routeTable } from './routeTable.js';
import { NO_REFERRALS, type UsersContext } from './usersContext.js';

export const PROFILE_ROUTES = routeTable<UsersContext>([
  route({
    method: 'get',
    path: '/api/users/getUser',
    tag: TAGS.account,
    summary: 'The signed-in user',
    access: 'user',
    ok: json(userAnswer, 'The user, balances in dollars.'),
    handler: async ({ identity, caller }, { call }, req, res) =>
      // identity's Authenticate answered the session's user with the principal (kept fresh: auth.ts)
      userJson(
        sessionOf(res).principal.user ??
          (await call(identity, 'getUser', id.GetUserRequest.fromPartial(caller(res)))),
        defaultAvatarUrl(req),
      ),
  }),
  route({
    method: 'patch',
    path: '/api/users/updateUser',
    tag: TAGS.account,
    summary: 'Update the profile',
    description: 'Only name, phone, bio, country and photo are changed; other keys are ignored.',
    access: 'userSelf',
    body: schemas.updateUser,
    ok: json(userAnswer, 'The updated user.'),
    errors: {
      400: [
        'Name cannot be empty',
        'Photo must be a valid http(s) address',
        ...mustBeString('name', 'phone', 'bio', 'country', 'photo'),
      ],
    },
    impersonatingRefusal: 'Profiles cannot be changed while impersonating',
    handler: async ({ identity, caller }, { body, call }, req, res) =>
      userJson(
        await call(identity, 'updateUser', id.UpdateUserRequest.fromPartial({ ...caller(res), ...body })),
        defaultAvatarUrl(req),
      ),
  }),
  route({
    method: 'post',
    path: '/api/users/sendVerificationEmail',
    tag: TAGS.account,
    summary: 'Send the verification email again',
    access: 'user',
    ok: message('Sent.'),
    errors: { 400: ['Account already verified'], 429: [IDENTITY_RATE_LIMITED] },
    handler: ({ identity, caller }, { call }, _req, res) =>
      call(identity, 'sendVerificationEmail', id.SendVerificationEmailRequest.fromPartial(caller(res))),
  }),
  route({
    method: 'patch',
    path: '/api/users/changePassword',
    tag: TAGS.account,
    summary: 'Change the password',
    description: 'Revokes the other sessions; the user is emailed about the change.',
    access: 'userSelf',
    body: schemas.changePassword,
    ok: message('Changed.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        SHORT_PASSWORD,
        'Incorrect old password',
        ...mustBeString('oldPassword', 'password'),
      ],
    },
    impersonatingRefusal: 'Passwords cannot be changed while impersonating',
    handler: ({ identity, caller }, { body, call }, _req, res) =>
      call(identity, 'changePassword', id.ChangePasswordRequest.fromPartial({ ...caller(res), ...body })),
  }),
  route({
    method: 'post',
    path: '/api/users/exit-impersonation',
    tag: TAGS.account,
    summary: "Back to the admin's own session",
    access: 'user',
    ok: json(impersonationAnswer, 'Back to the admin.'),
    errors: { 400: ['You are not impersonating anyone'] },
    consumesSession: true,
    handler: async ({ identity, caller, impersonating }, { call }, req, res) =>
      impersonating(
        req,
        res,
        await call(identity, 'exitImpersonation', id.ExitImpersonationRequest.fromPartial(caller(res))),
        'Impersonation ended',
      ),
  }),
  route({
    method: 'get',
    path: '/api/users/referrals',
    tag: TAGS.account,
    summary: 'The people the user referred',
    description: `\`{referrals: [...]}\`, or \`{message: '${NO_REFERRALS}'}\` when there are none.`,
    access: 'user',
    ok: json(referralsAnswer, 'The referrals.'),
    handler: async ({ identity, caller }, { call }, req, res) => {
      const out = await call(identity, 'listReferrals', id.ListReferralsRequest.fromPartial(caller(res)));
      const avatarUrl = defaultAvatarUrl(req);
      return out.referrals.length === 0
        ? { message: NO_REFERRALS }
        : { referrals: out.referrals.map((r) => referralJson(r, avatarUrl)) };
    },
  }),
]);
