/** The ledger's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import type { z } from 'zod';
import { commonEnvSchema, env, parseEnv } from '@meridian/platform/config';

const schema = commonEnvSchema.extend({
  LEDGER_GRPC_ADDR: env.address('0.0.0.0:50054'),
});

export const ledgerEnvSchema = schema;
export type LedgerConfig = z.infer<typeof schema>;

export function parseLedgerConfig(source: Record<string, string | undefined> = process.env): LedgerConfig {
  return parseEnv(schema, source);
}
