/**
 * Which browser origins may act on the gateway: our own (APP_URL's origin and the origin the request
 * itself was addressed to) and the separately hosted SPAs of CORS_ORIGINS. One policy for the CSRF
 * origin check (middleware.ts), CORS (below) and the socket.io handshake (realtime.ts).
 */
import type { Request, RequestHandler } from 'express';

export interface OriginPolicy {
  /** CORS_ORIGINS, normalised (scheme://host[:port]). */
  readonly corsOrigins: readonly string[];
  /** A CORS_ORIGINS origin: CORS with credentials, and the CSRF origin check accepts it. */
  corsAllowed(origin: string): boolean;
  /** APP_URL's origin, one of CORS_ORIGINS, or `requestOrigin` (the origin the request was sent to). */
  isOwn(origin: string, requestOrigin?: string): boolean;
}

/** The origin of a URL or Origin header value; undefined for 'null', garbage and non-http(s) schemes. */
export function originOf(value: string | undefined): string | undefined {
  if (!value || value === 'null') return undefined;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

export function createOriginPolicy(config: {
  appUrl: string;
  corsOrigins?: readonly string[];
}): OriginPolicy {
  const corsOrigins = (config.corsOrigins ?? []).map((o) => originOf(o)).filter((o) => o !== undefined);
  const cors = new Set(corsOrigins);
  const app = originOf(config.appUrl);
  return {
    corsOrigins,
    corsAllowed: (origin) => cors.has(origin),
    isOwn: (origin, requestOrigin) => origin === app || origin === requestOrigin || cors.has(origin),
  };
}

/** The origin an Express request was addressed to (scheme from `trust proxy`, host from the Host header). */
export function requestOriginOf(req: Request): string | undefined {
  const host = req.get('host');
  return host ? originOf(`${req.protocol}://${host}`) : undefined;
}

/**
 * Where a request says it comes from (OWASP's standard-header check): the Origin header, else the
 * Referer's origin. `undefined` when the browser sent neither; `null` when what it sent names no
 * usable origin (Origin: null from a sandboxed frame or a privacy redirect).
 */
export function sourceOriginOf(req: Request): string | null | undefined {
  const origin = req.get('origin');
  if (origin !== undefined) return originOf(origin) ?? null;
  const referer = req.get('referer');
  if (referer !== undefined) return originOf(referer) ?? null;
  return undefined;
}

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS =
  'Content-Type, X-XSRF-TOKEN, Idempotency-Key, X-Correlation-ID, Authorization, Accept';
const EXPOSED_HEADERS = 'X-Correlation-ID, Retry-After, X-Next-Cursor';

/**
 * CORS for CORS_ORIGINS only, with credentials. Preflights (OPTIONS with Access-Control-Request-Method)
 * are answered here, before the CSRF check: 204 with the allow headers for a listed origin, 204 without
 * them (the browser refuses) for any other. Without CORS_ORIGINS no cross-origin read is allowed.
 */
export function cors(policy: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    const allowed = origin !== undefined && policy.corsAllowed(originOf(origin) ?? '');
    if (policy.corsOrigins.length > 0) res.vary('Origin');
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', originOf(origin)!);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS' || req.get('access-control-request-method') === undefined) return next();
    if (allowed) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    res.status(204).end();
  };
}
