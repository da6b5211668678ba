/**
 * The gateway's route table: each route declared once, with its method and path, who may call it, its
 * request and answer schemas, the refusals it documents, and its handler. Generated from it:
 *
 * - the Express routers (routerOf: the access guard, then the route's middleware, then its handler);
 * - the OpenAPI document (openapi.ts, from docOf);
 * - the authorization matrix the tests walk (testing/routeMatrix.ts).
 *
 * Each *Routes.ts module exports its table (an array of Route) and a router built from it; routes.ts lists
 * the tables. A route declared with `route(...)` has its path parameters and JSON body parsed by the table
 * before its handler runs, which gets them typed with the request's gRPC call, and may return its answer
 * for the table to send through the route's answer schema.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { RateLimitedRoute } from '../config.js';
import { callUnary, type RequestOf, type ResponseOf, type UnaryMethod } from '@meridian/platform/grpc/index';
import type { Client } from '@grpc/grpc-js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import type { GrpcContext } from './grpcContext.js';
import { IMPERSONATING_MONEY } from './refusals.js';
import { messageAnswer } from './answers.js';
import { parseBody } from './validation.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route:
 * - public: anyone, signed in or not, with the same answer whoever asks (a refused credential on a
 *   sign-in route is that route's own 401);
 * - user: a live session (401 anonymous or suspended); an impersonating admin acts as the user;
 * - userMoney: as user, but a money command: 403 while impersonating (maker-checker);
 * - userSelf: as user, but only the user in person (their profile, password, KYC documents, their words to
 *   support): 403 while impersonating, with the route's `impersonatingRefusal`;
 * - admin: the admin role (401 anonymous or suspended, 403 others, impersonating included: the session
 *   carries the user's role);
 * - adminMoney: as admin, and a money command.
 */
export type Access = 'public' | 'user' | 'userMoney' | 'userSelf' | 'admin' | 'adminMoney';

/** Access as the OpenAPI document states it (`x-access`, the security requirement). */
export type DocAccess = 'public' | 'user' | 'admin';

export interface Answer {
  description: string;
  /** A JSON answer (its component); absent for the non-JSON media below. */
  schema?: z.ZodType;
  /** Non-JSON answer media type and JSON Schema (a file, a page). */
  media?: { type: string; schema: Record<string, unknown> };
}

/** What the OpenAPI document says of one route. */
export interface RouteDoc {
  method: HttpMethod;
  /** The path as Express registers it (`:param`), from the root (`/api/...`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: DocAccess;
  /** The JSON body schema the route parses (parseBody). */
  body?: z.ZodType;
  /** multipart/form-data file fields (streamed to a service). */
  files?: string[];
  /** Optional text fields beside `files` in the multipart body (name → description). */
  formFields?: Record<string, string>;
  query?: Record<string, string>;
  /** Response headers of the success answer (name -> description). */
  okHeaders?: Record<string, string>;
  rateLimit?: RateLimitedRoute;
  /** The route reads an optional Idempotency-Key header. */
  idempotencyKey?: boolean;
  /** Success status (default 200) and answer. */
  status?: number;
  ok: Answer;
  /**
   * Messages of the error answers the route sends (or passes on from its service), by HTTP status;
   * `<name>` stands for a part that varies. The cross-cutting ones (401/403 of the access, CSRF, body
   * validation, rate limit, 500/503) are added by openapi.ts (errorMessagesOf).
   */
  errors?: Partial<Record<number, string[]>>;
  /** Only outside production. */
  devOnly?: boolean;
  /** Mounted only with the money services. */
  money?: boolean;
  /** Answered by the gateway alone (no service call, so no 500/503 from one). */
  local?: boolean;
}

/**
 * One route of the table. `C` is what its router module prepares once per app (clients, rate limiters,
 * helpers) and hands to `middleware` and `handler`.
 */
