import express, { type ErrorRequestHandler, type Express } from 'express';
import { personalDataOf, type PersonalData } from '@meridian/platform/personalData';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import type { NotificationServiceClient } from '@meridian/proto/meridian/notification/v1/notification';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import type { SupportServiceClient } from '@meridian/proto/meridian/support/v1/support';
import type { GatewayConfig } from './config.js';
import type { GatewayLogger } from './logger.js';
import { createAuth, type Auth } from './http/auth.js';
import { HttpError, toHttpError } from './http/errors.js';
import { BODY_TOO_LARGE } from './http/refusals.js';
import { correlationAndAccessLog, correlationId, csrf, refuseCrossSite } from './http/middleware.js';
import { cookiePolicyOf } from './http/cookies.js';
import { cors, createOriginPolicy, requireAllowedHost } from './http/origins.js';
import { apiDocsRouter } from './http/apiDocs.js';
import { devMailboxRouter, healthRouter, loopbackOnly, otherApiRouter } from './http/otherRoutes.js';
import { spaRouter } from './http/spa.js';
import { jsonCompression } from './http/compression.js';
import { usersRouter } from './http/usersRoutes.js';
import { oidcRouter } from './http/oidcRoutes.js';
import { kycAdminRouter, kycProxyRouter } from './http/kycRoutes.js';
import { moneyRouter } from './http/moneyRoutes.js';
import { auditRouter, claimTakeoverRecorder } from './http/auditRoutes.js';
import { statementRouter } from './http/statementRoutes.js';
import { queueStatsRouter } from './http/queueStatsRoutes.js';
import { supportRouter } from './http/supportRoutes.js';
import type { MoneyClients } from './moneyClients.js';
import type { RevocationFeed } from './sessionRevocations.js';
import { createClaims, type Claims } from './live/claims.js';
import { claimsRouter } from './live/claimsRoutes.js';

export interface GatewayDeps {
  config: GatewayConfig;
  identity: IdentityServiceClient;
  notification: NotificationServiceClient;
  kyc: KycServiceClient;
  kv: KeyValueStore;
  logger: GatewayLogger;
  /** The money services (ledger, investment, withdrawal); their paths are absent without them. */
  money?: MoneyClients;
  /** The support service (the support chat); its paths are absent without it. */
  support?: SupportServiceClient;
  /** Identity's session revocations (sessionRevocations.ts); without them no principal is cached. */
  revocations?: RevocationFeed;
  /** The admin queues' claim locks (live/claims.ts); default: in `kv`. */
  claims?: Claims;
  /**
   * Seals the claim records (live/claims.ts) and the client address of every Caller (http/auth.ts);
   * default: the process's shared one (personalDataOf).
   */
  personalData?: PersonalData;
}

export const BODY_LIMIT = '100kb';

