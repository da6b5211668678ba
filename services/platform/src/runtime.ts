import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { createInProcEventBus } from './adapters/eventBus.inproc.js';
import { createMemoryKeyValueStore } from './adapters/keyValue.memory.js';
import { createRedisKeyValueStore } from './adapters/keyValue.redis.js';
import { createSqliteServiceStore } from './adapters/serviceStore.sqlite.js';
import { storeSynchronous } from './adapters/sqliteFile.js';
import { ALL_EVENT_CODECS, type EventCodecs } from './adapters/eventEnvelope.js';
import {
  commonEnvSchema,
  loadConfigOrExit,
  metricsPortOf,
  parseEnv,
  runtimeEnvSchema,
  shutdownTimingsFrom,
  type CommonEnv,
} from './config.js';
import { createLogger, type Logger } from './logger.js';
import { startTracingFromEnv } from './tracing.js';
import { startMetricsServerIf } from './metrics.js';
import { setGrpcServing } from './grpc/server.js';
import { registerMeshFromEnv } from './grpc/mesh.js';
import { createReadiness, probeRoutes } from './readiness.js';
import type { ServiceDeps, ServiceHandle } from './service.js';
import type { EventBus } from './ports/eventBus.js';
import { kafkaSasl } from './busAccess.js';
import type { KeyValueStore } from './ports/keyValue.js';
import type { ServiceStore } from './ports/serviceStore.js';
import { internalServiceToken, PersonalData, type PersonalDataKeys } from './personalData.js';
import { RemotePersonalDataKeys } from './personalData.remote.js';

export interface ServiceRuntime {
  store: ServiceStore;
  bus: EventBus;
  kv: KeyValueStore;
  logger: Logger;
  /** Which adapters were chosen (logged at start). */
  adapters: { store: 'mongodb' | 'sqlite'; bus: 'kafka' | 'inproc'; kv: 'redis' | 'memory' };
  /** Closes what this runtime created (not the bus/kv/logger passed in). */
  close(): Promise<void>;
}

export interface ServiceRuntimeOptions {
  /** Share one bus (standalone target): not closed by close(). */
  bus?: EventBus;
  kv?: KeyValueStore;
  logger?: Logger;
  /**
   * Protobuf codecs per event type the Kafka bus encodes with (see eventBus.kafka.ts); default every
   * event message of proto/ (a service publishes only those), so no service lists its own.
   */
  codecs?: EventCodecs;
}

/**
 * Builds a service's adapters from env (docs/CONVENTIONS.md):
 *  MONGO_URL     -> MongoDB store (database = meridian_<service>), else SQLite at DATA_DIR/<service>.sqlite
 *                   (synchronous FULL for the stores that hold money, NORMAL for the others: sqliteFile.ts)
 *  KAFKA_BROKERS -> Kafka bus (client id = service; user KAFKA_USERNAME / KAFKA_PASSWORD when set), else the
 *                   in-process bus at DATA_DIR/bus.sqlite
 *  REDIS_URL     -> Redis KV (prefix meridian:<service>:), else in-memory
 */