export interface Route<C> extends Omit<RouteDoc, 'access'> {
  access: Access;
  /** userSelf: the message of the 403 an impersonating admin gets (from the service that refuses). */
  impersonatingRefusal?: string;
  /** The request ends or replaces the caller's session (logout, impersonation). */
  consumesSession?: true;
  /**
   * The handler checks who calls (auth.optional: a support visitor, known by a cookie, is answered as well as
   * a session), so no access guard is mounted; `access` is what it enforces on sessions.
   */
  guardedByHandler?: true;
  /** Run after the access guard, before the handler, in order (rate limits, metrics, request checks). */
  middleware?: (c: C) => RequestHandler[];
  /** The Express handler (route(...) builds it from a handler that gets the parsed input). */
  handler: (c: C) => RequestHandler;
}

/** The OpenAPI document's tags, in the order the document first names them. */
export const TAGS = {
  account: 'Account',
  audit: 'Audit',
  other: 'Other',
  kyc: 'KYC',
  deposits: 'Deposits',
  investments: 'Investments',
  withdrawals: 'Withdrawals',
  claims: 'Review claims',
  balances: 'Balance edits',
  operations: 'Operations',
  support: 'Support chat',
} as const;

/** A table's routes, typed by what its router prepares. */
export const routeTable = <C>(routes: Route<C>[]): readonly Route<C>[] => routes;

export const json = <S extends z.ZodType>(schema: S, description: string) => ({ schema, description });
export const message = (description: string) => json(messageAnswer, description);

export const docAccessOf = (access: Access): DocAccess =>
  access === 'public' ? 'public' : access === 'admin' || access === 'adminMoney' ? 'admin' : 'user';

/** The OpenAPI side of a route. */
export function docOf(route: Route<never>): RouteDoc {
  const {
    access,
    impersonatingRefusal: _refusal,
    consumesSession: _consumes,
    guardedByHandler: _guarded,
    middleware: _middleware,
    handler: _handler,
    ...doc
  } = route;
  return { ...doc, access: docAccessOf(access) };
}

