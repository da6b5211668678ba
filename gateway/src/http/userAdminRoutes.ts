/**
 * The admin side of the accounts: the user list and counts, roles, impersonation, deletion.
 */
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import { sessionOf } from './auth.js';
import { HttpError } from './errors.js';
import { deleteWithMoneySettled, parseCancelPending } from './userDeletion.js';
import { defaultAvatarUrl, userJson } from './userView.js';
import { parseTokenParam, schemas } from './validation.js';
import { impersonationAnswer, userAnswer, userStatsAnswer } from './answers.js';
import { ALL_FIELDS_REQUIRED, INVALID_USER_ID, ROLE_REQUIRED, mustBeString } from './refusals.js';
import { TAGS, json, message, route, routeTable } from './routeTable.js';
import { CANCEL_PENDING_INVALID } from './userDeletion.js';
import { NEXT_CURSOR_HEADER, pageQuerySchema, setNextCursor } from './pages.js';
import { INVALID_USERS_QUERY, USERS_PAGE, type UsersContext } from './usersContext.js';

/** `id`: only that user (an admin screen about one user opened by its address); not with a page or `q`. */
const usersPageQuery = pageQuerySchema.extend({
  q: z.string().max(200).optional(),
  id: z.string().min(1).max(128).optional(),
});

