import { z } from 'zod';
import { commonEnvSchema, env, parseEnv } from '@meridian/platform/config';

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
  | 'kycUpload';

export const DEFAULT_RATE_LIMITS: Record<RateLimitedRoute, RateLimitRule> = {
  login: { max: 20, windowMs: 15 * 60_000 },
  register: { max: 20, windowMs: 60 * 60_000 },
  sendLoginCode: { max: 10, windowMs: 15 * 60_000 },
  loginWithCode: { max: 20, windowMs: 15 * 60_000 },
  forgotPassword: { max: 10, windowMs: 15 * 60_000 },
  resetPassword: { max: 20, windowMs: 15 * 60_000 },
  google: { max: 30, windowMs: 15 * 60_000 },
  /** KYC document uploads, per client IP and per user. */
  kycUpload: { max: 10, windowMs: 60 * 60_000 },
};

/** Same development default as the kyc service (services/kyc/src/config.ts); never in production. */
export const DEV_KYC_INTERNAL_TOKEN = 'meridian-dev-kyc-internal-token-not-for-production';

/** Environment of the gateway (docs/CONVENTIONS.md names). */
const gatewayEnvObject = commonEnvSchema.extend({
  PORT: env.port(8080),
  IDENTITY_GRPC_URL: env.address('127.0.0.1:50051'),
  /** The shared secret to fetch personal-data keys from identity (live pushes open sealed names); see platform personalData. */
  INTERNAL_SERVICE_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  NOTIFICATION_GRPC_URL: env.address('127.0.0.1:50052'),
  WEB_DIST: z.string().min(1).default('web/dist'),
  APP_URL: env.url().default('http://localhost:8080'),
  COOKIE_SECURE: z.enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false').optional(),
  /**
   * Express "trust proxy": how many proxies in front of the gateway (a hop count) or which ones (a comma
   * list of addresses / subnets such as `loopback, 10.0.0.0/8`). Default `false`: X-Forwarded-* headers
   * are ignored and the client is the TCP peer (a forged X-Forwarded-For never rotates a rate-limit bucket).
   */
  TRUST_PROXY: z.string().min(1).default('false'),
  /** The kyc service: gRPC (pending list, decisions) and its internal document endpoint (upload, download). */
  KYC_GRPC_URL: env.address('127.0.0.1:50053'),
  KYC_HTTP_URL: env.url().default('http://127.0.0.1:50063'),
  /** Shared secret sent as x-internal-token to the kyc document endpoint; required in production. */
  KYC_INTERNAL_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /** Money services (gateway/src/http/money*.ts). */
  LEDGER_GRPC_URL: env.address('127.0.0.1:50054'),
  INVESTMENT_GRPC_URL: env.address('127.0.0.1:50055'),
  WITHDRAWAL_GRPC_URL: env.address('127.0.0.1:50056'),
  /** Overrides of DEFAULT_RATE_LIMITS, as JSON ({"register":{"max":100,"windowMs":3600000}}). */
  GATEWAY_RATE_LIMITS_JSON: env.rateLimits(Object.keys(DEFAULT_RATE_LIMITS) as RateLimitedRoute[]).optional(),
  /** The consumer group every gateway instance shares for live pushes (each event handled by one instance). */
  GATEWAY_LIVE_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be letters, digits, . _ or -')
    .default('gateway-live'),
  /**
   * Origins of a separately hosted SPA (comma list, e.g. https://app.example.com): CORS with credentials
   * for exactly these, and the CSRF origin check accepts them. Unset: nothing cross-origin is allowed.
   */
  CORS_ORIGINS: env
    .list()
    .pipe(z.array(z.string().refine(isOrigin, 'must list origins such as https://app.example.com')))
    .optional(),
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
  /** gRPC targets of the money services (defaults 127.0.0.1:50054 / :50055 / :50056). */
  ledgerGrpcUrl?: string;
  investmentGrpcUrl?: string;
  withdrawalGrpcUrl?: string;
  /** Live pushes kept per room for catch-up after a reconnect (default 500; the same on every instance). */
  liveRingSize?: number;
  /** Rooms the live log keeps, least recently pushed to dropped first (default 10 000). */
  liveMaxRooms?: number;
  /** Namespace of the live log in Redis (default 'meridian:gateway:live:'; the same on every instance). */
  liveKeyPrefix?: string;
  /** How often an instance on standby for the live-push group asks again, ms (default 3 000). */
  liveStandbyRetryMs?: number;
  /** KAFKA_BROKERS: the bus the gateway listens on for live pushes (else the in-process bus under dataDir). */
  kafkaBrokers?: string[];
  dataDir: string;
  /** GATEWAY_LIVE_GROUP: the live-push consumer group all instances share (default 'gateway-live'). */
  liveGroup?: string;
  /** Per-route overrides of DEFAULT_RATE_LIMITS (tests use small ones). */
  rateLimits?: Partial<Record<RateLimitedRoute, RateLimitRule>>;
  /** Deadline of each gRPC call, ms (default 10 000). */
  grpcDeadlineMs?: number;
  /** How often open sockets' sessions are checked again, ms (default 60 000). */
  socketRevalidateMs?: number;
  /** CORS_ORIGINS: origins of a separately hosted SPA allowed cross-origin with credentials (default none). */
  corsOrigins?: string[];
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
    kycGrpcUrl: e.KYC_GRPC_URL,
    kycHttpUrl: e.KYC_HTTP_URL.replace(/\/+$/, ''),
    kycInternalToken: e.KYC_INTERNAL_TOKEN ?? DEV_KYC_INTERNAL_TOKEN,
    ledgerGrpcUrl: e.LEDGER_GRPC_URL,
    investmentGrpcUrl: e.INVESTMENT_GRPC_URL,
    withdrawalGrpcUrl: e.WITHDRAWAL_GRPC_URL,
    kafkaBrokers: e.KAFKA_BROKERS,
    ...(e.GATEWAY_RATE_LIMITS_JSON ? { rateLimits: e.GATEWAY_RATE_LIMITS_JSON } : {}),
    dataDir: e.DATA_DIR,
    liveGroup: e.GATEWAY_LIVE_GROUP,
    corsOrigins: (e.CORS_ORIGINS ?? []).map((o) => new URL(o).origin),
  };
}

export function parseGatewayConfig(source: Record<string, string | undefined> = process.env): GatewayConfig {
  return gatewayConfigFromEnv(parseEnv(gatewayEnvSchema, source));
}