/** The Express app: the spec's REST API, cookies, CSRF, rate limits, health, SPA hosting. */
export function createGatewayApp(deps: GatewayDeps): Express & { locals: { auth: Auth; claims: Claims } } {
  const { config, identity, notification, kyc, kv, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustProxy(config.trustProxy));
  app.set('query parser', 'simple');
  // every API answer is Cache-Control: no-store, so an ETag (a SHA-1 of each JSON body) serves nobody;
  // the SPA's static files keep theirs (express.static computes its own)
  app.set('etag', false);
  const cookies = cookiePolicyOf(config);
  const origins = createOriginPolicy(config);
  const personalData = personalDataOf(deps);
  const auth = createAuth({
    identity,
    cookies,
    deadlineMs: config.grpcDeadlineMs,
    revocations: deps.revocations,
    personalData,
  });
  app.locals.auth = auth;
  const claims = deps.claims ?? createClaims({ kv, logger, personalData });
  app.locals.claims = claims;

  app.use(correlationAndAccessLog(logger));
  app.use(jsonCompression()); // JSON answers ≥ 1 KB (http/compression.ts)
  // LIVE_CHAT_SCRIPT_URL: a third-party chat widget's origin alone is allowed (its script, calls, frames)
  const liveChat = config.liveChatScriptUrl ? [new URL(config.liveChatScriptUrl).origin] : [];
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", 'https://accounts.google.com/gsi/client', ...liveChat],
          styleSrc: ["'self'", "'unsafe-inline'", 'https://accounts.google.com/gsi/style'],
          imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
          fontSrc: ["'self'", 'data:', 'https:'],
          connectSrc: [
            "'self'",
            wsOrigin(config.appUrl),
            'https://accounts.google.com/gsi/',
            'https://api.cloudinary.com',
            ...liveChat,
          ],
          frameSrc: ["'self'", 'https://accounts.google.com/gsi/', ...liveChat],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: config.cookieSecure ? [] : null,
        },
      },
      // with frame-ancestors 'none': no page of ours, HTML or not, can be framed (clickjacking)
      xFrameOptions: { action: 'deny' },
      // Google sign-in opens a popup that must be able to post back.
      crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
      strictTransportSecurity: config.cookieSecure ? undefined : false,
    }),
  );

  // only the hosts configuration names (DNS rebinding); the probes pass
  app.use(requireAllowedHost(origins));
  // CORS_ORIGINS only; preflights are answered here, before the CSRF check.
  app.use(cors(origins));
  app.use(healthRouter({ identity, notification, kyc }));

  app.use(cookieParser());
  app.use(csrf(cookies, origins));

  // KYC uploads and documents stream through to the kyc service: before any body parser.
  const kycDeps = { config, identity, kyc, kv, auth, logger, claims };
  app.use('/api/users', kycProxyRouter(kycDeps));

  const api = express.Router();
  api.use(express.json({ limit: BODY_LIMIT, strict: true }));
  api.use(express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 50 }));
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  // GET logout changes state: a cross-site link or image must not sign anyone out (usersRoutes.ts serves it)
  api.use('/users/logout', refuseCrossSite(origins));
  api.use(auditRouter({ config, identity, auth }));
  api.use('/users', kycAdminRouter(kycDeps));
  api.use('/users', usersRouter({ config, identity, kv, auth, money: deps.money }));
  api.use(oidcRouter({ config, identity, kv, logger }));
  // every email, unauthenticated: never in production, and only to a browser on this machine
  if (config.nodeEnv !== 'production')
    api.use('/dev', loopbackOnly, devMailboxRouter({ config, notification }));
  api.use(
    claimsRouter({
      config,
      claims,
      auth,
      recordTakeover: claimTakeoverRecorder({ config, identity }),
      logger,
    }),
  );
  if (deps.money) {
    api.use(moneyRouter({ config, identity, money: deps.money, auth, claims, support: deps.support }));
    api.use(statementRouter({ config, identity, money: deps.money, auth }));
    api.use(queueStatsRouter({ config, kyc, money: deps.money, auth }));
  }
  if (deps.support)
    api.use(
      supportRouter({ config, support: deps.support, kyc, money: deps.money, kv, auth, claims, cookies }),
    );
  api.use(otherApiRouter({ config, identity, notification, auth }));
  api.use(apiDocsRouter(config, { money: deps.money !== undefined }));
  api.use((req, _res, next) =>
    next(new HttpError(404, `Not found: ${req.method} ${req.baseUrl}${req.path}`)),
  );
  app.use('/api', api);

  app.use(spaRouter(config.webDist));

  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    let httpErr: HttpError;
    const e = err as { type?: string; status?: number };
    if (e?.type === 'entity.parse.failed') httpErr = new HttpError(400, 'Malformed JSON body');
    else if (e?.type === 'entity.too.large') httpErr = new HttpError(413, BODY_TOO_LARGE);
    else if (typeof e?.status === 'number' && e.status === 404) httpErr = new HttpError(404, 'Not found');
    else if (
      typeof e?.status === 'number' &&
      e.status >= 400 &&
      e.status < 500 &&
      !(err instanceof HttpError)
    )
      httpErr = new HttpError(e.status, 'Bad request');
    else httpErr = toHttpError(err);
    if (httpErr.status >= 500) logger.error({ err, correlationId: correlationId(req) }, 'request failed');
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(httpErr.headers)) res.setHeader(k, v);
    res.status(httpErr.status).json({ message: httpErr.message });
  };
  app.use(onError);
  return app as Express & { locals: { auth: Auth; claims: Claims } };
}

function wsOrigin(appUrl: string): string {
  const u = new URL(appUrl);
  return `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}`;
}

function parseTrustProxy(v: string): boolean | number | string {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}
