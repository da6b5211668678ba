/**
 * The REST API as an OpenAPI 3.1 document, generated from the route table (routeTable.ts, routes.ts): the
 * zod schemas that validate the requests (validation.ts, the route modules) and type the answers
 * (answers.ts), with zod's own JSON Schema output (draft 2020-12, OpenAPI 3.1's dialect). Served at
 * GET /api/openapi.json and, readable, at /api/docs (apiDocs.ts). gateway/src/apiContract.openapi.int.spec.ts
 * walks the Express router and holds the two to each other, and drives the real app to check that the
 * documented answers are what the routes send.
 */
import { z } from 'zod';
import { MAKER_CHECKER_MESSAGES as MAKER_CHECKER } from '@meridian/platform/domain/makerChecker';
import { answerRegistry } from './answers.js';
import { claimSchemas } from '../live/claimsRoutes.js';
import { supportSchemas } from './supportViews.js';
import { MONEY_MESSAGES, amountField, moneySchemas } from './moneyRequests.js';
import {
  BODY_TOO_LARGE,
  INVALID_BODY,
  INVALID_CSRF,
  MALFORMED_JSON,
  NOT_ADMIN,
  NOT_LOGGED_IN,
  SERVICE_UNAVAILABLE,
  SOMETHING_WENT_WRONG,
  TOO_MANY_REQUESTS,
} from './refusals.js';
import { docOf, type HttpMethod, type RouteDoc } from './routeTable.js';
import { TABLE_ROUTES } from './routes.js';
import { schemas } from './validation.js';

/** Every route the gateway registers, as the route table declares it. */
const ROUTES: RouteDoc[] = TABLE_ROUTES.map(docOf);

const capitalized = (w: string) => w[0]!.toUpperCase() + w.slice(1);

const PARAMS: Record<string, string> = {
  verificationToken: 'The token of the emailed verification link.',
  resetToken: 'The token of the emailed reset link.',
  email: 'The account’s email address.',
  id: 'The id of the user, investment or withdrawal (a claim: of the deposit, investment, withdrawal, or for kyc the user); of the support conversation or deposit address on the support paths.',
  kind: 'What is claimed: `deposit`, `investment`, `withdrawal`, `kyc` or `support` (a conversation).',
  userId: 'The owner’s user id.',
  side: '`front` or `back`.',
  transactionId: 'The deposit id.',
  provider: 'The id of an OIDC_PROVIDERS entry.',
};

/** `/a/:b/c` -> `/a/{b}/c`. */
export const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const UNSAFE: ReadonlySet<HttpMethod> = new Set(['post', 'put', 'patch', 'delete']);

export interface DocumentOptions {
  /** Production leaves out the routes that exist only in development. */
  production: boolean;
  /** Whether the money routes are mounted. */
  money: boolean;
}

/** The routes mounted with these options. */
export function routesFor(options: DocumentOptions): RouteDoc[] {
  return ROUTES.filter((r) => !(r.devOnly && options.production) && !(r.money && !options.money));
}

/** Error answers and their documented messages of one route, by status (its own plus the cross-cutting ones). */
export function errorMessagesOf(route: RouteDoc): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const add = (status: number, ...messages: string[]) =>
    out.set(status, [...new Set([...(out.get(status) ?? []), ...messages])]);
  for (const [status, messages] of Object.entries(route.errors ?? {}))
    add(Number(status), ...(messages ?? []));
  if (route.body) add(400, INVALID_BODY, MALFORMED_JSON);
  if (route.body) add(413, BODY_TOO_LARGE);
  // the money commands (deposit, invest, withdraw, balance edits) take an Idempotency-Key, and are refused
  // while an admin impersonates a user
  if (route.idempotencyKey) add(400, MONEY_MESSAGES.idempotencyKey);
  if (route.idempotencyKey) add(403, MAKER_CHECKER.impersonating);
  if (route.access !== 'public') add(401, NOT_LOGGED_IN);
  if (route.access === 'admin') add(403, NOT_ADMIN);
  if (UNSAFE.has(route.method)) add(403, INVALID_CSRF);
  if (route.rateLimit) add(429, TOO_MANY_REQUESTS);
  if (!route.local) {
    add(500, SOMETHING_WENT_WRONG);
    add(503, SERVICE_UNAVAILABLE);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Refused: the request is not valid.',
  401: 'Not signed in, or the session ended.',
  403: 'Not allowed (role, owner, or the CSRF check).',
  404: 'Not found.',
  409: 'Already decided, already exists, or the review claim of the item is not the caller’s.',
  413: 'The body is too large: JSON over 100 kb, a KYC upload over two documents.',
  429: 'Over a rate limit; see Retry-After.',
  500: 'An unexpected error (never a stack trace).',
  503: 'A service the route needs is not answering.',
};

