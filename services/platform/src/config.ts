import { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly problems: Array<{ variable: string; message: string }>,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Parses env with a zod object schema. On failure throws ConfigError whose message names each bad
 * variable, e.g. "Invalid environment: JWT_SECRET: must be at least 32 characters; PORT: is required".
 * Values are never echoed (they may be secrets).
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.map(String).join('.') || '(root)';
    const missing =
      issue.path.length === 1 && env[String(issue.path[0])] === undefined && issue.code === 'invalid_type';
    return { variable, message: missing ? 'is required' : issue.message };
  });
  const message = `Invalid environment: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`;
  throw new ConfigError(message, problems);
}

/** A service's `parse<Service>Config(source = process.env)`: parseEnv over its schema. */
export function envParser<S extends z.ZodType>(
  schema: S,
): (source?: Record<string, string | undefined>) => z.infer<S> {
  return (source = process.env) => parseEnv(schema, source);
}

/**
 * Secrets with a development default: in production each must be given (as must the variables of
 * `requiredInProduction`, which have none), elsewhere an unset one takes its default. The config says
 * which fell back in `usedDevDefaults` (printed at start).
 */
export function withDevDefaults<T extends { NODE_ENV: string }, K extends keyof T & string>(
  schema: z.ZodType<T>,
  defaults: { readonly [P in K]: NonNullable<T[P]> },
  requiredInProduction: ReadonlyArray<keyof T & string> = [],
) {
  const keys = Object.keys(defaults) as K[];
  return schema
    .superRefine((v, ctx) => {
      if (v.NODE_ENV !== 'production') return;
      for (const key of [...keys, ...requiredInProduction]) {
        if (v[key] === undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required in production' });
      }
    })
    .transform((v) => ({
      ...v,
      ...(Object.fromEntries(keys.map((k) => [k, v[k] ?? defaults[k]])) as { [P in K]: NonNullable<T[P]> }),
      usedDevDefaults: keys.filter((k) => v[k] === undefined),
    }));
}

/** parseEnv, or print the message to stderr and exit(1). For main.ts composition roots. */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
  exit: (code: number) => never = (code) => process.exit(code),
): z.infer<S> {
  try {
    return parseEnv(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return exit(1);
    }
    throw err;
  }
}

/** Building blocks for service config schemas (one name, one meaning: docs/CONVENTIONS.md). */
export const env = {
  /** "true"/"1"/"yes" → true, "false"/"0"/"no"/"" → false; anything else is an error. */
  bool: (defaultValue: boolean) =>
    z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return defaultValue;
        const s = v.trim().toLowerCase();
        if (['true', '1', 'yes'].includes(s)) return true;
        if (['false', '0', 'no', ''].includes(s)) return false;
        ctx.addIssue({ code: 'custom', message: 'must be true or false' });
        return z.NEVER;
      }),
  port: (defaultValue: number) =>
    z.coerce
      .number()
      .int()
      .min(0, 'must be a port number')
      .max(65535, 'must be a port number')
      .default(defaultValue),
  /** host:port listen address or client target. */
  address: (defaultValue: string) =>
    z
      .string()
      .regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'must be host:port')
      .default(defaultValue),
  url: () => z.url('must be a URL'),
  /** Comma-separated list, trimmed, empties removed. */
  list: () =>
    z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .refine((a) => a.length > 0, 'must list at least one value'),
  /**
   * Rate-limit budgets as JSON, e.g. `{"register":{"max":100,"windowMs":3600000}}`: only the named keys,
   * each a positive whole `max` and `windowMs` (operators tune budgets without a release).
   */
  rateLimits: <K extends string>(keys: readonly K[]) =>
    z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be JSON' });
          return z.NEVER;
        }
      })
      .pipe(
        z.partialRecord(
          z.enum(keys as unknown as [K, ...K[]], `must name only ${keys.join(', ')}`),
          z.strictObject(
            { max: z.number().int().positive(), windowMs: z.number().int().positive() },
            'must be {"max":N,"windowMs":MS}',
          ),
        ),
      ),
  hexKey: (bytes: number) =>
    z.string().regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), `must be ${bytes * 2} hex characters`),
};

/** Alias of `env` (reads better where a local `env` variable exists). */
export const envVar = env;

/** OUTBOX_RELAY with a service's default (see commonEnvSchema). */
export const outboxRelayMode = (fallback: 'thread' | 'inline') =>
  z.enum(['thread', 'inline'], 'must be thread or inline').default(fallback);

/** The variables every service reads (docs/CONVENTIONS.md); extend with `.extend({...})`. */
export const commonEnvSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'], 'must be development, test or production')
    .default('development'),
  LOG_LEVEL: z
    .enum(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'must be a pino level (fatal … trace, silent)',
    )
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .optional(),
  KAFKA_BROKERS: env.list().optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** identity's gRPC address: where a service fetches the personal-data keys (personalData.remote.ts); default 127.0.0.1:50051. */
  IDENTITY_GRPC_URL: env.address('127.0.0.1:50051'),
  /** The shared secret services present to identity's GetPersonalDataKeys (x-service-token); dev default outside production. */
  INTERNAL_SERVICE_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /** Prometheus `GET /metrics` port of the process (metrics.ts); unset: DEFAULT_METRICS_PORT in production, else off; 0 = off. */
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0, 'must be a port number')
    .max(65535, 'must be a port number')
    .optional(),
  /**
   * Where a service program's outbox relay runs: `inline` (default), on the event loop that serves the
   * commands; `thread`, a worker thread of its own (app/relayThread.ts), off that loop, for about 75 MB
   * more of memory (a second V8 isolate with the service's adapters). The ledger, whose every posting
   * is published, defaults to `thread` (its config.ts).
   */
  OUTBOX_RELAY: outboxRelayMode('inline'),
  /** OTLP/HTTP collector of the traces (tracing.ts); unset or empty: no traces exported. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })])
    .optional(),
});
export type CommonEnv = z.infer<typeof commonEnvSchema>;

/** The metrics port of production processes (each container its own; the OpenTelemetry Prometheus default). */
export const DEFAULT_METRICS_PORT = 9464;

/**
 * The metrics port a process serves on: METRICS_PORT when set (0 = off), else DEFAULT_METRICS_PORT in
 * production and off elsewhere (processes of a development cluster share one host; tests ask for one).
 */
export function metricsPortOf(config: Pick<CommonEnv, 'NODE_ENV' | 'METRICS_PORT'>): number {
  return config.METRICS_PORT ?? (config.NODE_ENV === 'production' ? DEFAULT_METRICS_PORT : 0);
}
