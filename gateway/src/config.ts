import { z } from 'zod';

/** Rate limit of one route: at most `max` requests per `windowMs`, per client IP (and per email where one is given). */
export interface RateLimitRule {
  max: number;
  windowMs: number;
}

export type RateLimitedRoute = 'login' | 'register' | 'sendLoginCode' | 'loginWithCode' | 'forgotPassword' | 'resetPassword' | 'google';

export const DEFAULT_RATE_LIMITS: Record<RateLimitedRoute, RateLimitRule> = {
  login: { max: 20, windowMs: 15 * 60_000 },
  register: { max: 20, windowMs: 60 * 60_000 },
  sendLoginCode: { max: 10, windowMs: 15 * 60_000 },
  loginWithCode: { max: 20, windowMs: 15 * 60_000 },
  forgotPassword: { max: 10, windowMs: 15 * 60_000 },
  resetPassword: { max: 20, windowMs: 15 * 60_000 },
  google: { max: 30, windowMs: 15 * 60_000 },
};

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Environment of the gateway (docs/CONVENTIONS.md names). */
export const gatewayEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  IDENTITY_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  NOTIFICATION_GRPC_URL: z.string().min(1).default('127.0.0.1:50052'),
  REDIS_URL: z.string().url().optional(),
  WEB_DIST: z.string().min(1).default('web/dist'),
  APP_URL: z.string().url().default('http://localhost:8080'),
  COOKIE_SECURE: bool.optional(),
  /** Express "trust proxy" (hops or a list of subnets); default: loopback only. */
  TRUST_PROXY: z.string().min(1).default('loopback'),
  LOG_LEVEL: z.string().optional(),
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
  /** Per-route overrides of DEFAULT_RATE_LIMITS (tests use small ones). */
  rateLimits?: Partial<Record<RateLimitedRoute, RateLimitRule>>;
  /** Deadline of each gRPC call, ms (default 10 000). */
  grpcDeadlineMs?: number;
}

/** Parses the gateway's env; throws an Error naming every bad variable. */
export function parseGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = gatewayEnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid gateway configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    identityGrpcUrl: e.IDENTITY_GRPC_URL,
    notificationGrpcUrl: e.NOTIFICATION_GRPC_URL,
    redisUrl: e.REDIS_URL,
    webDist: e.WEB_DIST,
    appUrl: e.APP_URL.replace(/\/+$/, ''),
    cookieSecure: e.COOKIE_SECURE ?? e.NODE_ENV === 'production',
    trustProxy: e.TRUST_PROXY,
  };
}
