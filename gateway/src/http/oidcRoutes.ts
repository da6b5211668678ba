/**
 * Sign-in through the OpenID Connect providers of OIDC_PROVIDERS (config.ts): the authorization code flow
 * with PKCE (S256), `state` and `nonce`, done with openid-client (discovery, the authorization URL, the code
 * exchange and every ID token check: signature against the provider's JWKS, issuer, audience, expiry, nonce).
 *
 * - GET api/auth/providers: `[{id, name}]` of the configured providers (the login screens' buttons).
 * - GET api/auth/oidc/:provider/start: keeps the flow (PKCE verifier, nonce, the provider) in the key-value store
 *   under its `state` for FLOW_TTL_MS, bound to this browser by an HttpOnly cookie, and answers 302 to the
 *   provider's authorization endpoint.
 * - GET api/auth/oidc/:provider/callback: takes the flow of `state` (once: a replayed state finds none), checks the
 *   browser is the one that started it, exchanges the code and checks the ID token, then signs in through
 *   identity's ExternalLogin (the account rules: verified email, no takeover, suspended refused) and sets the
 *   session cookie as every login does: 302 to /dashboard. Any failure: 302 to /login?error=<OidcError>,
 *   no session (the SPA shows the reason).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { Metadata } from '@grpc/grpc-js';
import * as oidc from 'openid-client';
import { SERVICE_TOKEN_METADATA } from '@meridian/platform/personalData';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig, type OidcProviderConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { GatewayLogger } from '../logger.js';
import { DEVICE_COOKIE, cookiePolicyOf, setDeviceCookie, setSessionCookie } from './cookies.js';
import { toHttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { correlationId, rateLimit } from './middleware.js';
import { TAGS, json, routeTable, routerOf } from './routeTable.js';

export interface OidcRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  kv: KeyValueStore;
  logger: GatewayLogger;
}

/** The cookie that binds a started flow to the browser that started it (HttpOnly, this path only). */
export const OIDC_BROWSER_COOKIE = 'meridian_oidc';
const COOKIE_PATH = '/api/auth/oidc';
/** How long a started sign-in may take at the provider. */
export const FLOW_TTL_MS = 10 * 60_000;
const FLOW_KEY = 'oidc:flow:';

/** Why a sign-in through a provider ended on /login (`?error=`); the SPA words each (web features/auth). */
export const OIDC_ERRORS = [
  /** No configured provider has this id. */
  'unknown_provider',
  /** The `state` is unknown, was used already, expired, or belongs to another browser or provider. */
  'invalid_state',
  /** The provider answered with an error (the person cancelled, or it refused). */
  'provider_refused',
  /** The provider refused the code (already used, expired, or not for this flow's PKCE verifier). */
  'code_refused',
  /** The ID token failed a check: signature, issuer, audience, expiry, nonce. */
  'invalid_token',
  /** The ID token names no email address (the provider did not share it). */
  'email_missing',
  /** The provider does not vouch for the email address. */
  'email_not_verified',
  /** The account is suspended. */
  'account_suspended',
  /** identity refused the sign-in otherwise (e.g. the account was deleted). */
  'account_refused',
  'too_many_requests',
  /** The provider (or a service) did not answer. */
  'unavailable',
] as const;
export type OidcError = (typeof OIDC_ERRORS)[number];

/** GET api/auth/providers. */
export const oidcProvidersAnswer = z.array(z.object({ id: z.string(), name: z.string() }));