export async function createServiceRuntime(
  service: string,
  env: Record<string, string | undefined> = process.env,
  options: ServiceRuntimeOptions = {},
): Promise<ServiceRuntime> {
  const logger = options.logger ?? createLogger(service, { env });
  const { DATA_DIR: dataDir, MONGO_URL, KAFKA_BROKERS, REDIS_URL } = parseEnv(runtimeEnvSchema, env);
  const closers: Array<() => Promise<void>> = [];

  /** An adapter this runtime made: closed by close() (last made, first closed). */
  const own = <T extends { close(): Promise<void> }>(adapter: T): T => {
    closers.push(() => adapter.close());
    return adapter;
  };

  try {
    const adapters: ServiceRuntime['adapters'] = {
      store: MONGO_URL ? 'mongodb' : 'sqlite',
      bus: !options.bus && KAFKA_BROKERS ? 'kafka' : 'inproc',
      kv: !options.kv && REDIS_URL ? 'redis' : 'memory',
    };
    const store = own(
      MONGO_URL
        ? await (
            await import('./adapters/serviceStore.mongo.js')
          ).createMongoServiceStore({
            url: MONGO_URL,
            database: `meridian_${service.replace(/\W/g, '_')}`,
          })
        : createSqliteServiceStore(join(dataDir, `${service}.sqlite`), {
            synchronous: storeSynchronous(service),
          }),
    );
    const bus =
      options.bus ??
      own(
        KAFKA_BROKERS
          ? await (
              await import('./adapters/eventBus.kafka.js')
            ).createKafkaEventBus({
              brokers: KAFKA_BROKERS,
              clientId: service,
              codecs: options.codecs ?? ALL_EVENT_CODECS,
              logger,
              kafka: { sasl: kafkaSasl(env) },
            })
          : createInProcEventBus({
              path: join(dataDir, 'bus.sqlite'),
              onError: (err, ctx) =>
                logger.warn(
                  { err, topic: ctx.topic, group: ctx.group, attempt: ctx.attempt },
                  'event handler failed; retrying',
                ),
              onDeadLetter: ({ topic, group, event, error }) =>
                logger.error(
                  { err: error, topic, group, eventId: event.id, type: event.type },
                  'event moved to the dead-letter topic',
                ),
            }),
      );
    const kv =
      options.kv ??
      own(
        REDIS_URL
          ? createRedisKeyValueStore({
              url: REDIS_URL,
              prefix: `meridian:${service}:`,
              onError: (err) => logger.warn({ err: err.message }, 'redis: connection error; reconnecting'),
            })
          : createMemoryKeyValueStore(),
      );

    logger.info({ adapters }, 'runtime adapters');
    let closing: Promise<void> | undefined;
    return {
      store,
      bus,
      kv,
      logger,
      adapters,
      close() {
        closing ??= (async () => {
          // reverse order: kv, bus (stops consumers), store
          for (const c of [...closers].reverse()) {
            try {
              await c();
            } catch (err) {
              logger.error({ err }, 'error while closing runtime');
            }
          }
        })();
        return closing;
      },
    };
  } catch (err) {
    for (const c of [...closers].reverse()) await c().catch(() => undefined);
    throw err;
  }
}

const hooks: Array<() => Promise<void> | void> = [];
let installed = false;
let shuttingDown: Promise<void> | undefined;

/**
 * Registers a shutdown step. On the first SIGINT/SIGTERM the steps run once, in reverse order of
 * registration (last started, first stopped), then the process exits (0, or 1 if a step failed).
 * Returns a function that unregisters the step.
 */
export function onShutdown(
  fn: () => Promise<void> | void,
  options: { logger?: Logger; exit?: boolean } = {},
): () => void {
  hooks.push(fn);
  if (!installed) {
    installed = true;
    const handler = (signal: NodeJS.Signals) => {
      const { graceMs } = shutdownTimings();
      options.logger?.info({ signal, graceMs }, 'shutting down');
      // the whole shutdown fits in the grace period (below the pod's terminationGracePeriodSeconds)
      const force = setTimeout(() => {
        options.logger?.error({ graceMs }, 'shutdown did not finish within the grace period; exiting');
        if (options.exit !== false) process.exit(1);
      }, graceMs);
      force.unref();
      void runShutdown(options.logger).then((ok) => {
        clearTimeout(force);
        if (options.exit !== false) process.exit(ok ? 0 : 1);
      });
    };
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  }
  return () => {
    const i = hooks.indexOf(fn);
    if (i >= 0) hooks.splice(i, 1);
  };
}

/**
 * How a process stops on SIGTERM (from env):
 * - SHUTDOWN_GRACE_MS (default 20000): everything stops within it, else the process exits 1 — below
 *   Kubernetes' terminationGracePeriodSeconds (30 s in infra/k8s), which SIGKILLs after it;
 * - SHUTDOWN_DELAY_MS (default 3000 in production, 250 elsewhere): how long the process keeps serving,
 *   already unready (/readyz 503, gRPC NOT_SERVING) and closing keep-alive connections after their
 *   response, before it stops accepting connections: the time load balancers take to stop sending to it.
 */
export function shutdownTimings(env: Record<string, string | undefined> = process.env): {
  graceMs: number;
  delayMs: number;
} {
  return shutdownTimingsFrom(env);
}

/** Runs the registered shutdown steps once (reverse order). Resolves true when all succeeded. */
export function runShutdown(logger?: Logger): Promise<boolean> {
  let ok = true;
  shuttingDown ??= (async () => {
    for (const fn of [...hooks].reverse()) {
      try {
        await fn();
      } catch (err) {
        ok = false;
        logger?.error({ err }, 'shutdown step failed');
      }
    }
  })();
  return shuttingDown.then(() => ok);
}

