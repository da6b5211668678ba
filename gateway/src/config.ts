import { z } from 'zod';
import { kafkaSasl } from '@meridian/platform/busAccess';
import {
  commonEnvSchema,
  env,
  knownDevelopmentSecrets,
  kycInternalTokenSchema,
  parseEnv,
} from '@meridian/platform/config';
import { internalServiceToken } from '@meridian/platform/personalData';

/** Rate limit of one route: at most `max` requests per `windowMs`, per client IP (and per email where one is given). */
export interface RateLimitRule {
  max: number;
  windowMs: number;
}

export type RateLimitedRoute =
  | 'login'
  | 'register'
  | 'sendLoginCode'
  | 'loginWithCode'
  | 'forgotPassword'
  | 'resetPassword'
  | 'google'
  | 'oidc'
  | 'kycUpload'
  | 'supportVisitorStart'
  | 'supportVisitorMessage'
  | 'supportAttachment';

export const DEFAULT_RATE_LIMITS: Record<RateLimitedRoute, RateLimitRule> = {
  login: { max: 20, windowMs: 15 * 60_000 },
  register: { max: 20, windowMs: 60 * 60_000 },
  sendLoginCode: { max: 10, windowMs: 15 * 60_000 },
  loginWithCode: { max: 20, windowMs: 15 * 60_000 },
  forgotPassword: { max: 10, windowMs: 15 * 60_000 },
  resetPassword: { max: 20, windowMs: 15 * 60_000 },
  google: { max: 30, windowMs: 15 * 60_000 },
  /** OpenID Connect sign-in: its start and its callback, per client IP (two requests per sign-in). */
  oidc: { max: 60, windowMs: 15 * 60_000 },
  /** KYC document uploads, per client IP and per user. */
  kycUpload: { max: 10, windowMs: 60 * 60_000 },
  /** Support conversations a visitor (not signed in) opens, per client IP and per email. */
  supportVisitorStart: { max: 5, windowMs: 60 * 60_000 },
  /** A visitor's messages, per client IP and per conversation. */
  supportVisitorMessage: { max: 20, windowMs: 60_000 },
  /** Files attached to support messages, per client IP and per person (a visitor: per conversation). */
  supportAttachment: { max: 30, windowMs: 60 * 60_000 },
};

/** Same development default as the kyc service (services/kyc/src/config.ts); never in production. */
export const DEV_KYC_INTERNAL_TOKEN = 'meridian-dev-kyc-internal-token-not-for-production';
knownDevelopmentSecrets(DEV_KYC_INTERNAL_TOKEN);

/** Google's issuer: an OIDC_PROVIDERS entry with id `google` defaults to it (and to the name Google). */
export const GOOGLE_ISSUER = 'https://accounts.google.com';

/** One OpenID Connect provider people may sign in with (OIDC_PROVIDERS; http/oidcRoutes.ts). */
export interface OidcProviderConfig {
  /** In the paths: GET api/auth/oidc/<id>/start and .../callback (the redirect URI registered with the provider). */
  id: string;
  /** Shown as "Continue with <name>" and in the user's security events. */
  name: string;
  /** The issuer identifier; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** A confidential client's secret (sent as client_secret_post); absent: a public client (PKCE alone). */
  clientSecret?: string;
}

const oidcProviderSchema = z
  .strictObject(
    {
      id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'id must be 1-40 lower-case letters, digits or -'),
      name: z
        .string()
        .trim()
        .min(1, 'name must not be empty')
        .max(60, 'name must be at most 60 characters')
        .optional(),
      issuer: z.url({ protocol: /^https?$/, error: 'issuer must be an http(s):// URL' }).optional(),
      clientId: z.string().min(1, 'clientId is required'),
      clientSecret: z.string().min(1, 'clientSecret must not be empty').optional(),
    },
    'must be {"id","name","issuer","clientId","clientSecret"?}',
  )
  .transform((p, ctx): OidcProviderConfig => {
    const google = p.id === 'google';
    const name = p.name ?? (google ? 'Google' : undefined);
    const issuer = p.issuer ?? (google ? GOOGLE_ISSUER : undefined);
    if (!name) ctx.addIssue({ code: 'custom', message: `name is required (provider ${p.id})` });
    if (!issuer) ctx.addIssue({ code: 'custom', message: `issuer is required (provider ${p.id})` });
    return {
      id: p.id,
      name: name ?? '',
      // exactly as given: it must equal the discovery document's issuer (some end in /, e.g. Auth0's)
      issuer: issuer ?? '',
      clientId: p.clientId,
      ...(p.clientSecret ? { clientSecret: p.clientSecret } : {}),
    };
  });

