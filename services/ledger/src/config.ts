/** The ledger's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import { z } from 'zod';
import { commonEnvSchema, env, envParser } from '@meridian/platform/config';

export const ledgerEnvSchema = commonEnvSchema.extend({
  LEDGER_GRPC_ADDR: env.address('0.0.0.0:50054'),
  /** The least first confirmed deposit (cents) that earns the referrer the bonus; default $50. */
  LEDGER_REFERRAL_MIN_DEPOSIT_CENTS: z.coerce.number().int().positive().default(5000),
});
export type LedgerConfig = z.infer<typeof ledgerEnvSchema>;
export const parseLedgerConfig = envParser(ledgerEnvSchema);