export interface ServiceProgram<S extends z.ZodType, H extends ServiceHandle> {
  service: string;
  /** The service's env schema (config.ts). */
  schema: S;
  start(deps: ServiceDeps<z.infer<S>>): Promise<H>;
  /**
   * Where the per-user personal-data keys come from. Only their owner (identity: its vault) gives one; every
   * other service asks identity over gRPC (IDENTITY_GRPC_URL, INTERNAL_SERVICE_TOKEN; personalData.remote.ts).
   */
  personalDataKeys?(
    runtime: ServiceRuntime,
    env: Record<string, string | undefined>,
  ): Promise<PersonalDataKeys & { close?(): void | Promise<void> }>;
}

const identityTargetSchema = commonEnvSchema.pick({ IDENTITY_GRPC_URL: true });

/** The keys of a service that does not own them: identity's, over gRPC. */
export function remotePersonalDataKeys(
  env: Record<string, string | undefined>,
  logger?: Logger,
): RemotePersonalDataKeys {
  const token = internalServiceToken(env);
  if (token === undefined)
    logger?.error('INTERNAL_SERVICE_TOKEN is not set: identity refuses this service the personal-data keys');
  return new RemotePersonalDataKeys({
    target: parseEnv(identityTargetSchema, { IDENTITY_GRPC_URL: env.IDENTITY_GRPC_URL || undefined })
      .IDENTITY_GRPC_URL,
    token: token ?? '',
  });
}

/**
 * When `moduleUrl` (import.meta.url of a main.ts) is the program being run: config from env (a bad
 * variable exits 1 naming it), adapters from env, start, a warning when development defaults are in
 * use, a "started" line with the handle's addresses, and a graceful stop on SIGINT / SIGTERM. A
 * failure to start exits 1.
 */
export function runServiceProgram<S extends z.ZodType, H extends ServiceHandle>(
  moduleUrl: string,
  program: ServiceProgram<S, H>,
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const { service } = program;
  const run = async () => {
    const config = loadConfigOrExit(program.schema);
    // its certificate for mutual TLS with the other services (GRPC_TLS_DIR)
    registerMeshFromEnv(service, process.env);
    const runtime = await createServiceRuntime(service, process.env);
    const { logger } = runtime;
    const tracing = startTracingFromEnv(service);
    if (tracing) onShutdown(() => tracing.stop(), { logger });
    const devDefaults = (config as { usedDevDefaults?: string[] }).usedDevDefaults ?? [];
    if (devDefaults.length > 0)
      logger.warn({ variables: devDefaults }, 'using development defaults (never in production)');
    const keys = program.personalDataKeys
      ? await program.personalDataKeys(runtime, process.env)
      : remotePersonalDataKeys(process.env, logger);
    onShutdown(() => keys.close?.(), { logger });
    const handle = await program.start({
      config,
      store: runtime.store,
      bus: runtime.bus,
      kv: runtime.kv,
      logger,
      personalData: new PersonalData(keys),
      ...((config as CommonEnv).OUTBOX_RELAY === 'thread' ? { relayThread: { env: process.env } } : {}),
    });
    // readiness: the store answers and the bus reaches its broker; gRPC health follows it
    const readiness = createReadiness({
      checks: {
        store: runtime.store.ping && (() => runtime.store.ping!()),
        bus: runtime.bus.ready && (() => runtime.bus.ready!()),
      },
      logger,
    });
    readiness.onChange((ready) => setGrpcServing(ready));
    // probes on the metrics port (never the gRPC port); stopped last
    const metricsServer = await startMetricsServerIf(metricsPortOf(config as CommonEnv), {
      logger,
      routes: probeRoutes(readiness),
    });
    if (metricsServer) onShutdown(() => metricsServer.stop(), { logger });
    onShutdown(() => readiness.stop(), { logger });
    // SIGTERM, in this order: unready, keep serving for SHUTDOWN_DELAY_MS, then the handle stops (gRPC waits
    // for the calls in flight, consumers finish their event, the outbox relay stops), then the adapters close
    onShutdown(() => runtime.close(), { logger });
    onShutdown(() => handle.stop(), { logger });
    onShutdown(
      async () => {
        readiness.drain();
        await delay(shutdownTimings().delayMs);
      },
      { logger },
    );
    const addresses = Object.entries(handle).filter(([, v]) => typeof v === 'string');
    logger.info(
      { ...Object.fromEntries(addresses), ...(metricsServer ? { metrics: metricsServer.url } : {}) },
      `${service} service started`,
    );
  };
  run().catch((err) => {
    process.stderr.write(`${service} failed to start: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}
