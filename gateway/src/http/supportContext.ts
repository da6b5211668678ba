/**
 * What the support chat's routes (supportRoutes.ts, supportAdminRoutes.ts) are built from: their dependencies
 * and the context their handlers share.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type * as sp from '@meridian/proto/meridian/support/v1/support';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import { DEFAULT_RATE_LIMITS, type GatewayConfig } from '../config.js';
import type { MoneyClients } from '../moneyClients.js';
import type { Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import { sessionOf, type Auth } from './auth.js';
import { TOO_MANY_REQUESTS } from './refusals.js';
import type { CookiePolicy } from './cookies.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { rateLimit } from './middleware.js';
import { SUPPORT_ROUTE_MESSAGES, SUPPORT_VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_MS } from './supportViews.js';

export interface SupportRouteDeps {
  config: GatewayConfig;
  support: sp.SupportServiceClient;
  kyc: KycServiceClient;
  money?: MoneyClients;
  kv: KeyValueStore;
  auth: Auth;
  claims: Claims;
  cookies: CookiePolicy;
  /** Canned replies (default DEFAULT_CANNED_REPLIES). */
  cannedReplies?: ReadonlyArray<{ id: string; title: string; text: string }>;
}

/** Runs a middleware inside a handler (a limit that applies to one kind of caller only). */
export const apply = (mw: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => {
    void Promise.resolve(mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });

/** The refusals of an investor's or visitor's message to their own conversation. */
export const OWN_MESSAGE_REFUSALS = {
  401: [SUPPORT_ROUTE_MESSAGES.noVisitor, SUPPORT_ROUTE_MESSAGES.badLink],
  403: [
    'This conversation is no longer available',
    SUPPORT_ROUTE_MESSAGES.badLink,
    'Messages cannot be sent while impersonating a user',
  ],
  429: [TOO_MANY_REQUESTS],
};

/** What the support routes' handlers run with, prepared once per app. */
export function supportContext(deps: SupportRouteDeps) {
  const { config, support, auth, claims, kv, cookies } = deps;
  const ctx = ctxOf(config);
  const caller = (res: Response) => {
    const s = sessionOf(res);
    return { caller: s.caller, callerRole: s.principal.role };
  };
  /** The signed-in caller's id, if any (auth.optional or a require* ran before). */
  const signedIn = (res: Response | undefined): string | undefined => {
    const resolved = res?.locals.auth as object | undefined;
    return resolved && 'session' in resolved ? sessionOf(res!).principal.userId : undefined;
  };
  const limit = (
    name: 'supportVisitorStart' | 'supportVisitorMessage' | 'supportAttachment',
    subject?: (req: Request) => string | undefined,
  ) => rateLimit(kv, name, { ...DEFAULT_RATE_LIMITS[name], ...config.rateLimits?.[name] }, subject);
  const visitorToken = (req: Request): string => {
    const token: unknown = req.cookies?.[SUPPORT_VISITOR_COOKIE];
    if (typeof token !== 'string' || !token) throw new HttpError(401, SUPPORT_ROUTE_MESSAGES.noVisitor);
    return token;
  };
  const setVisitorCookie = (res: Response, token: string) =>
    res.cookie(SUPPORT_VISITOR_COOKIE, token, {
      httpOnly: true,
      sameSite: cookies.sameSite,
      secure: cookies.secure,
      path: '/api/support',
      maxAge: VISITOR_COOKIE_MAX_AGE_MS,
    });
  const investor = (res: Response) => {
    const s = sessionOf(res);
    return {
      ...caller(res),
      callerName: s.principal.user?.name ?? '',
      callerEmail: s.principal.user?.email ?? '',
      callerVerified: s.principal.user?.isVerified ?? false,
    };
  };
  const visitorMessages = limit(
    'supportVisitorMessage',
    (req) => String(req.cookies?.[SUPPORT_VISITOR_COOKIE] ?? '').split('.')[0],
  );
  const attachmentLimit = limit(
    'supportAttachment',
    (req) => signedIn(req.res) ?? String(req.cookies?.[SUPPORT_VISITOR_COOKIE] ?? '').split('.')[0],
  );
  /** A reply (or deposit address) claims the conversation for this admin; another admin's hold is a 409. */
  const claimFor = async (res: Response, conversationId: string) =>
    claims.claim('support', conversationId, claimAdminOf(res));
  return {
    deps,
    config,
    support,
    auth,
    ctx,
    caller,
    limit,
    visitorToken,
    setVisitorCookie,
    investor,
    visitorMessages,
    attachmentLimit,
    claimFor,
  };
}

export type SupportContext = ReturnType<typeof supportContext>;
