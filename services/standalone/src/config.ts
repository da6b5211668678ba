/**
 * The standalone target's own environment (docs/CONVENTIONS.md names): every service's and the gateway's
 * variables are parsed by their own schemas (services.ts, the gateway's config); this adds what only the
 * one-process target reads.
 */
import { z } from 'zod';
import { commonEnvSchema, envParser } from '@meridian/platform/config';

export const standaloneEnvSchema = commonEnvSchema.extend({
  HOST: z
    .string()
    .default('127.0.0.1')
    .transform((host) => host.trim() || '127.0.0.1')
    .describe(
      'the address the gateway and the metrics server listen on; `0.0.0.0` to reach them from another machine',
    ),
});
export type StandaloneConfig = z.infer<typeof standaloneEnvSchema>;
export const parseStandaloneConfig = envParser(standaloneEnvSchema);
