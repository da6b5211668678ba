/** The withdrawal service's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import { z } from 'zod';
import { commonEnvSchema, env, envParser } from '@meridian/platform/config';
import { DEFAULT_MAX_PENDING_PER_USER } from '@meridian/platform/ports/pendingCount';

export const withdrawalEnvSchema = commonEnvSchema.extend({
  WITHDRAWAL_GRPC_ADDR: env.address('0.0.0.0:50056').describe("withdrawal's gRPC listen address"),
  LEDGER_GRPC_URL: env.grpcTarget('127.0.0.1:50054').describe("the ledger's gRPC client target"),
  WITHDRAWAL_MAX_PENDING: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_MAX_PENDING_PER_USER)
    .describe(
      'how many withdrawals one user may have pending at once (the same refusal, `pending withdrawals`)',
    ),
});
export type WithdrawalConfig = z.infer<typeof withdrawalEnvSchema>;
export const parseWithdrawalConfig = envParser(withdrawalEnvSchema);
