/**
 * The support service's environment, parsed and typed once (docs/CONVENTIONS.md names). The secret key
 * has a development default only outside production.
 */
import type { z } from 'zod';
import { commonEnvSchema, env, envParser, withDevDefaults } from '@meridian/platform/config';

export const DEV_DEFAULTS = {
  SUPPORT_SECRET_KEY: 'meridian-dev-support-secret-key-not-for-production',
} as const;

const variables = commonEnvSchema.extend({
  SUPPORT_GRPC_ADDR: env.address('0.0.0.0:50057').describe("support's gRPC listen address"),
  SUPPORT_SECRET_KEY: env.secret(
    "HMAC key (>= 24 chars) of visitors' access tokens (the emailed link carries one) and of the blind index finding a visitor's conversation by email",
  ),
});

export const supportEnvSchema = withDevDefaults(variables, DEV_DEFAULTS);
export type SupportConfig = z.infer<typeof supportEnvSchema>;
export const parseSupportConfig = envParser(supportEnvSchema);
