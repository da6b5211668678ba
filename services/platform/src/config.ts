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

/** INTERNAL_SERVICE_TOKEN's development default (never accepted in production). */
export const DEV_INTERNAL_SERVICE_TOKEN = 'meridian-dev-internal-service-token-not-for-production';

/** Secret values this repository publishes as development defaults: in production no variable may hold one. */
const developmentSecrets = new Set<string>([DEV_INTERNAL_SERVICE_TOKEN]);
/** Defaults that are no secret (withDevDefaults registers every other default as a development secret). */
const PUBLIC_DEFAULTS = new Set(['ADMIN_EMAIL']);

/** Registers published development secrets (a schema's defaults, a shared token) parseEnv refuses in production. */
export function knownDevelopmentSecrets(...values: string[]): void {
  for (const v of values) developmentSecrets.add(v);
}

const DEVELOPMENT_SECRET_HELD =
  'is a published development default: give it a secret of your own in production';

/**
 * Production's own refusals beyond the schema: Redis holds the sessions, so a REDIS_URL must log in as an ACL
 * user with a password (redis://user:password@host:port); one without is refused. With KAFKA_BROKERS the
 * process's Kafka user (KAFKA_USERNAME, KAFKA_PASSWORD) must be given. Values are never echoed.
 */
function productionProblems(data: Record<string, unknown>): Array<{ variable: string; message: string }> {
  const problems: Array<{ variable: string; message: string }> = [];
  const url = data.REDIS_URL;
  if (typeof url === 'string') {
    let password = '';
    try {
      password = new URL(url).password;
    } catch {
      // the schema reports an unparsable URL
    }
    if (!password)
      problems.push({
        variable: 'REDIS_URL',
        message: 'must carry a user and password in production (redis://user:password@host:port)',
      });
  }
  // Kafka: each process logs in as its own user, whose ACLs say which topic it may publish on
  if (data.KAFKA_BROKERS !== undefined) {
    for (const variable of ['KAFKA_USERNAME', 'KAFKA_PASSWORD'])
      if (!data[variable])
        problems.push({ variable, message: 'is required in production with KAFKA_BROKERS' });
  }
  return problems;
}

/**
 * Parses env with a zod object schema. On failure throws ConfigError whose message names each bad
 * variable, e.g. "Invalid environment: JWT_SECRET: must be at least 32 characters; PORT: is required".
 * Values are never echoed (they may be secrets). With NODE_ENV=production a variable of the schema that
 * holds a published development secret (knownDevelopmentSecrets) is refused too, and so is a REDIS_URL
 * without a password (productionProblems).
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  let problems: Array<{ variable: string; message: string }>;
  if (result.success) {
    const data = result.data as Record<string, unknown>;
    if (data?.NODE_ENV !== 'production') return result.data;
    problems = Object.keys(data)
      .filter((k) => developmentSecrets.has(env[k]?.trim() ?? ''))
      .map((variable) => ({ variable, message: DEVELOPMENT_SECRET_HELD }));
    problems.push(...productionProblems(data));
    if (problems.length === 0) return result.data;
  } else {
    problems = result.error.issues.map((issue) => {
      const variable = issue.path.map(String).join('.') || '(root)';
      const missing =
        issue.path.length === 1 && env[String(issue.path[0])] === undefined && issue.code === 'invalid_type';
      return { variable, message: missing ? 'is required' : issue.message };
    });
  }
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
  for (const k of keys) if (!PUBLIC_DEFAULTS.has(k)) developmentSecrets.add(String(defaults[k]));
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

/** The target forms env.grpcTarget admits (grpc-js resolves each; grpc/client.ts). */
export const GRPC_TARGET_PATTERN =
  /^(?:dns:(?:\/\/[^/\s]*\/)?)?(?:[^\s:/,[\]]+|\[[0-9a-fA-F:]+\]):\d{1,5}$|^ipv4:[\d.]+:\d{1,5}(?:,[\d.]+:\d{1,5})*$|^ipv6:\[[0-9a-fA-F:]+\]:\d{1,5}(?:,\[[0-9a-fA-F:]+\]:\d{1,5})*$|^unix:\S+$/;

/** Building blocks for service config schemas (one name, one meaning: docs/CONVENTIONS.md). */
/**
 * A variable holding JSON, parsed ("must be JSON" when it is not); `empty` is what an empty or blank value
 * stands for (compose passes an unset optional variable as empty), else it is refused as JSON. Pipe the
 * result into the schema of what the JSON must be.
 */
