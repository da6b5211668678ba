/**
 * The kyc service's environment, parsed and typed once (docs/CONVENTIONS.md names). The shared
 * secret with the gateway (KYC_INTERNAL_TOKEN) has a development default only outside production.
 */
import { z } from 'zod';
import { commonEnvSchema, env, envParser, withDevDefaults } from '@meridian/platform/config';

export const DEV_DEFAULTS = {
  KYC_INTERNAL_TOKEN: 'meridian-dev-kyc-internal-token-not-for-production',
} as const;

const variables = commonEnvSchema.extend({
  KYC_GRPC_ADDR: env.address('0.0.0.0:50053'),
  /** The document HTTP endpoint the gateway proxies to (upload, document stream). */
  KYC_HTTP_ADDR: env.address('0.0.0.0:50063'),
  /** Shared secret the gateway sends as x-internal-token on every proxied request. */
  KYC_INTERNAL_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
});

export const kycEnvSchema = withDevDefaults(variables, DEV_DEFAULTS);
export type KycConfig = z.infer<typeof kycEnvSchema>;
export const parseKycConfig = envParser(kycEnvSchema);
