/** The ledger's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import { z } from 'zod';
import { commonEnvSchema, env, envParser, outboxRelayMode } from '@meridian/platform/config';

export const ledgerEnvSchema = commonEnvSchema.extend({
  LEDGER_GRPC_ADDR: env.address('0.0.0.0:50054'),
  /** The least first confirmed deposit (cents) that earns the referrer the bonus; default $50. */
  LEDGER_REFERRAL_MIN_DEPOSIT_CENTS: z.coerce.number().int().positive().default(5000),
  /**
   * Its outbox relay on a thread of its own by default: every posting is published, and relaying them
   * took a tenth of the event loop under a maturity batch (bench/results/README.md, issue 10 goal 4).
   */
  OUTBOX_RELAY: outboxRelayMode('thread'),
});
export type LedgerConfig = z.infer<typeof ledgerEnvSchema>;
export const parseLedgerConfig = envParser(ledgerEnvSchema);
