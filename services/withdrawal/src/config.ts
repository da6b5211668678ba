/** The withdrawal service's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import type { z } from 'zod';
import { commonEnvSchema, env, envParser } from '@meridian/platform/config';

export const withdrawalEnvSchema = commonEnvSchema.extend({
  WITHDRAWAL_GRPC_ADDR: env.address('0.0.0.0:50056'),
  LEDGER_GRPC_URL: env.address('127.0.0.1:50054'),
});
export type WithdrawalConfig = z.infer<typeof withdrawalEnvSchema>;
export const parseWithdrawalConfig = envParser(withdrawalEnvSchema);