/** `<method> <path>`, e.g. `put /api/invest/:id/approve`: the route's key in the authorization matrix. */
export const routeKey = (route: Pick<RouteDoc, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Money commands (deposit, invest, withdraw, balance edits) are refused while an admin impersonates a
 * user, before any other check answers (a balance edit would say "admin only"); the services refuse
 * them again. After auth.requireUser.
 */
export function refuseImpersonation(_req: Request, res: Response, next: NextFunction): void {
  if (sessionOf(res).caller.impersonatorId) throw new HttpError(403, IMPERSONATING_MONEY);
  next();
}

/**
 * The guards of an access level, first in the route's chain. userSelf is a user route here: the service
 * refuses the impersonating admin (`impersonatingRefusal`) unless the route's middleware does.
 */
export function guardsOf(access: Access, auth: Auth | undefined): RequestHandler[] {
  if (access === 'public') return [];
  if (!auth) throw new Error(`a ${access} route needs the router's auth`);
  switch (access) {
    case 'user':
    case 'userSelf':
      return [auth.requireUser];
    case 'userMoney':
      return [auth.requireUser, refuseImpersonation];
    case 'admin':
      return [auth.requireAdmin];
    case 'adminMoney':
      return [auth.requireUser, refuseImpersonation, auth.requireAdmin];
  }
}

/**
 * An Express router of a table's routes, in table order, mounted at `mount` (`/api`, `/api/users`, `` for
 * the root): each route's path is its table path without that prefix. `c.auth` guards the routes that are
 * not public.
 */
export function routerOf<C extends object>(routes: readonly Route<C>[], c: C, mount: string): Router {
  const r = Router();
  const { auth } = c as { auth?: Auth };
  for (const route of routes) {
    if (!route.path.startsWith(`${mount}/`))
      throw new Error(`${routeKey(route)} is not under the router's mount point ${mount}`);
    r[route.method](
      route.path.slice(mount.length),
      ...(route.guardedByHandler ? [] : guardsOf(route.access, auth)),
      ...(route.middleware?.(c) ?? []),
      route.handler(c),
    );
  }
  return r;
}

/** A unary gRPC call with one request's gRPC context (its correlation id, the gateway's deadline). */
export type RequestCall = <Cl extends Client, M extends UnaryMethod<Cl>>(
  client: Cl,
  method: M,
  request: RequestOf<Cl, M>,
) => Promise<ResponseOf<Cl, M>>;

/** What the table hands a route's handler besides the request: its input, parsed, and its gRPC call. */
export interface RouteInput<B, P> {
  /**
   * The JSON body as the route's `body` schema parses it (parseBody), refused with its 400 where the handler
   * first reads it; undefined without one.
   */
  readonly body: B;
  /** The path parameters as the route's `params` parse them; undefined without them. */
  params: P;
  call: RequestCall;
}

/** What a parsed route's context carries: the request's gRPC context (grpcContext.ts). */
export interface CallingContext {
  ctx: (req: Request) => GrpcContext;
}

/** The JSON a handler may return for the table to send: the input of the route's answer schema. */
export type AnswerOf<O> = O extends { schema: infer A extends z.ZodType } ? z.input<A> : never;

/**
 * A route whose input the table parses before its handler runs: the path parameters (`params`, a parser of
 * `req.params` that refuses with the route's 400s: validation.ts parseTokenParam, parseEmailParam), then
 * the JSON body (`body`, a schema: parseBody). The handler gets them typed, with the request's gRPC call,
 * and either answers itself or returns what the table sends: its `ok` answer, through that answer's schema
 * (keys the schema does not name are left out), with the route's `status`.
 */
type ParsedRoute<C, B, P, O> = Omit<Route<C>, 'body' | 'handler' | 'ok'> & {
  ok: O;
  params?: (raw: Request['params']) => P;
  handler: (c: C, input: RouteInput<B, P>, req: Request, res: Response) => Promise<AnswerOf<O> | void> | void;
};

/** A route of the table whose input the table parses (ParsedRoute); its handler gets it typed. */
export function route<C extends CallingContext, S extends z.ZodType, P, O extends Answer>(
  r: ParsedRoute<C, z.output<S>, P, O> & { body: S; params: (raw: Request['params']) => P },
): Route<C>;
export function route<C extends CallingContext, S extends z.ZodType, O extends Answer>(
  r: ParsedRoute<C, z.output<S>, undefined, O> & { body: S; params?: undefined },
): Route<C>;
export function route<C extends CallingContext, P, O extends Answer>(
  r: ParsedRoute<C, undefined, P, O> & { body?: undefined; params: (raw: Request['params']) => P },
): Route<C>;
export function route<C extends CallingContext, O extends Answer>(
  r: ParsedRoute<C, undefined, undefined, O> & { body?: undefined; params?: undefined },
): Route<C>;
export function route<C extends CallingContext, S extends z.ZodType, P, O extends Answer>(
  r: ParsedRoute<C, z.output<S> | undefined, P | undefined, O> & { body?: S },
): Route<C> {
  const { params, handler, ...rest } = r;
  return {
    ...rest,
    handler: (c) => async (req, res) => {
      const ctx = c.ctx(req);
      const schema = r.body;
      const answer = await handler(
        c,
        {
          params: params?.(req.params),
          // parsed where the handler first reads it: one that checks the caller first reads it after
          get body() {
            return schema ? parseBody(schema, req.body) : undefined;
          },
          call: (client, method, request) => callUnary(client, method, request, ctx),
        },
        req,
        res,
      );
      if (answer === undefined) return;
      if (!r.ok.schema) throw new Error(`${routeKey(r)} answers ${r.ok.media?.type}, not JSON`);
      res.status(r.status ?? 200).json(r.ok.schema.parse(answer));
    },
  };
}