/** OIDC_PROVIDERS: a JSON list of providers with distinct ids. */
const oidcProvidersVar = env
  .json([])
  .pipe(
    z
      .array(oidcProviderSchema, 'must be a JSON list of providers')
      .refine((list) => new Set(list.map((p) => p.id)).size === list.length, 'ids must be distinct'),
  );

/** A host name, an IPv4 or a [IPv6] address, with an optional port. */
const HOST_RE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?$/;

/** Environment of the gateway (docs/CONVENTIONS.md names). */
const gatewayEnvObject = commonEnvSchema.extend({
  PORT: env.port(8080).describe('HTTP port of the API and the SPA'),
  IDENTITY_GRPC_URL: env.grpcTarget('127.0.0.1:50051').describe("identity's gRPC client target"),
  NOTIFICATION_GRPC_URL: env.grpcTarget('127.0.0.1:50052').describe("notification's gRPC client target"),
  WEB_DIST: z.string().min(1).default('web/dist').describe('the built SPA folder'),
  APP_URL: env
    .url()
    .default('http://localhost:8080')
    .describe('public base URL: links in emails, OIDC redirects'),
  COOKIE_SECURE: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false')
    .optional()
    .describe('`true` sets Secure on cookies; unset: true in production'),
  /**
   * Express "trust proxy": how many proxies in front of the gateway (a hop count) or which ones (a comma
   * list of addresses / subnets such as `loopback, 10.0.0.0/8`). Default `false`: X-Forwarded-* headers
   * are ignored and the client is the TCP peer (a forged X-Forwarded-For never rotates a rate-limit bucket).
   */
  TRUST_PROXY: z
    .string()
    .min(1)
    .default('false')
    .describe(
      'Express "trust proxy": a hop count or a comma list of proxy addresses / subnets; `false`: X-Forwarded-* ignored, the client is the TCP peer',
    ),
  /**
   * Host names the gateway answers for besides APP_URL's (comma list of `host` or `host:port`; a bare
   * name matches on any port), e.g. the API's own name when APP_URL names a separately hosted SPA. Any
   * other Host is refused (421) before any route, the probes excepted; outside production localhost,
   * 127.0.0.1 and [::1] on the port a request arrived on are answered too.
   */
  ALLOWED_HOSTS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().regex(HOST_RE, 'must list host names such as api.example.com or api.example.com:8443'),
      ),
    )
    .optional()
    .describe(
      "hosts (`api.example.com`, `host:port`) answered besides APP_URL's (and loopback on our port outside production); other Hosts get 421, /healthz and /readyz excepted",
    ),
  /** The kyc service: gRPC (pending list, decisions) and its internal document endpoint (upload, download). */
  KYC_GRPC_URL: env.grpcTarget('127.0.0.1:50053').describe("kyc's gRPC client target"),
  KYC_HTTP_URL: env
    .url()
    .default('http://127.0.0.1:50063')
    .describe('base URL of the kyc document endpoint the gateway proxies uploads and documents to'),
  KYC_INTERNAL_TOKEN: kycInternalTokenSchema,
  /** Money services (gateway/src/http/money*.ts). */
  LEDGER_GRPC_URL: env.grpcTarget('127.0.0.1:50054').describe("the ledger's gRPC client target"),
  INVESTMENT_GRPC_URL: env.grpcTarget('127.0.0.1:50055').describe("investment's gRPC client target"),
  WITHDRAWAL_GRPC_URL: env.grpcTarget('127.0.0.1:50056').describe("withdrawal's gRPC client target"),
  /** The support service (gateway/src/http/supportRoutes.ts). */
  SUPPORT_GRPC_URL: env.grpcTarget('127.0.0.1:50057').describe("support's gRPC client target"),
  /**
   * Support's business hours, UTC ("Mon-Fri 09:00-18:00"): the chat says when support is next available.
   * Unset: always available.
   */
  SUPPORT_HOURS: z
    .string()
    .regex(
      /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat)-(Sun|Mon|Tue|Wed|Thu|Fri|Sat) ([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/,
      'must read like Mon-Fri 09:00-18:00',
    )
    .optional()
    .describe(
      "support's business hours, UTC (`Mon-Fri 09:00-18:00`): the chat says when support is next available; unset: always",
    ),
  LIVE_CHAT_SCRIPT_URL: env
    .url()
    .optional()
    .describe(
      "a third-party live-chat widget's script: public pages load it instead of the launcher, the CSP allows its origin alone",
    ),
  GATEWAY_RATE_LIMITS_JSON: env
    .rateLimits(Object.keys(DEFAULT_RATE_LIMITS) as RateLimitedRoute[])
    .optional()
    .describe(
      'overrides of the gateway\'s rate-limit budgets (DEFAULT_RATE_LIMITS) as JSON, e.g. `{"register":{"max":100,"windowMs":3600000}}`',
    ),
  GATEWAY_LIVE_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be letters, digits, . _ or -')
    .default('gateway-live')
    .describe(
      'the one consumer group every gateway instance shares for live pushes (each event handled by one)',
    ),
  /**
   * Origins of a separately hosted SPA (comma list, e.g. https://app.example.com): CORS with credentials
   * for exactly these, and the CSRF origin check accepts them. Unset: nothing cross-origin is allowed.
   */
  CORS_ORIGINS: env
    .list()
    .pipe(z.array(z.string().refine(isOrigin, 'must list origins such as https://app.example.com')))
    .optional()
    .describe(
      'comma list of bare origins (`https://app.example.com`) allowed to call the API with credentials from another origin; unset: nothing cross-origin',
    ),
  /**
   * OpenID Connect providers to sign in with, a JSON list of {id, name, issuer, clientId, clientSecret?}
   * (`{"id":"google","clientId":"…","clientSecret":"…"}` is Google). Unset: none offered.
   */
  OIDC_PROVIDERS: oidcProvidersVar
    .optional()
    .describe(
      "JSON list of `{id, name, issuer, clientId, clientSecret?}` (`id` `google`: name and issuer default to Google's); redirect URI `<APP_URL>/api/auth/oidc/<id>/callback`; unset: none",
    ),
});

