/**
 * Which hosts the gateway answers for and which browser origins may act on it, from configuration only
 * (never from the Host a request brings: a page on a name rebound to our address would be "same origin"):
 * APP_URL's host, ALLOWED_HOSTS, and outside production localhost, 127.0.0.1 and [::1] on the port the
 * request arrived on; the origins are those hosts' and the separately hosted SPAs of CORS_ORIGINS. One
 * policy for the Host check (app.ts), the CSRF origin check (middleware.ts), CORS (below) and the
 * socket.io handshake (realtime.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { HttpError } from './errors.js';

export interface OriginPolicy {
  /** CORS_ORIGINS, normalised (scheme://host[:port]). */
  readonly corsOrigins: readonly string[];
  /** A CORS_ORIGINS origin: CORS with credentials, and the CSRF origin check accepts it. */
  corsAllowed(origin: string): boolean;
  /**
   * A Host header value we answer for, on a connection that arrived on `localPort`: APP_URL's host, an
   * ALLOWED_HOSTS entry (a bare name matches it on any port), or outside production a loopback name on
   * `localPort`.
   */
  hostAllowed(host: string | undefined, localPort: number | undefined): boolean;
  /** APP_URL's origin, one of CORS_ORIGINS, or an http(s) origin on another host hostAllowed accepts. */
  isOwn(origin: string, localPort: number | undefined): boolean;
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

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** `host[:port]` lower-cased as URL parses it (default ports dropped); undefined when it is no host. */
function normalHost(host: string): string | undefined {
  if (!host || /[/?#@\\\s]/.test(host)) return undefined;
  try {
    const u = new URL(`http://${host}`);
    return u.host;
  } catch {
    return undefined;
  }
}

export function createOriginPolicy(config: {
  appUrl: string;
  corsOrigins?: readonly string[];
  /** ALLOWED_HOSTS: more names (`host` or `host:port`) the gateway answers for. */
  allowedHosts?: readonly string[];
  nodeEnv?: 'development' | 'test' | 'production';
}): OriginPolicy {
  const corsOrigins = (config.corsOrigins ?? []).map((o) => originOf(o)).filter((o) => o !== undefined);
  const cors = new Set(corsOrigins);
  const app = originOf(config.appUrl);
  const exact = new Set<string>();
  const anyPort = new Set<string>();
  if (app) exact.add(new URL(app).host);
  for (const entry of config.allowedHosts ?? []) {
    const h = normalHost(entry.trim());
    if (!h) continue;
    if (/:\d+$/.test(h) && !h.endsWith(']')) exact.add(h);
    else anyPort.add(h);
  }
  const loopback = config.nodeEnv !== 'production';
  const hostAllowed = (host: string | undefined, localPort: number | undefined) => {
    const h = host === undefined ? undefined : normalHost(host);
    if (!h) return false;
    if (exact.has(h)) return true;
    const name = h.replace(/:\d+$/, '');
    if (anyPort.has(name)) return true;
    if (!loopback || localPort === undefined) return false;
    return LOOPBACK_NAMES.some((n) => h === `${n}:${localPort}` || (localPort === 80 && h === n));
  };
  const appHost = app ? new URL(app).host : undefined;
  const appScheme = app ? new URL(app).protocol : 'https:';
  return {
    corsOrigins,
    corsAllowed: (origin) => cors.has(origin),
    hostAllowed,
    // APP_URL's host under its own scheme only (the other one behind a proxy is not provably ours); the
    // loopback names under plain http only (the gateway itself serves no TLS); ALLOWED_HOSTS under APP_URL's
    isOwn: (origin, localPort) => {
      if (origin === app || cors.has(origin)) return true;
      const { host, hostname, protocol } = new URL(origin);
      if (host === appHost || !hostAllowed(host, localPort)) return false;
      const loopbackName = LOOPBACK_NAMES.includes(hostname) || LOOPBACK_NAMES.includes(`[${hostname}]`);
      return protocol === (loopbackName ? 'http:' : appScheme);
    },
  };
}

export const MISDIRECTED =
  'Misdirected request: this server does not answer for that host name (the address in APP_URL, or one of ALLOWED_HOSTS, is the one to use)';

/** Paths the Host check leaves open: the probes (Kubernetes sends the pod's IP as Host), which tell nothing. */
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/** The port the request's connection arrived on (with the Host, what the Host check compares). */
export function localPortOf(req: IncomingMessage): number | undefined {
  return req.socket?.localPort;
}

/** Refuses (421) a request whose Host is not one we answer for, before any route; the probes pass. */
export function requireAllowedHost(policy: OriginPolicy): RequestHandler {
  return (req, _res, next) => {
    if (PROBE_PATHS.has(req.path) && (req.method === 'GET' || req.method === 'HEAD')) return next();
    next(policy.hostAllowed(req.get('host'), localPortOf(req)) ? undefined : new HttpError(421, MISDIRECTED));
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
