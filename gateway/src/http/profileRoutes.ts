/**
 * The signed-in user's own account: the profile, the password, the verification email, referrals, and
 * the way back from impersonation.
 */
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import { callUnary } from '../grpcClients.js';
import { sessionOf } from './auth.js';
import { setSessionCookie } from './cookies.js';
import { defaultAvatarUrl, referralJson, userJson } from './userView.js';
import { parseBody, schemas } from './validation.js';
import { impersonationAnswer, referralsAnswer, userAnswer } from './answers.js';
import { ALL_FIELDS_REQUIRED, IDENTITY_RATE_LIMITED, SHORT_PASSWORD, mustBeString } from './refusals.js';
import { TAGS, json, message, routeTable } from './routeTable.js';
import { NO_REFERRALS, type UsersContext } from './usersContext.js';

export const PROFILE_ROUTES = routeTable<UsersContext>([
  {
    method: 'get',
    path: '/api/users/getUser',
    tag: TAGS.account,
    summary: 'The signed-in user',
    access: 'user',
    ok: json(userAnswer, 'The user, balances in dollars.'),
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        // identity's Authenticate answered the session's user with the principal (kept fresh: auth.ts)
        const s = sessionOf(res);
        const u =
          s.principal.user ??
          (await callUnary(
            identity,
            'getUser',
            id.GetUserRequest.fromPartial({ caller: s.caller }),
            ctx(req),
          ));
        res.json(userJson(u, defaultAvatarUrl(req)));
      },
  },
  {
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
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const b = parseBody(schemas.updateUser, req.body);
        const u = await callUnary(
          identity,
          'updateUser',
          id.UpdateUserRequest.fromPartial({ caller: sessionOf(res).caller, ...b }),
          ctx(req),
        );
        res.json(userJson(u, defaultAvatarUrl(req)));
      },
  },
  {
    method: 'post',
    path: '/api/users/sendVerificationEmail',
    tag: TAGS.account,
    summary: 'Send the verification email again',
    access: 'user',
    ok: message('Sent.'),
    errors: { 400: ['Account already verified'], 429: [IDENTITY_RATE_LIMITED] },
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const out = await callUnary(
          identity,
          'sendVerificationEmail',
          id.SendVerificationEmailRequest.fromPartial({ caller: sessionOf(res).caller }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
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
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const b = parseBody(schemas.changePassword, req.body);
        const out = await callUnary(
          identity,
          'changePassword',
          id.ChangePasswordRequest.fromPartial({
            caller: sessionOf(res).caller,
            oldPassword: b.oldPassword,
            password: b.password,
          }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
    method: 'post',
    path: '/api/users/exit-impersonation',
    tag: TAGS.account,
    summary: "Back to the admin's own session",
    access: 'user',
    ok: json(impersonationAnswer, 'Back to the admin.'),
    errors: { 400: ['You are not impersonating anyone'] },
    consumesSession: true,
    handler:
      ({ identity, secure, ctx }) =>
      async (req, res) => {
        const out = await callUnary(
          identity,
          'exitImpersonation',
          id.ExitImpersonationRequest.fromPartial({ caller: sessionOf(res).caller }),
          ctx(req),
        );
        if (out.sessionToken) setSessionCookie(res, out.sessionToken, secure);
        res.json({
          message: out.message || 'Impersonation ended',
          user: userJson(out.user, defaultAvatarUrl(req)),
        });
      },
  },
  {
    method: 'get',
    path: '/api/users/referrals',
    tag: TAGS.account,
    summary: 'The people the user referred',
    description: `\`{referrals: [...]}\`, or \`{message: '${NO_REFERRALS}'}\` when there are none.`,
    access: 'user',
    ok: json(referralsAnswer, 'The referrals.'),
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const out = await callUnary(
          identity,
          'listReferrals',
          id.ListReferralsRequest.fromPartial({ caller: sessionOf(res).caller }),
          ctx(req),
        );
        if (out.referrals.length === 0) {
          res.json({ message: NO_REFERRALS });
          return;
        }
        const avatarUrl = defaultAvatarUrl(req);
        res.json({ referrals: out.referrals.map((r) => referralJson(r, avatarUrl)) });
      },
  },
]);