/** `scheme://host[:port]` and nothing else (no path, query or credentials). */
function isOrigin(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/** The gateway's env schema with its production rules (what main.ts and the compose check parse). */
export const gatewayEnvSchema = gatewayEnvObject.superRefine((v, ctx) => {
  if (v.NODE_ENV === 'production' && v.KYC_INTERNAL_TOKEN === undefined) {
    ctx.addIssue({ code: 'custom', path: ['KYC_INTERNAL_TOKEN'], message: 'is required in production' });
  }
  // a provider reached over plain HTTP could be impersonated on the way: only a local one, outside production
  for (const p of v.OIDC_PROVIDERS ?? []) {
    if (v.NODE_ENV === 'production' && !p.issuer.startsWith('https://'))
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_PROVIDERS'],
        message: `issuer of ${p.id} must be https:// in production`,
      });
  }
  // identity takes a provider's claims only with the service token (no development default in production)
  if (v.NODE_ENV === 'production' && (v.OIDC_PROVIDERS?.length ?? 0) > 0 && !v.INTERNAL_SERVICE_TOKEN)
    ctx.addIssue({
      code: 'custom',
      path: ['INTERNAL_SERVICE_TOKEN'],
      message: 'is required in production with OIDC_PROVIDERS',
    });
});

export interface GatewayConfig {
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  identityGrpcUrl: string;
  notificationGrpcUrl: string;
  redisUrl?: string;
  webDist: string;
  appUrl: string;
  cookieSecure: boolean;
  trustProxy: string;
  kycGrpcUrl: string;
  /** Base URL of the kyc service's internal document endpoint (POST /upload, GET /documents/...). */
  kycHttpUrl: string;
  kycInternalToken: string;
  /**
   * INTERNAL_SERVICE_TOKEN (its development default outside production): the gateway presents it to identity's
   * ExternalLogin, which takes an OpenID Connect provider's claims from no one else (http/oidcRoutes.ts).
   */
  internalServiceToken?: string;
  /** gRPC targets of the money services (defaults 127.0.0.1:50054 / :50055 / :50056). */
  ledgerGrpcUrl?: string;
  investmentGrpcUrl?: string;
  withdrawalGrpcUrl?: string;
  /** gRPC target of the support service (default 127.0.0.1:50057). */
  supportGrpcUrl?: string;
  /** SUPPORT_HOURS: weekdays (0 = Sunday) and minutes of the UTC day support answers in; unset: always. */
  supportHours?: { days: number[]; from: number; to: number };
  /** LIVE_CHAT_SCRIPT_URL: a third-party chat widget's script (the CSP allows its origin alone). */
  liveChatScriptUrl?: string;
  /** Live pushes kept per room for catch-up after a reconnect (default 500; the same on every instance). */
  liveRingSize?: number;
  /** Rooms the live log keeps, least recently pushed to dropped first (default 10 000). */
  liveMaxRooms?: number;
  /** Namespace of the live log in Redis (default 'meridian:gateway:live:'; the same on every instance). */
  liveKeyPrefix?: string;
  /**
   * Channel prefix of the socket.io Redis adapter (default 'meridian:socket.io'; the same on every instance).
   * Redis pub/sub channels span every database, so compositions sharing one Redis under different key
   * prefixes (the standalone's redisPrefix, tests) each need their own.
   */
  socketChannel?: string;
  /** How often an instance on standby for the live-push group asks again, ms (default 3 000). */
  liveStandbyRetryMs?: number;
  /** KAFKA_BROKERS: the bus the gateway listens on for live pushes (else the in-process bus under dataDir). */
  kafkaBrokers?: string[];
  /** KAFKA_USERNAME / KAFKA_PASSWORD: the gateway's own Kafka user (consumes only: platform busAccess.ts). */
  kafkaSasl?: ReturnType<typeof kafkaSasl>;
  dataDir: string;
  /** GATEWAY_LIVE_GROUP: the live-push consumer group all instances share (default 'gateway-live'). */
  liveGroup?: string;
  /** Per-route overrides of DEFAULT_RATE_LIMITS (tests use small ones). */
  rateLimits?: Partial<Record<RateLimitedRoute, RateLimitRule>>;
  /** Deadline of each gRPC call, ms (default 10 000). */
  grpcDeadlineMs?: number;
  /** How often open sockets' sessions are checked again, ms (default 60 000). */
  socketRevalidateMs?: number;
  /** ALLOWED_HOSTS: hosts answered besides APP_URL's (and loopback outside production); default none. */
  allowedHosts?: string[];
  /** CORS_ORIGINS: origins of a separately hosted SPA allowed cross-origin with credentials (default none). */
  corsOrigins?: string[];
  /** OIDC_PROVIDERS: the OpenID Connect providers offered at sign-in (default none). */
  oidcProviders?: OidcProviderConfig[];
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "Mon-Fri 09:00-18:00" as weekdays (0 = Sunday) and minutes of the day (the format is checked by the schema). */
export function parseSupportHours(v: string): { days: number[]; from: number; to: number } {
  const [span, time] = v.split(' ');
  const [first, last] = span.split('-').map((d) => WEEKDAYS.indexOf(d));
  const days: number[] = [];
  for (let d = first; ; d = (d + 1) % 7) {
    days.push(d);
    if (d === last) break;
  }
  const [from, to] = time.split('-').map((t) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5)));
  return { days, from, to };
}

