import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { clientNetwork, rateLimitClient } from '@meridian/platform/clientNetwork';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import {
  context,
  contextWithSpan,
  extractTrace,
  injectTrace,
  ROOT_CONTEXT,
  runInContext,
  SpanKind,
  SpanStatusCode,
  tracer,
  tracingEnabled,
  type Context,
  type Span,
} from '@meridian/platform/tracing';
import type { GatewayLogger } from '../logger.js';
import type { RateLimitRule } from '../config.js';
import { CSRF_COOKIE, CSRF_HEADER, setCsrfCookie, type CookiePolicy } from './cookies.js';
import { localPortOf, sourceOriginOf, type OriginPolicy } from './origins.js';
import { HttpError } from './errors.js';
import { CROSS_SITE_REFUSED, INVALID_CSRF, TOO_MANY_REQUESTS } from './refusals.js';

const CORRELATION_HEADER = 'x-correlation-id';
const CORRELATION_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's correlation id (from x-correlation-id when well formed, else a new uuid). */
export function correlationId(req: Request): string {
  return (req as Request & { correlationId?: string }).correlationId ?? '';
}

/**
 * Takes or makes x-correlation-id, echoes it, and writes one access-log line per request (no bodies, no
 * personal data: the URL through redactUrl, the client as its network, platform clientNetwork.ts).
 * Traces (platform tracing.ts): a SERVER span per request, child of an inbound W3C `traceparent`; the
 * rest of the request runs in it and the response carries its `traceparent`. Tracing off: an inbound
 * traceparent is passed on to the gRPC calls (and echoed); without one nothing more is done.
 */
export function correlationAndAccessLog(logger: GatewayLogger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get(CORRELATION_HEADER);
    const id = incoming && CORRELATION_RE.test(incoming) ? incoming : randomUUID();
    (req as Request & { correlationId?: string }).correlationId = id;
    res.setHeader(CORRELATION_HEADER, id);
    const started = process.hrtime.bigint();
    const traced = traceRequest(req, res);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        correlationId: id,
        ...traced?.ids,
        req: { method: req.method, url: redactUrl(req.originalUrl), clientNetwork: clientNetwork(req.ip) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(ms * 10) / 10,
      };
      traced?.end();
      if (req.path === '/healthz' || req.path === '/readyz') logger.debug(line, 'probe');
      else if (res.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    if (!traced) return next();
    res.on('close', () => traced.end());
    // body parsing continues from the request stream's events: bind them to the request's context
    context.bind(traced.ctx, req);
    context.bind(traced.ctx, res);
    runInContext(traced.ctx, next);
  };
}

