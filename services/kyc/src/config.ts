/**
 * The kyc service's environment, parsed and typed once (docs/CONVENTIONS.md names). The shared
 * secret with the gateway (KYC_INTERNAL_TOKEN) has a development default only outside production.
 */
import { z } from 'zod';
import { commonEnvSchema, env, parseEnv } from '@meridian/platform/config';

export const DEV_DEFAULTS = {
  KYC_INTERNAL_TOKEN: 'meridian-dev-kyc-internal-token-not-for-production',
} as const;

const schema = commonEnvSchema
  .extend({
    KYC_GRPC_ADDR: env.address('0.0.0.0:50053'),
    /** The document HTTP endpoint the gateway proxies to (upload, document stream). */
    KYC_HTTP_ADDR: env.address('0.0.0.0:50063'),
    /** Shared secret the gateway sends as x-internal-token on every proxied request. */
    KYC_INTERNAL_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  })
  .superRefine((v, ctx) => {
    if (v.NODE_ENV === 'production' && v.KYC_INTERNAL_TOKEN === undefined) {
      ctx.addIssue({ code: 'custom', path: ['KYC_INTERNAL_TOKEN'], message: 'is required in production' });
    }
  })
  .transform((v) => ({
    ...v,
    KYC_INTERNAL_TOKEN: v.KYC_INTERNAL_TOKEN ?? DEV_DEFAULTS.KYC_INTERNAL_TOKEN,
    usedDevDefaults: (['KYC_INTERNAL_TOKEN'] as const).filter((k) => v[k] === undefined),
  }));

export const kycEnvSchema = schema;
export type KycConfig = z.infer<typeof schema>;

export function parseKycConfig(source: Record<string, string | undefined> = process.env): KycConfig {
  return parseEnv(schema, source);
}
