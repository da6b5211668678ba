/** The ledger's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import { z } from 'zod';
import { commonEnvSchema, env, envParser, outboxRelayMode } from '@meridian/platform/config';
import { DEFAULT_MAX_PENDING_PER_USER } from '@meridian/platform/ports/pendingCount';

export const ledgerEnvSchema = commonEnvSchema.extend({
  LEDGER_GRPC_ADDR: env.address('0.0.0.0:50054').describe("the ledger's gRPC listen address"),
  LEDGER_REFERRAL_MIN_DEPOSIT_CENTS: z.coerce
    .number()
    .int()
    .positive()
    .default(5000)
    .describe('the least first confirmed deposit (cents) that earns the referrer the $5 bonus'),
  LEDGER_MAX_PENDING_DEPOSITS: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_MAX_PENDING_PER_USER)
    .describe(
      'how many deposits one user may have pending at once; one more is refused (400 `You have 5 pending deposits; wait until they are decided before requesting another`)',
    ),
  /**
   * Its outbox relay on a thread of its own by default: every posting is published, and relaying them
   * inline takes a tenth of the event loop under a maturity batch (bench/results/README.md).
   */
  OUTBOX_RELAY: outboxRelayMode('thread'),
});
export type LedgerConfig = z.infer<typeof ledgerEnvSchema>;
export const parseLedgerConfig = envParser(ledgerEnvSchema);
