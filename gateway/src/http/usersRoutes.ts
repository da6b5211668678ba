import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig, type RateLimitedRoute } from '../config.js';
import { callUnary } from '../grpcClients.js';
import { sessionOf, type Auth } from './auth.js';
import {
  DEVICE_COOKIE,
  clearSessionCookie,
  cookiePolicyOf,
  setDeviceCookie,
  setSessionCookie,
} from './cookies.js';
import { countLogins } from '../metrics.js';
import { ctxOf } from './grpcContext.js';
import { HttpError } from './errors.js';
import { correlationId, rateLimit } from './middleware.js';
import { defaultAvatarUrl, referralJson, userJson } from './userView.js';
import { parseBody, parseEmailParam, parseTokenParam, schemas } from './validation.js';
import {
  DEFAULT_PAGE,
  INVALID_PAGE_QUERY,
  NEXT_CURSOR_HEADER,
  pageQuerySchema,
  setNextCursor,
} from './pages.js';

export interface UsersRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  kv: KeyValueStore;
  auth: Auth;
}

export const NO_REFERRALS = 'No referrals';

/** getUsers pages like every list (pages.ts). */
export const INVALID_USERS_QUERY = INVALID_PAGE_QUERY;
export { NEXT_CURSOR_HEADER };
/** A page's size when a paged getUsers names none. */
export const USERS_PAGE = DEFAULT_PAGE;
/** `id`: only that user (an admin screen about one user opened by its address); not with a page or `q`. */
const usersPageQuery = pageQuerySchema.extend({
  q: z.string().max(200).optional(),
  id: z.string().min(1).max(128).optional(),
});

