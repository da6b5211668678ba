import { join } from 'node:path';
import { createInProcEventBus } from './adapters/eventBus.inproc.js';
import { createMemoryKeyValueStore } from './adapters/keyValue.memory.js';
import { createRedisKeyValueStore } from './adapters/keyValue.redis.js';
import { createSqliteServiceStore } from './adapters/serviceStore.sqlite.js';
import type { EventCodecs } from './adapters/eventEnvelope.js';
import { createLogger, type Logger } from './logger.js';
import type { EventBus } from './ports/eventBus.js';
import type { KeyValueStore } from './ports/keyValue.js';
import type { ServiceStore } from './ports/serviceStore.js';

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
  /** Protobuf codecs per event type for the Kafka bus (see eventBus.kafka.ts). */
  codecs?: EventCodecs;
}

/**
 * Builds a service's adapters from env (docs/CONVENTIONS.md):
 *  MONGO_URL     -> MongoDB store (database = meridian_<service>), else SQLite at DATA_DIR/<service>.sqlite
 *  KAFKA_BROKERS -> Kafka bus (client id = service), else the in-process bus at DATA_DIR/bus.sqlite
 *  REDIS_URL     -> Redis KV (prefix meridian:<service>:), else in-memory
 */
export async function createServiceRuntime(
  service: string,
  env: Record<string, string | undefined> = process.env,
  options: ServiceRuntimeOptions = {},
): Promise<ServiceRuntime> {
  const logger = options.logger ?? createLogger(service, { env });
  const dataDir = env.DATA_DIR || './data';
  const closers: Array<() => Promise<void>> = [];

  try {
    let store: ServiceStore;
    let storeKind: 'mongodb' | 'sqlite';
    if (env.MONGO_URL) {
      const { createMongoServiceStore } = await import('./adapters/serviceStore.mongo.js');
      store = await createMongoServiceStore({
        url: env.MONGO_URL,
        database: `meridian_${service.replace(/\W/g, '_')}`,
      });
      storeKind = 'mongodb';
    } else {
      store = createSqliteServiceStore(join(dataDir, `${service}.sqlite`));
      storeKind = 'sqlite';
    }
    closers.push(() => store.close());

    let bus: EventBus;
    let busKind: 'kafka' | 'inproc';
    if (options.bus) {
      bus = options.bus;
      busKind = 'inproc';
    } else if (env.KAFKA_BROKERS) {
      const { createKafkaEventBus } = await import('./adapters/eventBus.kafka.js');
      bus = await createKafkaEventBus({
        brokers: env.KAFKA_BROKERS.split(',')
          .map((b) => b.trim())
          .filter(Boolean),
        clientId: service,
        codecs: options.codecs,
        logger,
      });
      busKind = 'kafka';
      closers.push(() => bus.close());
    } else {
      bus = createInProcEventBus({
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
      });
      busKind = 'inproc';
      closers.push(() => bus.close());
    }

    let kv: KeyValueStore;
    let kvKind: 'redis' | 'memory';
    if (options.kv) {
      kv = options.kv;
      kvKind = 'memory';
    } else if (env.REDIS_URL) {
      kv = createRedisKeyValueStore({ url: env.REDIS_URL, prefix: `meridian:${service}:` });
      kvKind = 'redis';
      closers.push(() => kv.close());
    } else {
      kv = createMemoryKeyValueStore();
      kvKind = 'memory';
      closers.push(() => kv.close());
    }

    const adapters = { store: storeKind, bus: busKind, kv: kvKind };
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
      options.logger?.info({ signal }, 'shutting down');
      void runShutdown(options.logger).then((ok) => {
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