interface Flow {
  provider: string;
  codeVerifier: string;
  nonce: string;
  /** SHA-256 of the browser cookie's value. */
  browser: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sameText = (a: string, b: string) => {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
};

/** Thrown inside a flow step: ends the sign-in on /login?error=<code>. */
class FlowError extends Error {
  constructor(
    readonly code: OidcError,
    detail: string,
  ) {
    super(detail);
  }
}

function oidcContext({ config, identity, kv, logger }: OidcRouteDeps) {
  const providers = new Map((config.oidcProviders ?? []).map((p) => [p.id, p]));
  const cookies = cookiePolicyOf(config);
  const ctx = ctxOf(config);
  const limiter = rateLimit(kv, 'oidc', { ...DEFAULT_RATE_LIMITS.oidc, ...config.rateLimits?.oidc });
  const discovered = new Map<string, Promise<oidc.Configuration>>();
  const serviceTokenMetadata = new Metadata();
  if (config.internalServiceToken)
    serviceTokenMetadata.set(SERVICE_TOKEN_METADATA, config.internalServiceToken);

  /** The provider's configuration from its discovery document, fetched once (again after a failure). */
  const configurationOf = (p: OidcProviderConfig): Promise<oidc.Configuration> => {
    let pending = discovered.get(p.id);
    if (!pending) {
      const issuer = new URL(p.issuer);
      pending = oidc.discovery(
        issuer,
        p.clientId,
        undefined,
        p.clientSecret ? oidc.ClientSecretPost(p.clientSecret) : oidc.None(),
        {
          // the ID token's signature is checked against the provider's JWKS too, not only trusted for
          // having come from its token endpoint; plain HTTP only for a local provider (config.ts)
          execute: [
            oidc.enableNonRepudiationChecks,
            ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
          ],
          timeout: 10,
        },
      );
      discovered.set(p.id, pending);
      pending.catch(() => discovered.delete(p.id));
    }
    return pending;
  };

  const redirectUri = (p: OidcProviderConfig) => `${config.appUrl}/api/auth/oidc/${p.id}/callback`;

  const toLogin = (res: Response, code: OidcError) => res.redirect(302, `/login?error=${code}`);

  /** Runs a flow step; a refusal ends it on /login with its reason instead of a JSON error. */
  const step =
    (name: string, run: (req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response) => {
      try {
        // the login routes' per-client budget; over it, the reason on /login rather than a JSON 429
        await limiter(req, res, () => undefined);
      } catch (err) {
        if (toHttpError(err).status === 429) return toLogin(res, 'too_many_requests');
        throw err;
      }
      try {
        await run(req, res);
      } catch (err) {
        const code = err instanceof FlowError ? err.code : 'unavailable';
        const line = {
          err: (err as Error).message,
          provider: req.params.provider,
          correlationId: correlationId(req),
        };
        // a refusal is the flow working; anything else (the store failing, a bug) is worth a look
        if (err instanceof FlowError) logger.info(line, `oidc ${name} refused: ${code}`);
        else logger.warn({ ...line, err }, `oidc ${name} failed`);
        toLogin(res, code);
      }
    };

  const providerOf = (req: Request): OidcProviderConfig => {
    const p = providers.get(String(req.params.provider));
    if (!p) throw new FlowError('unknown_provider', `no provider ${String(req.params.provider)}`);
    return p;
  };
  return {
    identity,
    kv,
    cookies,
    ctx,
    serviceTokenMetadata,
    providers,
    configurationOf,
    redirectUri,
    step,
    providerOf,
  };
}

const OIDC_REASONS = OIDC_ERRORS.map((e) => `\`${e}\``).join(', ');

export const OIDC_ROUTES = routeTable<ReturnType<typeof oidcContext>>([
  {
    method: 'get',
    path: '/api/auth/providers',
    tag: TAGS.account,
    summary: 'The OpenID Connect providers to sign in with',
    description: 'OIDC_PROVIDERS as `[{id, name}]`; `[]` when none is configured.',
    access: 'public',
    local: true,
    ok: json(oidcProvidersAnswer, 'The providers, in configured order.'),
    handler:
      ({ providers }) =>
      (_req, res) => {
        res.json([...providers.values()].map((p) => ({ id: p.id, name: p.name })));
      },
  },
  {
    method: 'get',
    path: '/api/auth/oidc/:provider/start',
    tag: TAGS.account,
    summary: 'Start signing in through an OpenID Connect provider',
    description: `For a browser to navigate to. 302 to the provider's authorization endpoint (authorization code flow with PKCE S256, \`state\` and \`nonce\`), the flow bound to this browser by the HttpOnly \`${OIDC_BROWSER_COOKIE}\` cookie for ${FLOW_TTL_MS / 60_000} minutes. A refusal is a 302 to \`/login?error=<reason>\` too: ${OIDC_REASONS}. Rate limited per client (the \`oidc\` budget, shared with the callback).`,
    access: 'public',
    status: 302,
    okHeaders: { Location: "The provider's authorization endpoint, or /login?error=<reason>." },
    ok: { description: 'Redirect.', media: { type: 'text/plain', schema: { type: 'string' } } },
    handler: ({ cookies, kv, configurationOf, redirectUri, step, providerOf }) =>
      step('start', async (req, res) => {
        const p = providerOf(req);
        const configuration = await configurationOf(p).catch((err: unknown) => {
          throw new FlowError('unavailable', `discovery of ${p.issuer} failed: ${(err as Error).message}`);
        });
        const codeVerifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const nonce = oidc.randomNonce();
        // one browser key per browser (a second start in another tab keeps the first one's valid)
        const existing: unknown = req.cookies?.[OIDC_BROWSER_COOKIE];
        const browserKey =
          typeof existing === 'string' && /^[A-Za-z0-9_-]{43}$/.test(existing)
            ? existing
            : randomBytes(32).toString('base64url');
        const flow: Flow = { provider: p.id, codeVerifier, nonce, browser: sha256(browserKey) };
        await kv.set(FLOW_KEY + sha256(state), JSON.stringify(flow), { ttlMs: FLOW_TTL_MS });
        const url = oidc.buildAuthorizationUrl(configuration, {
          redirect_uri: redirectUri(p),
          scope: 'openid email profile',
          code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        });
        res.cookie(OIDC_BROWSER_COOKIE, browserKey, {
          httpOnly: true,
          secure: cookies.secure,
          // Lax: sent on the provider's top-level redirect back to the callback
          sameSite: 'lax',
          path: COOKIE_PATH,
          maxAge: FLOW_TTL_MS,
        });
        res.redirect(302, url.href);
      }),
  },
  {
    method: 'get',
    path: '/api/auth/oidc/:provider/callback',
    tag: TAGS.account,
    summary: 'Where the provider sends the browser back (the redirect URI to register with it)',
    description: `Takes the flow of \`state\` (once), exchanges \`code\` and checks the ID token (signature against the provider's JWKS, issuer, audience, expiry, nonce), then signs in as every login does (the session cookie): 302 to \`/dashboard\`. Any refusal: 302 to \`/login?error=<reason>\`, no session; reasons: ${OIDC_REASONS}.`,
    access: 'public',
    query: {
      code: 'The authorization code.',
      state: 'The flow’s state.',
      iss: 'The issuer (RFC 9207), when the provider sends it.',
      error: 'The provider’s error (e.g. access_denied) instead of a code.',
    },
    status: 302,
    okHeaders: { Location: '/dashboard, or /login?error=<reason>.' },
    ok: { description: 'Redirect.', media: { type: 'text/plain', schema: { type: 'string' } } },
    handler: ({
      cookies,
      kv,
      identity,
      ctx,
      serviceTokenMetadata,
      configurationOf,
      redirectUri,
      step,
      providerOf,
    }) =>
      step('callback', async (req, res) => {
        const p = providerOf(req);
        const state = typeof req.query.state === 'string' ? req.query.state : '';
        const flow = state ? await takeFlow(kv, state) : null;
        if (!flow) throw new FlowError('invalid_state', 'unknown, used or expired state');
        const browserKey: unknown = req.cookies?.[OIDC_BROWSER_COOKIE];
        if (typeof browserKey !== 'string' || !sameText(sha256(browserKey), flow.browser))
          throw new FlowError('invalid_state', 'the state was started in another browser');
        if (flow.provider !== p.id) throw new FlowError('invalid_state', `the state is ${flow.provider}'s`);
        if (typeof req.query.error === 'string')
          throw new FlowError('provider_refused', `provider error ${req.query.error}`);

        const configuration = await configurationOf(p).catch((err: unknown) => {
          throw new FlowError('unavailable', `discovery of ${p.issuer} failed: ${(err as Error).message}`);
        });
        // the URL the provider sent the browser to, on the registered redirect URI
        const current = new URL(redirectUri(p));
        current.search = new URL(req.originalUrl, 'http://x').search;
        let claims: oidc.IDToken;
        try {
          const tokens = await oidc.authorizationCodeGrant(configuration, current, {
            pkceCodeVerifier: flow.codeVerifier,
            expectedState: state,
            expectedNonce: flow.nonce,
            idTokenExpected: true,
          });
          claims = tokens.claims()!;
        } catch (err) {
          if (err instanceof oidc.ResponseBodyError)
            throw new FlowError(
              'code_refused',
              `token endpoint: ${err.error} ${err.error_description ?? ''}`,
            );
          if (err instanceof oidc.AuthorizationResponseError)
            throw new FlowError('provider_refused', `provider error ${err.error}`);
          if (isNetworkError(err)) throw new FlowError('unavailable', (err as Error).message);
          throw new FlowError('invalid_token', (err as Error).message);
        }

        if (typeof claims.email !== 'string' || !claims.email)
          throw new FlowError('email_missing', 'the ID token has no email');
        const deviceToken: unknown = req.cookies?.[DEVICE_COOKIE];
        let out: id.AuthResponse;
        try {
          out = await callUnary(
            identity,
            'externalLogin',
            id.ExternalLoginRequest.fromPartial({
              provider: p.name,
              subject: claims.sub,
              email: claims.email,
              emailVerified: claims.email_verified === true || claims.email_verified === 'true',
              name: typeof claims.name === 'string' ? claims.name : '',
              picture: typeof claims.picture === 'string' ? claims.picture : '',
              deviceToken: typeof deviceToken === 'string' ? deviceToken : '',
              correlationId: correlationId(req),
              clientIp: req.ip ?? '',
            }),
            // identity takes a provider's claims only from the gateway
            { ...ctx(req), metadata: serviceTokenMetadata },
          );
        } catch (err) {
          const { status, message } = toHttpError(err);
          const code: OidcError =
            status === 403
              ? 'account_suspended'
              : status === 429
                ? 'too_many_requests'
                : status === 400 && /not verified/i.test(message)
                  ? 'email_not_verified'
                  : status >= 500
                    ? 'unavailable'
                    : 'account_refused';
          throw new FlowError(code, `identity: ${status} ${message}`);
        }
        if (out.sessionToken) setSessionCookie(res, out.sessionToken, cookies);
        if (out.deviceToken) setDeviceCookie(res, out.deviceToken, cookies);
        res.redirect(302, '/dashboard');
      }),
  },
]);

export function oidcRouter(deps: OidcRouteDeps): Router {
  return routerOf(OIDC_ROUTES, oidcContext(deps), '/api');
}

/** The flow of `state`, removed as it is read: only one callback ever gets it. */
async function takeFlow(kv: KeyValueStore, state: string): Promise<Flow | null> {
  const key = FLOW_KEY + sha256(state);
  const value = await kv.get(key);
  if (value === null || !(await kv.compareAndSet(key, value, null))) return null;
  return JSON.parse(value) as Flow;
}

/** fetch's own failures (refused, reset, timed out), not a check of the provider's answer. */
function isNetworkError(err: unknown): boolean {
  const e = err as { name?: string; cause?: { code?: unknown } };
  return (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    (err instanceof TypeError && typeof e.cause?.code === 'string')
  );
}
