import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Request, RequestHandler, Response } from 'express';
import {
  AuthenticateRequest,
  type IdentityServiceClient,
  type Principal,
} from '@meridian/proto/meridian/identity/v1/identity';
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import { isUserKeyDestroyed, type PersonalData } from '@meridian/platform/personalData';
import { callUnary } from '../grpcClients.js';
import { SESSION_COOKIE, clearSessionCookie, setSessionCookie, type CookiePolicy } from './cookies.js';
import { HttpError, isServiceError } from './errors.js';
import { correlationId } from './middleware.js';
import { clientAddress } from './grpcContext.js';
import type { RevocationFeed } from '../sessionRevocations.js';
import { SessionCache } from './sessionCache.js';
import { NOT_ADMIN, NOT_LOGGED_IN, SERVICE_UNAVAILABLE } from './refusals.js';

export interface Session {
  principal: Principal;
  caller: Caller;
  token: string;
}

/** The session token: the session cookie, else `Authorization: Bearer <token>`. */
export function sessionTokenOf(req: Request): { token: string; fromCookie: boolean } | null {
  const cookie: unknown = req.cookies?.[SESSION_COOKIE];
  if (typeof cookie === 'string' && cookie.length > 0) return { token: cookie, fromCookie: true };
  const header = req.get('authorization');
  const m = header?.match(/^Bearer\s+(\S+)$/i);
  return m ? { token: m[1], fromCookie: false } : null;
}

type Resolved = { session: Session } | { refused: string } | { anonymous: true };

export interface AuthDeps {
  identity: IdentityServiceClient;
  cookies: CookiePolicy;
  deadlineMs?: number;
  /**
   * Identity's revocation announcements. With them, identity's answer is cached per token for a few
   * seconds (sessionCache.ts: dropped at once on a revocation on every instance); without, every
   * request asks identity.
   */
  revocations?: RevocationFeed;
  /** Bound of a cached principal's life, ms (default SESSION_CACHE_TTL_MS). */
  sessionCacheTtlMs?: number;
  /**
   * Seals the client address every Caller carries (sealedCallerAddress): personal data, stored by every
   * service in the events the request causes, so it is sealed with the key of the person at the keyboard.
   */
  personalData: PersonalData;
}

/**
 * The client address as the Caller carries it into every service (the audit trail's "from which address",
 * event metadata everywhere): sealed with the key of the person at the keyboard (the impersonating admin
 * while impersonating), so a deleted person's addresses are unreadable in every service's store, bus and
 * backup. The gateway keeps the plain address in memory for what needs it (rate limits: `req.ip`).
 * '' when there is no address, or when that person's key is gone (deleted meanwhile: nothing readable is
 * written for them). Any other failure to get the key fails the request with 503 (never an address in clear).
 */
export async function sealedCallerAddress(
  personalData: PersonalData,
  principal: Pick<Principal, 'userId' | 'impersonatorId'>,
  address: string,
): Promise<string> {
  if (!address) return '';
  try {
    return await personalData.seal(principal.impersonatorId || principal.userId, address);
  } catch (err) {
    if (isUserKeyDestroyed(err)) return '';
    // the key store (identity) did not answer: 503, the cause logged; never the address in clear
    throw Object.assign(new HttpError(503, SERVICE_UNAVAILABLE), { cause: err });
  }
}

/**
 * A session is identity's Authenticate answer (signature, live session record, role: revoked and
 * suspended sessions are refused), asked once per token and cached while the revocation feed is live
 * (see sessionCache.ts). A slid-forward token replaces the cookie.
 */
export function createAuth(deps: AuthDeps) {
  const cache = deps.revocations
    ? new SessionCache(deps.revocations, {
        ttlMs: deps.sessionCacheTtlMs,
        retentionMs: Math.max(30_000, 2 * (deps.deadlineMs ?? 10_000)),
      })
    : null;
  /** Concurrent requests with one uncached token share one Authenticate call. */
  const inflight = new Map<string, Promise<Principal>>();

  function authenticate(token: string, cid: string): Promise<Principal> {
    const hit = cache?.get(token);
    if (hit) return Promise.resolve(hit);
    const pending = inflight.get(token);
    if (pending) return pending;
    const ticket = cache?.ticket();
    const call = callUnary(
      deps.identity,
      'authenticate',
      AuthenticateRequest.fromPartial({ sessionToken: token }),
      {
        correlationId: cid,
        deadlineMs: deps.deadlineMs,
      },
    )
      .then((principal) => {
        if (cache && ticket) cache.put(token, principal, ticket);
        return principal;
      })
      .finally(() => inflight.delete(token));
    inflight.set(token, call);
    return call;
  }

  async function resolve(req: Request, res: Response): Promise<Resolved> {
    const cached = res.locals.auth as Resolved | undefined;
    if (cached) return cached;
    const found = sessionTokenOf(req);
    let result: Resolved | undefined;
    if (!found) {
      result = { anonymous: true };
    } else {
      const cid = correlationId(req);
      let principal: Principal | undefined;
      try {
        principal = await authenticate(found.token, cid);
      } catch (err) {
        if (
          isServiceError(err) &&
          (err.code === GrpcStatus.UNAUTHENTICATED || err.code === GrpcStatus.NOT_FOUND)
        ) {
          if (found.fromCookie) clearSessionCookie(res, deps.cookies);
          result = { refused: err.details?.trim() || NOT_LOGGED_IN };
        } else {
          throw err;
        }
      }
      if (principal) {
        let token = found.token;
        if (principal.refreshedSessionToken) {
          token = principal.refreshedSessionToken;
          if (found.fromCookie) setSessionCookie(res, token, deps.cookies);
        }
        // sealed outside the try above: a failure to get the key is no refusal of the session
        const address = await sealedCallerAddress(deps.personalData, principal, clientAddress(req));
        result = {
          session: {
            principal,
            token,
            caller: {
              userId: principal.userId,
              sessionId: principal.sessionId,
              impersonatorId: principal.impersonatorId,
              correlationId: cid,
              address,
            },
          },
        };
      }
    }
    result ??= { anonymous: true };
    res.locals.auth = result;
    return result;
  }

  /** The session, or null when anonymous or refused (for routes open to everyone). */
  async function optional(req: Request, res: Response): Promise<Session | null> {
    const r = await resolve(req, res);
    return 'session' in r ? r.session : null;
  }

  /** The session, else 401. */
  async function required(req: Request, res: Response): Promise<Session> {
    const r = await resolve(req, res);
    if ('session' in r) return r.session;
    throw new HttpError(401, 'refused' in r ? r.refused : NOT_LOGGED_IN);
  }

  const requireUser: RequestHandler = async (req, res, next) => {
    await required(req, res);
    next();
  };

  /** Admin routes are refused here (401 anonymous, 403 other roles); the service checks again. */
  const requireAdmin: RequestHandler = async (req, res, next) => {
    const s = await required(req, res);
    if (s.principal.role !== 'admin') throw new HttpError(403, NOT_ADMIN);
    next();
  };

  return { resolve, optional, required, requireUser, requireAdmin, sessionCache: cache };
}

export type Auth = ReturnType<typeof createAuth>;

/** The session established by requireUser / requireAdmin. */
export function sessionOf(res: Response): Session {
  const r = res.locals.auth as Resolved | undefined;
  if (!r || !('session' in r)) throw new HttpError(401, NOT_LOGGED_IN);
  return r.session;
}