/** The gateway config from env; throws ConfigError naming every bad variable. */
export function gatewayConfigFromEnv(e: z.infer<typeof gatewayEnvSchema>): GatewayConfig {
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    identityGrpcUrl: e.IDENTITY_GRPC_URL,
    notificationGrpcUrl: e.NOTIFICATION_GRPC_URL,
    redisUrl: e.REDIS_URL,
    webDist: e.WEB_DIST,
    appUrl: e.APP_URL.replace(/\/+$/, ''),
    cookieSecure:
      e.COOKIE_SECURE === undefined
        ? e.NODE_ENV === 'production'
        : ['true', '1', 'yes'].includes(e.COOKIE_SECURE),
    trustProxy: e.TRUST_PROXY,
    allowedHosts: e.ALLOWED_HOSTS ?? [],
    kycGrpcUrl: e.KYC_GRPC_URL,
    kycHttpUrl: e.KYC_HTTP_URL.replace(/\/+$/, ''),
    kycInternalToken: e.KYC_INTERNAL_TOKEN ?? DEV_KYC_INTERNAL_TOKEN,
    internalServiceToken: internalServiceToken({
      NODE_ENV: e.NODE_ENV,
      INTERNAL_SERVICE_TOKEN: e.INTERNAL_SERVICE_TOKEN,
    }),
    ledgerGrpcUrl: e.LEDGER_GRPC_URL,
    investmentGrpcUrl: e.INVESTMENT_GRPC_URL,
    withdrawalGrpcUrl: e.WITHDRAWAL_GRPC_URL,
    supportGrpcUrl: e.SUPPORT_GRPC_URL,
    ...(e.SUPPORT_HOURS ? { supportHours: parseSupportHours(e.SUPPORT_HOURS) } : {}),
    ...(e.LIVE_CHAT_SCRIPT_URL ? { liveChatScriptUrl: e.LIVE_CHAT_SCRIPT_URL } : {}),
    kafkaBrokers: e.KAFKA_BROKERS,
    kafkaSasl: kafkaSasl(e),
    ...(e.GATEWAY_RATE_LIMITS_JSON ? { rateLimits: e.GATEWAY_RATE_LIMITS_JSON } : {}),
    dataDir: e.DATA_DIR,
    liveGroup: e.GATEWAY_LIVE_GROUP,
    corsOrigins: (e.CORS_ORIGINS ?? []).map((o) => new URL(o).origin),
    oidcProviders: e.OIDC_PROVIDERS ?? [],
  };
}

export function parseGatewayConfig(source: Record<string, string | undefined> = process.env): GatewayConfig {
  return gatewayConfigFromEnv(parseEnv(gatewayEnvSchema, source));
}