/** The request's trace: its SERVER span (when tracing is on) or the inbound context (when off), if any. */
function traceRequest(req: Request, res: Response) {
  const inbound = req.headers.traceparent;
  const parent = inbound ? extractTrace(req.headers, ROOT_CONTEXT) : ROOT_CONTEXT;
  let span: Span | undefined;
  let ctx: Context | undefined;
  if (tracingEnabled()) {
    span = tracer().startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': redactUrl(req.path) },
      },
      parent,
    );
    ctx = contextWithSpan(parent, span);
  } else if (parent !== ROOT_CONTEXT) {
    ctx = parent;
  }
  const carrier = ctx && injectTrace(ctx);
  if (!ctx || !carrier) return undefined;
  res.setHeader('traceparent', carrier.traceparent);
  const [, traceId, spanId] = carrier.traceparent.split('-');
  let ended = false;
  return {
    ctx,
    ids: { trace_id: traceId, span_id: spanId },
    end() {
      if (ended || !span) return;
      ended = true;
      const route = (req.route as { path?: unknown } | undefined)?.path;
      if (typeof route === 'string') {
        span.updateName(`${req.method} ${req.baseUrl}${route}`);
        span.setAttribute('http.route', `${req.baseUrl}${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
      span.end();
    },
  };
}

/**
 * Secrets travel in some paths (verification and reset links) and emails in others (the login-code routes):
 * never log them. Any other path segment or query value that holds an email (an `@`, plain or encoded) reads
 * '[email]' too.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/verifyUser\/)[^/?#]+/, '$1[redacted]')
    .replace(/(\/resetPassword\/)[^/?#]+/, '$1[redacted]')
    .replace(/(\/(?:sendLoginCode|loginWithCode)\/)[^/?#]+/i, '$1[email]')
    .replace(/([?&](?:token|code)=)[^&#]+/gi, '$1[redacted]')
    .replace(/(^|[/=])[^/?#&=]*(?:@|%40)[^/?#&]*/gi, '$1[email]');
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * CSRF protection of every state-changing request (POST/PUT/PATCH/DELETE), two ways (OWASP):
 *
 * - the standard-header check: a request whose Origin header (or Referer, when Origin is absent) names
 *   one of our own origins (origins.ts: APP_URL's, CORS_ORIGINS, those of the hosts we answer for) passes; one
 *   that names any other origin, or `null`, is refused, and so is one marked `Sec-Fetch-Site: cross-site`;
 * - double submit (docs/architecture.md §3a), for the other requests (no Origin nor Referer, or our host under the
 *   other scheme behind a proxy): an `XSRF-TOKEN` cookie readable by the SPA, set when absent, and a
 *   matching `X-XSRF-TOKEN` header.
 *
 * Clients that send `fetch()` without the header (the original SPA's impersonation calls) pass the first.
 */
export function csrf(cookies: CookiePolicy, origins: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    const cookie: unknown = req.cookies?.[CSRF_COOKIE];
    const hasCookie = typeof cookie === 'string' && cookie.length >= 16;
    if (!hasCookie) setCsrfCookie(res, randomBytes(32).toString('hex'), cookies);
    if (!UNSAFE.has(req.method)) return next();
    const site = siteOf(req, origins);
    if (site === 'own') return next();
    if (site === 'foreign') return next(new HttpError(403, INVALID_CSRF));
    const header = req.get(CSRF_HEADER);
    if (!hasCookie || !header || !safeEqual(header, cookie as string)) {
      next(new HttpError(403, INVALID_CSRF));
      return;
    }
    next();
  };
}

/**
 * Where a request comes from, by its standard headers: `own` when its Origin (or Referer) names one of
 * our origins, `foreign` when it names another (or `null`) or the browser marks it `Sec-Fetch-Site:
 * cross-site`, `unknown` otherwise (no such header, or APP_URL's host under the other scheme: a
 * TLS-terminating proxy TRUST_PROXY does not name, not provably ours).
 */
export function siteOf(req: Request, origins: OriginPolicy): 'own' | 'foreign' | 'unknown' {
  const source = sourceOriginOf(req);
  if (source !== undefined) {
    const port = localPortOf(req);
    if (source !== null && origins.isOwn(source, port)) return 'own';
    if (source === null || !origins.hostAllowed(new URL(source).host, port)) return 'foreign';
  }
  return req.get('sec-fetch-site') === 'cross-site' ? 'foreign' : 'unknown';
}

/**
 * For the one GET that changes state (logout): refused when the request provably comes from another site
 * (a link, an image or a form elsewhere); our own pages, and clients that send no such header, pass.
 */
export function refuseCrossSite(origins: OriginPolicy): RequestHandler {
  return (req, _res, next) =>
    next(siteOf(req, origins) === 'foreign' ? new HttpError(403, CROSS_SITE_REFUSED) : undefined);
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * Fixed-window rate limit in the KeyValueStore (Redis when REDIS_URL is set): per client (an IPv4 address, an
 * IPv6 /64: platform clientNetwork.ts) and, when `subject` gives one (an email), per subject too. 429 with
 * Retry-After when over.
 */
export function rateLimit(
  kv: KeyValueStore,
  name: string,
  rule: RateLimitRule,
  subject?: (req: Request) => string | undefined,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const keys = [`rl:${name}:ip:${rateLimitClient(req.ip)}`];
    const s = subject?.(req);
    // the subject (an email) by its hash: the store (Redis may persist it) never holds an address
    if (s)
      keys.push(`rl:${name}:sub:${createHash('sha256').update(s.toLowerCase().slice(0, 254)).digest('hex')}`);
    for (const key of keys) {
      const count = await kv.incr(key, rule.windowMs);
      if (count > rule.max) {
        const ttl = await kv.ttl(key);
        const retryAfter = Math.max(1, Math.ceil((ttl > 0 ? ttl : rule.windowMs) / 1000));
        res.setHeader('Retry-After', String(retryAfter));
        throw new HttpError(429, TOO_MANY_REQUESTS, { 'Retry-After': String(retryAfter) });
      }
    }
    next();
  };
}
