/**
 * What the /api/users routes share (signInRoutes.ts, profileRoutes.ts, userAdminRoutes.ts): the clients,
 * the rate limits, the sign-in answer.
 */
import type { Request, Response } from 'express';
import type * as id from '@meridian/proto/meridian/identity/v1/identity';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig, type RateLimitedRoute } from '../config.js';
import { sessionOf, type Auth } from './auth.js';
import { DEVICE_COOKIE, cookiePolicyOf, setDeviceCookie, setSessionCookie } from './cookies.js';
import { ctxOf } from './grpcContext.js';
import { correlationId, rateLimit } from './middleware.js';
import type { MoneyClients } from '../moneyClients.js';
import { defaultAvatarUrl, userJson } from './userView.js';
import { DEFAULT_PAGE, INVALID_PAGE_QUERY, NEXT_CURSOR_HEADER } from './pages.js';

export interface UsersRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  kv: KeyValueStore;
  auth: Auth;
  /** The money services: a user's deletion closes their accounts there first (userDeletion.ts). */
  money?: MoneyClients;
}

export const NO_REFERRALS = 'No referrals';

/** getUsers pages like every list (pages.ts). */
export const INVALID_USERS_QUERY = INVALID_PAGE_QUERY;
export { NEXT_CURSOR_HEADER };
/** A page's size when a paged getUsers names none. */
export const USERS_PAGE = DEFAULT_PAGE;

/** What the account routes share: clients, rate limits, the sign-in answer. */
export function usersContext({ config, identity, kv, auth, money }: UsersRouteDeps) {
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
  /** The signed-in caller as identity's requests name them. */
  const caller = (res: Response) => ({ caller: sessionOf(res).caller });
  /** Where a request comes from, as identity records and rate-limits it: its correlation id and IP. */
  const origin = (req: Request) => ({ correlationId: correlationId(req), clientIp: req.ip ?? '' });
  /** A sign-in's browser: where it comes from, and its trusted-device token (cookie) if it has one. */
  const browser = (req: Request) => ({ deviceToken: deviceToken(req), ...origin(req) });

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
  /** An impersonation begun or ended: the answered session becomes the cookie's; its message and user. */
  const impersonating = (req: Request, res: Response, out: id.AuthResponse, message: string) => {
    if (out.sessionToken) setSessionCookie(res, out.sessionToken, secure);
    res.json({ message: out.message || message, user: userJson(out.user, defaultAvatarUrl(req)) });
  };
  return {
    auth,
    identity,
    money,
    secure,
    ctx,
    caller,
    impersonating,
    limit,
    bodyEmail,
    paramEmail,
    origin,
    browser,
    signedIn,
  };
}

export type UsersContext = ReturnType<typeof usersContext>;