export const USER_ADMIN_ROUTES = routeTable<UsersContext>([
  // Without limit/cursor/q: every user (the spec's answer). With them: one page, newest first, and the
  // next page's cursor in X-Next-Cursor (absent on the last page); the body stays a list of users.
  route({
    method: 'get',
    path: '/api/users/getUsers',
    tag: TAGS.account,
    summary: 'Every user, or a page of them',
    description: `Without parameters: every user, newest first (the spec's answer). With \`limit\`, \`cursor\` or \`q\`: one page of the same list (keyset paging, stable while users are added or removed), the next page's cursor in the \`${NEXT_CURSOR_HEADER}\` header (absent on the last page); the body is a list of users either way.`,
    access: 'admin',
    query: {
      limit: 'Page size, 1-500 (default 50 when `cursor` or `q` is given).',
      cursor: `The \`${NEXT_CURSOR_HEADER}\` of the previous page.`,
      q: 'Only users whose name or email starts with this (any case).',
      id: 'Only this user (an admin screen about one user opened by its address): a list of that user, or an empty list; not with `limit`, `cursor` or `q`.',
    },
    okHeaders: {
      [NEXT_CURSOR_HEADER]: 'The cursor of the next page; absent on the last page or without paging.',
    },
    ok: json(z.array(userAnswer), 'The users.'),
    errors: { 400: [INVALID_USERS_QUERY] },
    handler: async ({ identity, caller }, { call }, req, res) => {
      const page = usersPageQuery.safeParse(req.query);
      if (!page.success) throw new HttpError(400, INVALID_USERS_QUERY);
      const paged =
        page.data.limit !== undefined || page.data.cursor !== undefined || page.data.q !== undefined;
      if (paged && page.data.id !== undefined) throw new HttpError(400, INVALID_USERS_QUERY);
      const out = await call(
        identity,
        'listUsers',
        id.ListUsersRequest.fromPartial({
          ...caller(res),
          ...(paged
            ? {
                limit: page.data.limit ?? USERS_PAGE,
                cursor: page.data.cursor ?? '',
                query: page.data.q ?? '',
              }
            : {}),
          userId: page.data.id ?? '',
        }),
      );
      setNextCursor(res, out.nextCursor);
      return out.users.map((u) => userJson(u, defaultAvatarUrl(req)));
    },
  }),
  route({
    method: 'get',
    path: '/api/users/userStats',
    tag: TAGS.account,
    summary: 'User statistics',
    description: 'Total, verified, unverified and suspended users, from counters the user projection keeps.',
    access: 'admin',
    ok: json(userStatsAnswer, 'The statistics.'),
    // the answer's schema keeps the four counts
    handler: ({ identity, caller }, { call }, _req, res) =>
      call(identity, 'getUserStats', id.GetUserStatsRequest.fromPartial(caller(res))),
  }),
  route({
    method: 'post',
    path: '/api/users/upgradeUser',
    tag: TAGS.account,
    summary: "Change a user's role",
    description: 'Roles: subscriber, author, admin, suspended. The user is emailed about the change.',
    access: 'admin',
    body: schemas.upgradeUser,
    ok: message('Changed.'),
    errors: {
      400: [
        ROLE_REQUIRED,
        'Invalid role',
        ALL_FIELDS_REQUIRED,
        'The last admin cannot be demoted',
        ...mustBeString('role', 'id'),
      ],
      403: ['You cannot change your own role'],
      404: ['User not found'],
    },
    handler: ({ identity, caller }, { body, call }, _req, res) =>
      call(
        identity,
        'upgradeUser',
        id.UpgradeUserRequest.fromPartial({ ...caller(res), userId: body.id, role: body.role }),
      ),
  }),
  route({
    method: 'post',
    path: '/api/users/impersonate/:id',
    tag: TAGS.account,
    summary: 'Act as a user',
    description:
      'The session cookie becomes the impersonation session. Accepted without X-XSRF-TOKEN when the Origin header names our own origin.',
    access: 'admin',
    ok: json(impersonationAnswer, 'Impersonating.'),
    errors: {
      400: [INVALID_USER_ID],
      403: ['Admins cannot be impersonated', 'You cannot impersonate yourself'],
      404: ['User not found'],
    },
    consumesSession: true,
    params: (p) => ({ userId: parseTokenParam(p.id, INVALID_USER_ID) }),
    handler: async ({ identity, caller, impersonating }, { params, call }, req, res) =>
      impersonating(
        req,
        res,
        await call(identity, 'impersonate', id.ImpersonateRequest.fromPartial({ ...caller(res), ...params })),
        'Impersonation started',
      ),
  }), // ?cancelPending=true: the user's pending requests are cancelled first (userDeletion.ts); without it a user
  // with money pending or on their balances is not deleted
  route({
    method: 'delete',
    path: '/api/users/:id',
    tag: TAGS.account,
    summary: 'Delete a user',
    description:
      "Refused (400) while the user has a pending deposit, investment or withdrawal or a balance that is not zero, with a message saying what must be settled first (e.g. 'This user has 1 pending deposit and a balance of $120.00: settle them first, or delete with cancelPending=true'); nothing changes. With `cancelPending=true` each pending request is rejected by the deleting admin first (its held funds released), then the user is deleted; balances stay recorded on the closed account. Either way no deposit, investment or withdrawal of a deleted user is decided afterwards.",
    access: 'admin',
    query: {
      cancelPending:
        '`true`: reject the pending deposits, investments and withdrawals (releasing their holds) and delete; `false` or absent: refuse while anything is pending or a balance is not zero.',
    },
    ok: message('Deleted.'),
    errors: {
      400: [INVALID_USER_ID, CANCEL_PENDING_INVALID],
      403: ['You cannot delete your own account'],
      404: ['User not found'],
    },
    params: (p) => parseTokenParam(p.id, INVALID_USER_ID),
    handler: async ({ identity, money, ctx }, { params: userId, call }, req, res) => {
      const cancelPending = parseCancelPending(req.query.cancelPending);
      const session = sessionOf(res);
      const remove = async () =>
        (
          await call(
            identity,
            'deleteUser',
            id.DeleteUserRequest.fromPartial({ caller: session.caller, userId }),
          )
        ).message;
      const message = money
        ? await deleteWithMoneySettled(
            money,
            { caller: session.caller, callerRole: session.principal.role, userId, cancelPending },
            ctx(req),
            remove,
          )
        : await remove();
      return { message };
    },
  }),
]);