const jsonText = (empty?: unknown) =>
  z.string().transform((text, ctx) => {
    if (empty !== undefined && text.trim() === '') return empty;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON' });
      return z.NEVER;
    }
  });

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
  /**
   * A gRPC client's target (grpc/client.ts): `host:port`, `dns:///host:port` (every address of the name,
   * round robin), `ipv4:h:p,h:p` / `ipv6:[a]:p,[b]:p` (a fixed list), `unix:/path`.
   */
  grpcTarget: (defaultValue: string) =>
    z
      .string()
      .regex(
        GRPC_TARGET_PATTERN,
        'must be a gRPC target: host:port, dns:///host:port, ipv4:host:port,host:port or unix:/path',
      )
      .default(defaultValue),
  url: () => z.url('must be a URL'),
  json: jsonText,
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
    jsonText().pipe(
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
  /**
   * A secret of at least `minLength` characters (default 24); unset takes the reader's development default
   * outside production.
   */
  secret: (description: string, minLength = 24) =>
    z.string().min(minLength, `must be at least ${minLength} characters`).optional().describe(description),
};

/** KYC_INTERNAL_TOKEN, the secret the gateway and kyc's document endpoint share: one definition for both. */
export const kycInternalTokenSchema = env.secret(
  'shared secret (>= 24 chars) the gateway sends as x-internal-token to the document endpoint; the same value on both',
);

/** Alias of `env` (reads better where a local `env` variable exists). */
export const envVar = env;

/** OUTBOX_RELAY with a service's default (see commonEnvSchema). */
export const outboxRelayMode = (fallback: 'thread' | 'inline') =>
  z
    .enum(['thread', 'inline'], 'must be thread or inline')
    .default(fallback)
    .describe(
      "where a service program's outbox relay runs: `inline`, on the event loop that serves commands; `thread`, a worker thread of its own (~75 MB more)",
    );

/** An optional millisecond count (a whole number, 0 or more); unset or empty: the reader's default. */
const optionalMs = () =>
  z
    .union([z.literal('').transform(() => undefined), z.coerce.number().int().min(0, 'must be 0 or more ms')])
    .optional();

/**
 * The variables every service reads (docs/CONVENTIONS.md, whose table scripts/configDocs.ts writes from the
 * schemas: each variable's `.describe()` is its one line there); extend with `.extend({...})`.
 */
export const commonEnvSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'], 'must be development, test or production')
    .default('development')
    .describe('development | test | production: production refuses development defaults'),
  LOG_LEVEL: z
    .enum(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'must be a pino level (fatal … trace, silent)',
    )
    .optional()
    .describe('pino level; unset: info (silent with NODE_ENV=test)'),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .describe('embedded adapters: SQLite files, the in-process bus log, KYC files'),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .optional()
    .describe('MongoDB connection string: when set the MongoDB store is used, else SQLite under DATA_DIR'),
  KAFKA_BROKERS: env
    .list()
    .optional()
    .describe(
      'comma list: when set Kafka is the bus, else the in-process bus (the gateway listens on it for live pushes)',
    ),
  KAFKA_USERNAME: z
    .string()
    .min(1)
    .optional()
    .describe(
      "the process's own SCRAM-SHA-512 user on Kafka (platform busAccess.ts: what each may do); required with KAFKA_BROKERS in production",
    ),
  KAFKA_PASSWORD: z
    .string()
    .min(1)
    .optional()
    .describe("KAFKA_USERNAME's password; required with KAFKA_BROKERS in production"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional()
    .describe(
      '`redis://user:password@host:port/db` (production refuses one without a password): sessions, codes, rate limits, socket fan-out, live log; unset: memory',
    ),
  GRPC_TLS_DIR: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      "folder of the process's mesh certificate (ca.crt, tls.crt, tls.key; grpc/mesh.ts): mutual TLS between the processes; required in production",
    ),
  IDENTITY_GRPC_URL: env
    .grpcTarget('127.0.0.1:50051')
    .describe(
      "identity's gRPC client target: personal-data keys (personalData.remote.ts), the gateway's calls",
    ),
  INTERNAL_SERVICE_TOKEN: env.secret(
    "shared secret (>= 24 chars) sent as x-service-token to identity's GetPersonalDataKeys and ExternalLogin; development default only outside production",
  ),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0, 'must be a port number')
    .max(65535, 'must be a port number')
    .optional()
    .describe(
      'Prometheus `GET /metrics` on a port of its own (metrics.ts; never the API port): unset = 9464 in production, off otherwise; 0 = off',
    ),
  /**
   * Where a service program's outbox relay runs: `inline` (default), on the event loop that serves the
   * commands; `thread`, a worker thread of its own (app/relayThread.ts), off that loop, for about 75 MB
   * more of memory (a second V8 isolate with the service's adapters). The ledger, whose every posting
   * is published, defaults to `thread` (its config.ts).
   */
  OUTBOX_RELAY: outboxRelayMode('inline'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })])
    .optional()
    .describe(
      'OpenTelemetry traces over OTLP/HTTP to this collector (`http://otel-collector:4318`; tracing.ts); unset or empty: none',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })])
    .optional()
    .describe('the traces endpoint itself (`.../v1/traces`), instead of OTEL_EXPORTER_OTLP_ENDPOINT'),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .optional()
    .describe('headers sent to the collector (`key=value,key=value`; read by the OpenTelemetry exporter)'),
  OTEL_TRACES_EXPORTER: z
    .string()
    .optional()
    .describe('`otlp` turns traces on (endpoint default http://localhost:4318), `none` off'),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .describe("service.name of the traces; unset: the service's name (`meridian` for the standalone)"),
  OTEL_SDK_DISABLED: z.string().optional().describe('`true`: no traces whatever else is set'),
  SHUTDOWN_GRACE_MS: optionalMs().describe(
    'SIGTERM: longest drain of HTTP, gRPC, consumers and relay before the process exits 1; unset: 20000 (below k8s terminationGracePeriodSeconds 30; runtime.ts shutdownTimings)',
  ),
  SHUTDOWN_DELAY_MS: optionalMs().describe(
    'SIGTERM: how long a draining process keeps serving while `/readyz` already answers 503 (load balancers stop sending); unset: 3000 in production, 250 otherwise',
  ),
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

