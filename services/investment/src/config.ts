/**
 * The investment service's environment, parsed and typed once (docs/CONVENTIONS.md names).
 * Plans: PLANS_JSON (JSON text) wins over PLANS_FILE (path to a JSON file); neither = the
 * DEFAULT_PLANS of docs/architecture.md §3a. A bad list stops the process with a message naming the
 * variable and the plan field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { commonEnvSchema, env, envParser } from '@meridian/platform/config';
import { DEFAULT_MAX_PENDING_PER_USER } from '@meridian/platform/ports/pendingCount';
import { DEFAULT_PLANS, loadPlans, type Plan } from './domain/plan.js';

function plansFrom(text: string, variable: 'PLANS_JSON' | 'PLANS_FILE', ctx: z.RefinementCtx): Plan[] | null {
  try {
    return loadPlans(text);
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      path: [variable],
      message: err instanceof Error ? err.message : String(err),
    });
    return null;
  }
}

export const investmentEnvSchema = commonEnvSchema
  .extend({
    INVESTMENT_GRPC_ADDR: env.address('0.0.0.0:50055').describe("investment's gRPC listen address"),
    LEDGER_GRPC_URL: env.grpcTarget('127.0.0.1:50054').describe("the ledger's gRPC client target"),
    PLANS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe('path to a JSON file of the investment plans; unset: PLANS_JSON or the default plans'),
    PLANS_JSON: z
      .string()
      .min(1)
      .optional()
      .describe('the investment plans as JSON text (wins over PLANS_FILE); unset: the default plans'),
    INVESTMENT_MAX_PENDING: z.coerce
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_PENDING_PER_USER)
      .describe(
        'how many investments one user may have pending at once (the same refusal, `pending investments`)',
      ),
  })
  .transform((v, ctx) => {
    let plans: readonly Plan[] = DEFAULT_PLANS;
    if (v.PLANS_JSON) {
      plans = plansFrom(v.PLANS_JSON, 'PLANS_JSON', ctx) ?? DEFAULT_PLANS;
    } else if (v.PLANS_FILE) {
      let text: string | null = null;
      try {
        text = readFileSync(v.PLANS_FILE, 'utf8');
      } catch {
        ctx.addIssue({ code: 'custom', path: ['PLANS_FILE'], message: 'cannot be read' });
      }
      if (text !== null) plans = plansFrom(text, 'PLANS_FILE', ctx) ?? DEFAULT_PLANS;
    }
    return { ...v, plans };
  });

export type InvestmentConfig = z.infer<typeof investmentEnvSchema>;
export const parseInvestmentConfig = envParser(investmentEnvSchema);
