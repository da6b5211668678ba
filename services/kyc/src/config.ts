/**
 * The kyc service's environment, parsed and typed once (docs/CONVENTIONS.md names). The shared
 * secret with the gateway (KYC_INTERNAL_TOKEN) has a development default only outside production.
 */
import { type z } from 'zod';
import {
  commonEnvSchema,
  env,
  envParser,
  kycInternalTokenSchema,
  withDevDefaults,
} from '@meridian/platform/config';

export const DEV_DEFAULTS = {
  KYC_INTERNAL_TOKEN: 'meridian-dev-kyc-internal-token-not-for-production',
} as const;

const variables = commonEnvSchema.extend({
  KYC_GRPC_ADDR: env.address('0.0.0.0:50053').describe("kyc's gRPC listen address"),
  KYC_HTTP_ADDR: env
    .address('0.0.0.0:50063')
    .describe(
      'listen address of the internal document endpoint the gateway proxies to (upload, document stream); never public',
    ),
  KYC_INTERNAL_TOKEN: kycInternalTokenSchema,
});

export const kycEnvSchema = withDevDefaults(variables, DEV_DEFAULTS);
export type KycConfig = z.infer<typeof kycEnvSchema>;
export const parseKycConfig = envParser(kycEnvSchema);