/**
 * Variables the platform sets for its own processes (never an operator's): the outbox relay's worker thread
 * runs with MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT=0 (app/relayThread.ts).
 */
export const internalEnvSchema = z.object({
  MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT: z
    .string()
    .optional()
    .describe(
      "internal: `0` keeps SQLite's checkpoints on the connection's own thread (set for the outbox relay's worker thread); else a background worker checkpoints",
    ),
});

/** Whether SQLite databases may be checkpointed by the background worker (adapters/sqliteCheckpointer.ts). */
export function sqliteBackgroundCheckpoint(
  source: Record<string, string | undefined> = process.env,
): boolean {
  return parseEnv(internalEnvSchema, source).MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT !== '0';
}

type CommonEnvName = keyof typeof commonEnvSchema.shape;

/**
 * One common variable read through its schema, for the helpers that run before or outside a program's
 * config (logger, mesh, tracing, shutdown): a value the schema refuses counts as unset here (a program
 * refuses it at start, loadConfigOrExit).
 */
export function commonEnvValue<K extends CommonEnvName>(
  source: Record<string, string | undefined>,
  name: K,
): z.output<(typeof commonEnvSchema.shape)[K]> | undefined {
  const parsed = commonEnvSchema.shape[name].safeParse(source[name]);
  return parsed.success ? (parsed.data as z.output<(typeof commonEnvSchema.shape)[K]>) : undefined;
}

/**
 * SIGTERM's timings (runtime.ts shutdownTimings) from SHUTDOWN_GRACE_MS and SHUTDOWN_DELAY_MS: unset, or a
 * value the schema refuses (a program refuses it at start; a shutdown never throws), takes the default.
 */
export function shutdownTimingsFrom(source: Record<string, string | undefined> = process.env): {
  graceMs: number;
  delayMs: number;
} {
  const production = commonEnvValue(source, 'NODE_ENV') === 'production';
  return {
    graceMs: commonEnvValue(source, 'SHUTDOWN_GRACE_MS') ?? 20_000,
    delayMs: commonEnvValue(source, 'SHUTDOWN_DELAY_MS') ?? (production ? 3_000 : 250),
  };
}

/**
 * The OTEL_* variables tracing.ts acts on, through the common schema (a program refuses a bad one at start;
 * here a refused value counts as unset).
 */
export function tracingEnvFrom(source: Record<string, string | undefined> = process.env): {
  disabled: boolean;
  exporters: string[];
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, when either is given. */
  endpoint?: string;
  serviceName?: string;
} {
  const text = (
    name:
      | 'OTEL_SDK_DISABLED'
      | 'OTEL_TRACES_EXPORTER'
      | 'OTEL_EXPORTER_OTLP_ENDPOINT'
      | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
      | 'OTEL_SERVICE_NAME',
  ) => commonEnvValue(source, name)?.trim() || undefined;
  return {
    disabled: text('OTEL_SDK_DISABLED')?.toLowerCase() === 'true',
    exporters: (text('OTEL_TRACES_EXPORTER') ?? '').split(',').map((s) => s.trim().toLowerCase()),
    endpoint: text('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? text('OTEL_EXPORTER_OTLP_ENDPOINT'),
    serviceName: text('OTEL_SERVICE_NAME'),
  };
}

/** What createServiceRuntime (runtime.ts) builds a service's adapters from. */
export const runtimeEnvSchema = commonEnvSchema.pick({
  DATA_DIR: true,
  MONGO_URL: true,
  KAFKA_BROKERS: true,
  REDIS_URL: true,
});
