/**
 * The gateway's Prometheus metrics (served by @meridian/platform/metrics on METRICS_PORT, never on the
 * public port): HTTP request durations by route pattern, sockets connected, login answers by outcome.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { metrics, secondsSince } from '@meridian/platform/metrics';

const httpDuration = metrics.histogram(
  'http_server_request_duration_seconds',
  'Time to answer an HTTP request, by method, route pattern (never the raw path) and status code.',
  ['method', 'route', 'status_code'],
);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Where the route accessor keeps, on each request, the route Express set and its pattern. */
const ROUTE = Symbol('route');
const ROUTE_PATTERN = Symbol('routePattern');
type Routed = { [ROUTE]?: unknown; [ROUTE_PATTERN]?: string; baseUrl?: string };

/** `route` as an accessor that notes the pattern (with the baseUrl of that moment) when it is set. */
const routeAccessor: PropertyDescriptor & ThisType<Routed> = {
  configurable: true,
  enumerable: true,
  get() {
    return this[ROUTE];
  },
  set(value: { path?: unknown } | undefined) {
    this[ROUTE] = value;
    if (typeof value?.path === 'string') {
      const base = this.baseUrl ?? '';
      this[ROUTE_PATTERN] = value.path === '/' && base ? base : `${base}${value.path}`;
    }
  },
};

/**
 * Wraps the Express app: every answer observed once with the pattern of the route that matched
 * (`/api/users/:id`), captured when the router sets `req.route` (with the baseUrl of that moment).
 * No route: `unmatched` for a 404, else `other` (static files, preflights, refusals by middleware).
 *
 * The accessor is defined once on the app's request prototype (Express gives every request that
 * prototype before routing); defining it on each request made every request object a slow, dictionary-
 * mode object for the rest of its handling. A listener without that prototype gets it per request.
 */
export function withHttpMetrics(app: RequestListener & { request?: object }): RequestListener {
  const onPrototype = !!app.request && Object.defineProperty(app.request, 'route', routeAccessor);
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    if (!onPrototype) Object.defineProperty(req, 'route', routeAccessor);
    res.once('finish', () => {
      const status = res.statusCode;
      httpDuration.observe(
        {
          method: METHODS.has(req.method ?? '') ? req.method : 'OTHER',
          route: (req as Routed)[ROUTE_PATTERN] ?? (status === 404 ? 'unmatched' : 'other'),
          status_code: String(status),
        },
        secondsSince(started),
      );
    });
    app(req, res);
  };
}

const socketsConnected = metrics.sampledGauge(
  'meridian_gateway_sockets_connected',
  'Socket.IO connections open on this gateway instance.',
  [],
);

/** Reports the sockets of `io` at each scrape; returns the function that stops reporting. */
export function measureSockets(io: { engine: { clientsCount: number } }): () => void {
  return socketsConnected.add(() => [{ labels: {}, value: io.engine.clientsCount }]);
}

const logins = metrics.counter(
  'meridian_gateway_logins_total',
  'Login answers by method (password, code, google) and outcome (success, failure, rate_limited).',
  ['method', 'outcome'],
);

export type LoginMethod = 'password' | 'code' | 'google';

/** The outcome of a login answer from its HTTP status (429 rate-limited, 2xx success, else failure). */
export function loginOutcomeOf(status: number): 'success' | 'failure' | 'rate_limited' {
  return status === 429 ? 'rate_limited' : status < 300 ? 'success' : 'failure';
}

/** Middleware put first on a login route: counts its answer, whoever sends it (rate limit, handler, errors). */
export function countLoginAnswers(method: LoginMethod): RequestHandler {
  return (_req, res, next) => {
    res.once('finish', () => logins.inc({ method, outcome: loginOutcomeOf(res.statusCode) }));
    next();
  };
}

/** The counting middleware of each login route (usersRoutes.ts). */
export const countLogins = {
  password: countLoginAnswers('password'),
  code: countLoginAnswers('code'),
  google: countLoginAnswers('google'),
};