type JsonSchema = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;

/** JSON Schemas of a registry, each as an OpenAPI component (cross references between them kept). */
function componentsOf(registry: typeof answerRegistry, io: 'input' | 'output') {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: REF,
    // the amount is checked by code (a string, or a finite JSON number): say so
    override: (ctx) => {
      if (ctx.zodSchema === amountField)
        Object.assign(ctx.jsonSchema, { anyOf: [{ type: 'string' }, { type: 'number' }] });
      const description = registry.get(ctx.zodSchema)?.description;
      if (description) ctx.jsonSchema.description = description;
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => {
      const { $schema: _s, $id: _i, ...rest } = s as JsonSchema;
      return [id, rest];
    }),
  );
}

/** `/api/users/verifyUser/:verificationToken` -> `UsersVerifyUserVerificationToken`. */
const pathName = (route: RouteDoc) =>
  route.path
    .replace(/^\/api\//, '')
    .split(/[/:.-]+/)
    .filter(Boolean)
    .map(capitalized)
    .join('');

/** The support chat's bodies, named apart from the others (`message` would clash). */
const supportBodies = Object.fromEntries(
  Object.entries(supportSchemas).map(([name, schema]) => [`support${capitalized(name)}`, schema]),
);

/** Body components are named after the schemas' own names: `register` -> `RegisterBody`. */
const BODY_NAMES = new Map<z.ZodType, string>(
  Object.entries({ ...schemas, ...moneySchemas, ...claimSchemas, ...supportBodies }).map(([name, schema]) => [
    schema as z.ZodType,
    `${capitalized(name)}Body`,
  ]),
);

/** The OpenAPI 3.1 document of the routes mounted with `options`. */
export function buildOpenApiDocument(options: DocumentOptions): Record<string, unknown> {
  const routes = routesFor(options);
  // Request bodies: one component per schema (validation.ts `schemas`, moneyRoutes.ts `moneySchemas`).
  const bodies = z.registry<{ id: string; description?: string }>();
  bodies.add(amountField, {
    id: 'Amount',
    description: 'Dollars as text or a JSON number, at most 2 decimals ("250", "99.95", 250).',
  });
  for (const r of routes) {
    if (!r.body || bodies.has(r.body)) continue;
    const id = BODY_NAMES.get(r.body);
    if (!id) throw new Error(`the body of ${r.method} ${r.path} is not one of the named request schemas`);
    bodies.add(r.body, { id });
  }
  // Answers: the named ones (answers.ts), and any other a route answers with, inline.
  const components: Record<string, JsonSchema> = {
    ...componentsOf(answerRegistry, 'output'),
    ...componentsOf(bodies, 'input'),
  };
  const answerSchema = (schema: z.ZodType): JsonSchema => {
    const id = answerRegistry.get(schema)?.id;
    if (id) return { $ref: REF(id) };
    const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'output',
      unrepresentable: 'any',
      metadata: answerRegistry,
      reused: 'inline',
    }) as JsonSchema;
    return rewriteDefs(rest);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      description: PARAMS[m[1]!] ?? m[1],
      schema: { type: 'string' },
    }));
    for (const [name, description] of Object.entries(route.query ?? {}))
      params.push({ name, in: 'query', required: false, description, schema: { type: 'string' } });
    const headers: unknown[] = [];
    if (route.idempotencyKey)
      headers.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          "A retry with the same key and payload has one effect (1-100 letters, digits or . _ : -). The key is the caller's own: it never names another user's or another operation's request.",
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' },
      });
    if (UNSAFE.has(route.method))
      headers.push({
        name: 'X-XSRF-TOKEN',
        in: 'header',
        required: false,
        description:
          'The XSRF-TOKEN cookie’s value. Needed when the request carries neither an Origin nor a Referer naming one of our origins.',
        schema: { type: 'string' },
      });

    const ok = route.ok;
    const responses: Record<string, unknown> = {
      [String(route.status ?? 200)]: {
        description: ok.description,
        ...(route.okHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(route.okHeaders).map(([name, description]) => [
                  name,
                  { description, schema: { type: 'string' } },
                ]),
              ),
            }
          : {}),
        content: ok.media
          ? { [ok.media.type]: { schema: ok.media.schema } }
          : { 'application/json': { schema: answerSchema(ok.schema!) } },
      },
    };
    for (const [status, messages] of errorMessagesOf(route)) {
      if (status === 503 && route.path === '/readyz') {
        responses['503'] = {
          description: 'Not ready: a service does not answer.',
          content: { 'application/json': { schema: { $ref: REF('Readiness') } } },
        };
        continue;
      }
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error.',
        ...(status === 429
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        content: {
          'application/json': {
            schema: { $ref: REF('Message') },
            examples: Object.fromEntries(messages.map((m, i) => [`e${i + 1}`, { value: { message: m } }])),
          },
        },
      };
    }

    const operation: Record<string, unknown> = {
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      operationId: `${route.method}${pathName(route)}`,
      ...(params.length + headers.length > 0 ? { parameters: [...params, ...headers] } : {}),
      ...(route.access === 'public' ? { security: [] } : { security: [{ session: [] }, { bearer: [] }] }),
      'x-access': route.access,
      ...(route.rateLimit ? { 'x-rate-limit': route.rateLimit } : {}),
      responses,
    };
    if (route.body)
      operation.requestBody = {
        required: false,
        content: { 'application/json': { schema: { $ref: REF(bodies.get(route.body)!.id) } } },
      };
    if (route.files)
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: route.files,
              properties: {
                ...Object.fromEntries(
                  route.files.map((f) => [
                    f,
                    { type: 'string', contentMediaType: 'application/octet-stream' },
                  ]),
                ),
                ...Object.fromEntries(
                  Object.entries(route.formFields ?? {}).map(([f, description]) => [
                    f,
                    { type: 'string', description },
                  ]),
                ),
              },
            },
          },
        },
      };
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Meridian API',
      version: '1.0.0',
      description: [
        'The REST API of the Meridian gateway. Money is in dollars (JSON numbers, at most 2 decimals); every error',
        'answer is `{ "message": ... }`. Sessions are the `meridian_session` cookie (or `Authorization: Bearer`).',
        'State-changing requests (POST, PUT, PATCH, DELETE) pass the CSRF check when their Origin (or Referer)',
        'names one of our origins, or when they send `X-XSRF-TOKEN` equal to the `XSRF-TOKEN` cookie; a request',
        'marked `Sec-Fetch-Site: cross-site` or from a foreign origin is refused. CORS (with credentials) is',
        'open to the origins of CORS_ORIGINS only.',
      ].join(' '),
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'meridian_session' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The session token.' },
      },
    },
  };
}

/** Inline conversions keep named schemas as `#/$defs/<id>`: point them at the components instead. */
function rewriteDefs(schema: JsonSchema): JsonSchema {
  const { $defs: _defs, ...rest } = schema;
  return JSON.parse(
    JSON.stringify(rest).replace(/"#\/\$defs\/([^"]+)"/g, (_m, id: string) => `"${REF(id)}"`),
  );
}
