/** The withdrawal service's environment, parsed and typed once (docs/CONVENTIONS.md names). */
import type { z } from 'zod';
import { commonEnvSchema, env, parseEnv } from '@meridian/platform/config';

const schema = commonEnvSchema.extend({
  WITHDRAWAL_GRPC_ADDR: env.address('0.0.0.0:50056'),
  LEDGER_GRPC_URL: env.address('127.0.0.1:50054'),
});

export const withdrawalEnvSchema = schema;
export type WithdrawalConfig = z.infer<typeof schema>;

export function parseWithdrawalConfig(
  source: Record<string, string | undefined> = process.env,
): WithdrawalConfig {
  return parseEnv(schema, source);
}
