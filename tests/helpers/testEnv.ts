/**
 * Knobs only the test suites read (never the product's: those are the config modules' schemas,
 * docs/CONVENTIONS.md), in one zod schema: each described, its default here, a refused value stops the suite
 * naming the knob.
 */
import { z } from 'zod';

const flag = (description: string) =>
  z
    .string()
    .optional()
    .transform((v) => v !== undefined && v !== '' && v !== '0')
    .describe(description);

export const testEnvSchema = z.object({
  FUZZ_RUNS: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .default(3)
    .describe('gateway/src/fuzz.int.spec.ts: fuzzed requests per route and caller'),
  FUZZ_SEED: z.coerce
    .number()
    .int()
    .optional()
    .describe(
      "gateway/src/fuzz.int.spec.ts: the generator's seed (printed by a failing run); unset: from the clock",
    ),
  FUZZ_TRACE: flag('gateway/src/fuzz.int.spec.ts: print each fuzzed request, its answer and its time'),
  MATRIX_PRINT: flag("gateway/src/authzMatrix.int.spec.ts: print every route's outcomes by caller"),
  CHAOS_MINUTES: z.coerce
    .number()
    .positive('must be above 0')
    .default(2)
    .describe(
      'tests/cluster/chaos.int.spec.ts: how long the nemesis runs, minutes (make test: 2, make chaos: 3)',
    ),
  CHAOS_GRPC_BASE: z.coerce
    .number()
    .int()
    .min(1024)
    .max(65000)
    .default(30350)
    .describe(
      "tests/cluster/chaos.int.spec.ts: the chaos cluster's first gRPC port (another value runs a second nemesis beside)",
    ),
  REPLICA_DRILL_LOGS: z
    .string()
    .min(1)
    .optional()
    .describe("tests/cluster/replicas.int.spec.ts: a folder the replica drill's process logs are kept in"),
  CHROMIUM_PATH: z
    .string()
    .min(1)
    .default('/usr/bin/chromium')
    .describe('the browser journeys: the Chromium executable playwright-core drives'),
});
export type TestEnv = z.infer<typeof testEnvSchema>;

let parsed: TestEnv | undefined;
/** This process's test knobs, parsed once. */
export function testEnv(): TestEnv {
  if (!parsed) {
    const result = testEnvSchema.safeParse(process.env);
    if (!result.success)
      throw new Error(
        `Invalid test knobs: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    parsed = result.data;
  }
  return parsed;
}
