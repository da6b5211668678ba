/**
 * The benchmarks' knobs (BENCH_*), read in this one place through a zod schema: a value it refuses stops the
 * run naming the knob. Each knob's default is where it is used (bench/run.ts, liveScale.ts, support.ts); the
 * product's variables are the config modules' (docs/CONVENTIONS.md), never these.
 */
import { z } from 'zod';
import { parseEnv } from '@meridian/platform/config';

const count = (description: string) =>
  z.coerce.number().positive('must be a number above 0').optional().describe(description);

export const benchEnvSchema = z.object({
  BENCH_ONLY: z
    .string()
    .optional()
    .describe('comma list of the modules to run (bench/run.ts MODULES); unset: all but the opt-in ones'),
  BENCH_SECONDS: count('bound of each timed run, seconds (5)'),
  BENCH_CONNECTIONS: count('autocannon connections (20)'),
  BENCH_GRPC_CONCURRENCY: count('gRPC calls in flight (16)'),
  BENCH_MAX_CALLS: count('gRPC calls per run (50000)'),
  BENCH_SPREAD_USERS: count('users whose ledger streams the spread run goes round (1000)'),
  BENCH_HOT_EVENTS: count('events on the long hot stream before its runs (100000)'),
  BENCH_MAX_DECISIONS: count('decisions per run (200)'),
  BENCH_ROUNDS: count('slices the HTTP and the gRPC runs are each interleaved in (2)'),
  BENCH_BUS_EVENTS: count('events through each bus (20000)'),
  BENCH_BUS_LATENCY: count('one-at-a-time events per bus (200)'),
  BENCH_RESTARTS: count('ledger kill -9 rounds (3)'),
  BENCH_MATURITIES: count('due investments of the maturity run (20000; the goal is measured at 100000)'),
  BENCH_MATURITY_BASELINE: count('investments of the maturity baseline (1000)'),
  BENCH_MATURITY_STANDALONE: z
    .string()
    .optional()
    .describe('`0`: the maturity run measures the services topology alone'),
  BENCH_LIVE_SOCKETS: count('live-push sockets (10000)'),
  BENCH_LIVE_RATE: count('live-push decisions per second (50)'),
  BENCH_LIVE_USERS: count('live-push users (200)'),
  BENCH_LIVE_INVESTORS: count('live-push investors (10)'),
  BENCH_LIVE_PROCESSES: count('live-push client processes (4)'),
  BENCH_LIVE_MAX_DECISIONS: count('live-push decisions at most (1000)'),
  BENCH_SUPPORT_CONVERSATIONS: count('support conversations (1000)'),
  BENCH_SUPPORT_SOCKETS: count('support sockets (2000)'),
  BENCH_SUPPORT_ADMIN_SOCKETS: count('support admin sockets (3)'),
  BENCH_SUPPORT_MEASURED: count('investors with a measuring socket in the bench process (20)'),
  BENCH_SUPPORT_RATE: count('support messages per second (20)'),
  BENCH_SUPPORT_MAX_MESSAGES: count('support messages at most (1000)'),
  BENCH_SUPPORT_PROCESSES: count('support client processes (2)'),
  BENCH_WRITE_README: z
    .string()
    .optional()
    .describe('`1`: also quote the run in the committed bench/results/README.md'),
  BENCH_LOG_LEVEL: z.string().optional().describe("the targets' LOG_LEVEL (warn)"),
  BENCH_CPU_PROF: z
    .string()
    .optional()
    .describe('a folder: V8 CPU profiles of the target and its children are written there'),
});
export type BenchConfig = z.infer<typeof benchEnvSchema>;

type Knob = keyof BenchConfig;
/** The knobs that are counts (a default where each is used). */
export type BenchNumberKnob = { [K in Knob]: BenchConfig[K] extends number | undefined ? K : never }[Knob];
/** The knobs that are text. */
export type BenchTextKnob = Exclude<Knob, BenchNumberKnob>;

let parsed: BenchConfig | undefined;
/** The knobs of this process's environment, parsed once; throws ConfigError naming a refused one. */
export function benchConfig(): BenchConfig {
  return (parsed ??= parseEnv(benchEnvSchema, process.env));
}

export const benchNumber = (name: BenchNumberKnob): number | undefined => benchConfig()[name];
export const benchText = (name: BenchTextKnob): string | undefined => benchConfig()[name];
