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
  IDENTITY_GRPC_ADDR: env.address('0.0.0.0:50051').describe("identity's gRPC listen address"),
  JWT_SECRET: env.secret('signs session and device tokens (>= 32 chars)', 32),
  SECRETS_KEY: env
    .hexKey(32)
    .optional()
    .describe('64 hex chars: the AES-256-GCM key sealing tokens and codes carried in events'),
  APP_URL: env
    .url()
    .default('http://localhost:8080')
    .describe('public base URL: links in emails, OIDC redirects'),
  ADMIN_EMAIL: z
    .email('must be an email address')
    .optional()
    .describe('the first admin (created at the first start)'),
  ADMIN_PASSWORD: z
    .string()
    .min(6, 'must be at least 6 characters')
    .optional()
    .describe("the first admin's password"),
  OIDC_ISSUER: env
    .url()
    .default('https://accounts.google.com')
    .describe('issuer of Google sign-in ID tokens'),
  OIDC_JWKS_URL: env
    .url()
    .default('https://www.googleapis.com/oauth2/v3/certs')
    .describe('keys that verify Google sign-in ID tokens'),
  GOOGLE_CLIENT_ID: z
    .string()
    .optional()
    .describe('audience of Google sign-in ID tokens; unset or empty: Google sign-in off'),
  IDENTITY_RATE_LIMITS_JSON: env
    .rateLimits(Object.keys(DEFAULT_RATE_LIMITS) as Array<keyof typeof DEFAULT_RATE_LIMITS>)
    .optional()
    .describe(
      'overrides of identity\'s rate-limit budgets (app/context.ts DEFAULT_RATE_LIMITS) as JSON, e.g. `{"register":{"max":100,"windowMs":3600000}}`',
    ),
});

export const identityEnvSchema = withDevDefaults(variables, DEV_DEFAULTS).transform((v) => ({
  ...v,
  GOOGLE_CLIENT_ID: v.GOOGLE_CLIENT_ID || undefined,
}));
export type IdentityConfig = z.infer<typeof identityEnvSchema>;
export const parseIdentityConfig = envParser(identityEnvSchema);