/** /api/users/* exactly as spec §7 "Account" lists them. */
export function usersRouter({ config, identity, kv, auth }: UsersRouteDeps): Router {
  const r = Router();
  const secure = cookiePolicyOf(config);
  const ctx = ctxOf(config);
  const limit = (name: RateLimitedRoute, subject?: (req: Request) => string | undefined) =>
    rateLimit(kv, name, { ...DEFAULT_RATE_LIMITS[name], ...config.rateLimits?.[name] }, subject);
  const bodyEmail = (req: Request) => (typeof req.body?.email === 'string' ? req.body.email : undefined);
  const paramEmail = (req: Request) => (typeof req.params.email === 'string' ? req.params.email : undefined);
  const deviceToken = (req: Request): string => {
    const v: unknown = req.cookies?.[DEVICE_COOKIE];
    return typeof v === 'string' ? v : '';
  };

  /** A sign-in: session cookie, device cookie when the browser became trusted, the user as JSON. */
  const signedIn = (
    req: Request,
    res: Response,
    auth: id.AuthResponse,
    status = 200,
    extra: Record<string, unknown> = {},
  ) => {
    if (auth.sessionToken) setSessionCookie(res, auth.sessionToken, secure);
    if (auth.deviceToken) setDeviceCookie(res, auth.deviceToken, secure);
    res.status(status).json({ ...userJson(auth.user, defaultAvatarUrl(req)), ...extra });
  };

  r.post('/register', limit('register'), async (req, res) => {
    const b = parseBody(schemas.register, req.body);
    const out = await callUnary(
      identity,
      'register',
      id.RegisterRequest.fromPartial({
        name: b.name,
        email: b.email,
        password: b.password,
        phone: b.phone,
        country: b.country,
        referralCode: b.referralCode ?? '',
        deviceToken: deviceToken(req),
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    signedIn(req, res, out, 201);
  });

  r.post('/login', countLogins.password, limit('login', bodyEmail), async (req, res) => {
    const b = parseBody(schemas.login, req.body);
    const out = await callUnary(
      identity,
      'login',
      id.LoginRequest.fromPartial({
        email: b.email,
        password: b.password,
        deviceToken: deviceToken(req),
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    signedIn(req, res, out);
  });

  r.get('/logout', async (req, res) => {
    const s = await auth.optional(req, res);
    let message = 'Logout successful';
    if (s) {
      try {
        const out = await callUnary(
          identity,
          'logout',
          id.LogoutRequest.fromPartial({ caller: s.caller }),
          ctx(req),
        );
        message = out.message || message;
      } catch {
        // The cookie goes either way; a session identity cannot find is already gone.
      }
    }
    clearSessionCookie(res, secure);
    res.json({ message });
  });

  r.get('/loginStatus', async (req, res) => {
    const s = await auth.optional(req, res);
    res.json(s !== null);
  });

  r.get('/getUser', auth.requireUser, async (req, res) => {
    // identity's Authenticate answered the session's user with the principal (kept fresh: auth.ts)
    const s = sessionOf(res);
    const u =
      s.principal.user ??
      (await callUnary(identity, 'getUser', id.GetUserRequest.fromPartial({ caller: s.caller }), ctx(req)));
    res.json(userJson(u, defaultAvatarUrl(req)));
  });

  r.patch('/updateUser', auth.requireUser, async (req, res) => {
    const b = parseBody(schemas.updateUser, req.body);
    const u = await callUnary(
      identity,
      'updateUser',
      id.UpdateUserRequest.fromPartial({ caller: sessionOf(res).caller, ...b }),
      ctx(req),
    );
    res.json(userJson(u, defaultAvatarUrl(req)));
  });

  r.post('/sendVerificationEmail', auth.requireUser, async (req, res) => {
    const out = await callUnary(
      identity,
      'sendVerificationEmail',
      id.SendVerificationEmailRequest.fromPartial({ caller: sessionOf(res).caller }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.patch('/verifyUser/:verificationToken', async (req, res) => {
    const token = parseTokenParam(req.params.verificationToken, 'Invalid or expired token');
    const out = await callUnary(
      identity,
      'verifyUser',
      id.VerifyUserRequest.fromPartial({ verificationToken: token, correlationId: correlationId(req) }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.patch('/changePassword', auth.requireUser, async (req, res) => {
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
  });

  r.patch('/resetPassword/:resetToken', limit('resetPassword'), async (req, res) => {
    const token = parseTokenParam(req.params.resetToken, 'Invalid or expired token');
    const b = parseBody(schemas.resetPassword, req.body);
    const out = await callUnary(
      identity,
      'resetPassword',
      id.ResetPasswordRequest.fromPartial({
        resetToken: token,
        password: b.password,
        correlationId: correlationId(req),
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.post('/forgotPassword', limit('forgotPassword', bodyEmail), async (req, res) => {
    const b = parseBody(schemas.forgotPassword, req.body);
    const out = await callUnary(
      identity,
      'forgotPassword',
      id.ForgotPasswordRequest.fromPartial({
        email: b.email,
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  // Without limit/cursor/q: every user (the spec's answer). With them: one page, newest first, and the
  // next page's cursor in X-Next-Cursor (absent on the last page); the body stays a list of users.
  r.get('/getUsers', auth.requireAdmin, async (req, res) => {
    const page = usersPageQuery.safeParse(req.query);
    if (!page.success) throw new HttpError(400, INVALID_USERS_QUERY);
    const paged =
      page.data.limit !== undefined || page.data.cursor !== undefined || page.data.q !== undefined;
    if (paged && page.data.id !== undefined) throw new HttpError(400, INVALID_USERS_QUERY);
    const out = await callUnary(
      identity,
      'listUsers',
      id.ListUsersRequest.fromPartial({
        caller: sessionOf(res).caller,
        ...(paged
          ? { limit: page.data.limit ?? USERS_PAGE, cursor: page.data.cursor ?? '', query: page.data.q ?? '' }
          : {}),
        userId: page.data.id ?? '',
      }),
      ctx(req),
    );
    setNextCursor(res, out.nextCursor);
    res.json(out.users.map((u) => userJson(u, defaultAvatarUrl(req))));
  });

  r.get('/userStats', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      identity,
      'getUserStats',
      id.GetUserStatsRequest.fromPartial({ caller: sessionOf(res).caller }),
      ctx(req),
    );
    res.json({
      total: out.total,
      verified: out.verified,
      unverified: out.unverified,
      suspended: out.suspended,
    });
  });

  r.post('/upgradeUser', auth.requireAdmin, async (req, res) => {
    const b = parseBody(schemas.upgradeUser, req.body);
    const out = await callUnary(
      identity,
      'upgradeUser',
      id.UpgradeUserRequest.fromPartial({
        caller: sessionOf(res).caller,
        userId: b.id,
        role: b.role,
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.post('/sendLoginCode/:email', limit('sendLoginCode', paramEmail), async (req, res) => {
    const email = parseEmailParam(req.params.email);
    const out = await callUnary(
      identity,
      'sendLoginCode',
      id.SendLoginCodeRequest.fromPartial({
        email,
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.post('/loginWithCode/:email', countLogins.code, limit('loginWithCode', paramEmail), async (req, res) => {
    const email = parseEmailParam(req.params.email);
    const b = parseBody(schemas.loginWithCode, req.body);
    const out = await callUnary(
      identity,
      'loginWithCode',
      id.LoginWithCodeRequest.fromPartial({
        email,
        loginCode: b.loginCode,
        deviceToken: deviceToken(req),
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    // Spec §4: login-with-code success "shows the server message".
    signedIn(req, res, out, 200, out.message ? { message: out.message } : {});
  });

  r.post('/google/callback', countLogins.google, limit('google'), async (req, res) => {
    const b = parseBody(schemas.google, req.body);
    const out = await callUnary(
      identity,
      'googleLogin',
      id.GoogleLoginRequest.fromPartial({
        credential: b.credential,
        deviceToken: deviceToken(req),
        correlationId: correlationId(req),
        clientIp: req.ip ?? '',
      }),
      ctx(req),
    );
    signedIn(req, res, out);
  });

  r.post('/impersonate/:id', auth.requireAdmin, async (req, res) => {
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const out = await callUnary(
      identity,
      'impersonate',
      id.ImpersonateRequest.fromPartial({ caller: sessionOf(res).caller, userId }),
      ctx(req),
    );
    if (out.sessionToken) setSessionCookie(res, out.sessionToken, secure);
    res.json({
      message: out.message || 'Impersonation started',
      user: userJson(out.user, defaultAvatarUrl(req)),
    });
  });

  r.post('/exit-impersonation', auth.requireUser, async (req, res) => {
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
  });

  r.get('/referrals', auth.requireUser, async (req, res) => {
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
  });

  r.delete('/:id', auth.requireAdmin, async (req, res) => {
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const out = await callUnary(
      identity,
      'deleteUser',
      id.DeleteUserRequest.fromPartial({ caller: sessionOf(res).caller, userId }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  return r;
}
