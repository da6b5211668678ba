/**
 * Identity's environment, parsed and typed once (docs/CONVENTIONS.md names). Development defaults
 * exist only outside production: with NODE_ENV=production every secret must be given.
 */
import { z } from 'zod';
import { commonEnvSchema, env, envParser, withDevDefaults } from '@meridian/platform/config';
import { DEFAULT_RATE_LIMITS } from './app/context.js';

export const DEV_DEFAULTS = {
  JWT_SECRET: 'dev-only-jwt-secret-change-me-0123456789abcdef',
  SECRETS_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  ADMIN_EMAIL: 'admin@meridian.local',
  ADMIN_PASSWORD: 'Admin123!',
} as const;

const variables = commonEnvSchema.extend({
  IDENTITY_GRPC_ADDR: env.address('0.0.0.0:50051'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SECRETS_KEY: env.hexKey(32).optional(),
  APP_URL: env.url().default('http://localhost:8080'),
  ADMIN_EMAIL: z.email('must be an email address').optional(),
  ADMIN_PASSWORD: z.string().min(6, 'must be at least 6 characters').optional(),
  OIDC_ISSUER: env.url().default('https://accounts.google.com'),
  OIDC_JWKS_URL: env.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_CLIENT_ID: z.string().optional(),

  /** Overrides of DEFAULT_RATE_LIMITS (app/context.ts), as JSON. */
  IDENTITY_RATE_LIMITS_JSON: env
    .rateLimits(Object.keys(DEFAULT_RATE_LIMITS) as Array<keyof typeof DEFAULT_RATE_LIMITS>)
    .optional(),
});

export const identityEnvSchema = withDevDefaults(variables, DEV_DEFAULTS).transform((v) => ({
  ...v,
  GOOGLE_CLIENT_ID: v.GOOGLE_CLIENT_ID || undefined,
}));
export type IdentityConfig = z.infer<typeof identityEnvSchema>;
export const parseIdentityConfig = envParser(identityEnvSchema);
