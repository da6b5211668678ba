import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import type { GatewayConfig } from './config.js';
import { createGatewayApp } from './app.js';
import {
  createIdentityClient,
  createKycClient,
  createNotificationClient,
  type IdentityServiceClient,
  type KycServiceClient,
  type NotificationServiceClient,
} from './grpcClients.js';
import { createLiveHub, liveEventCodecs, type LiveHub, type LiveSubscription } from './live/hub.js';
import type { LiveLog } from './live/liveLog.js';
import { createMemoryLiveLog } from './live/liveLog.memory.js';
import { createRedisLiveLog } from './live/liveLog.redis.js';
import { closeMoneyClients, createMoneyClients, type MoneyClients } from './moneyClients.js';
import { silentLogger, type GatewayLogger } from './logger.js';
import { attachRealtime, type Realtime } from './realtime.js';
import { measureSockets, withHttpMetrics } from './metrics.js';

export interface StartGatewayOptions {
  config: GatewayConfig;
  /** Default: clients to config.identityGrpcUrl / config.notificationGrpcUrl (closed on stop). */
  identity?: IdentityServiceClient;
  notification?: NotificationServiceClient;
  /** Default: a client to config.kycGrpcUrl (closed on stop). */
  kyc?: KycServiceClient;
  /**
   * The bus live pushes come from (standalone: the shared in-process bus). Default: Kafka at
   * config.kafkaBrokers, else the in-process bus under config.dataDir (closed on stop).
   */
  bus?: EventBus;
  /** Default: clients to config.ledgerGrpcUrl / investmentGrpcUrl / withdrawalGrpcUrl (closed on stop). */
  money?: MoneyClients;
  /** Default: Redis at config.redisUrl (prefix meridian:gateway:), else memory (closed on stop). */
  kv?: KeyValueStore;
  logger?: GatewayLogger;
  /** Listen host (default: all interfaces). */
  host?: string;
}

export interface RunningGateway {
  url: string;
  port: number;
  server: Server;
  pushToUser: Realtime['pushToUser'];
  pushToAdmins: Realtime['pushToAdmins'];
  realtime: Realtime;
  /** The live-push hub (positions, catch-up); tests publish through it. */
  live: LiveHub;
  /** This instance's membership of the live-push group (false while on standby). */
  liveSubscription: LiveSubscription;
  stop(): Promise<void>;
}

/** The gateway on an HTTP server (REST API, SPA, socket.io on the same port). */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const owned: Array<() => Promise<void> | void> = [];
  const identity = options.identity ?? createIdentityClient(config.identityGrpcUrl);
  if (!options.identity) owned.push(() => identity.close());
  const notification = options.notification ?? createNotificationClient(config.notificationGrpcUrl);
  if (!options.notification) owned.push(() => notification.close());
  const kyc = options.kyc ?? createKycClient(config.kycGrpcUrl);
  if (!options.kyc) owned.push(() => kyc.close());
  const money = options.money ?? createMoneyClients(config);
  if (!options.money) owned.push(() => closeMoneyClients(money));
  let kv = options.kv;
  if (!kv) {
    const created = config.redisUrl
      ? createRedisKeyValueStore({ url: config.redisUrl, prefix: 'meridian:gateway:' })
      : createMemoryKeyValueStore({ prefix: 'meridian:gateway:' });
    kv = created;
    owned.push(() => created.close());
  }

  let bus = options.bus;
  if (!bus) {
    if (config.kafkaBrokers?.length) {
      const { createKafkaEventBus } = await import('@meridian/platform/adapters/eventBus.kafka');
      bus = await createKafkaEventBus({
        brokers: config.kafkaBrokers,
        clientId: 'gateway',
        codecs: liveEventCodecs,
        logger: logger as never,
      });
    } else {
      const { createInProcEventBus } = await import('@meridian/platform/adapters/eventBus.inproc');
      bus = createInProcEventBus({
        path: config.dataDir === ':memory:' ? ':memory:' : join(config.dataDir, 'bus.sqlite'),
      });
    }
    const created = bus;
    owned.push(() => created.close());
  }

  const app = createGatewayApp({ config, identity, notification, kyc, kv, logger, money });
  const server = createServer(withHttpMetrics(app));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Whole-request limit: KYC uploads stream up to 2 × 10 MB through this server to the kyc service, which
  // takes minutes on a slow connection; headersTimeout still bounds slow headers, JSON bodies are ≤ 100 kb.
  server.requestTimeout = 5 * 60_000;
  const realtime = attachRealtime({
    server,
    identity,
    logger,
    appUrl: config.appUrl,
    corsOrigins: config.corsOrigins,
    redisUrl: config.redisUrl,
    deadlineMs: config.grpcDeadlineMs,
    revalidateMs: config.socketRevalidateMs,
  });

  // Live pushes (kyc and money events) with catch-up after a reconnect to any instance: gateway/src/live/.
  // One log shared by the instances (Redis) or this process's own (memory: one instance, no REDIS_URL).
  const logOptions = { ringSize: config.liveRingSize, maxRooms: config.liveMaxRooms };
  const liveLog: LiveLog = config.redisUrl
    ? await createRedisLiveLog({
        url: config.redisUrl,
        prefix: config.liveKeyPrefix ?? 'meridian:gateway:live:',
        ...logOptions,
        onError: (err) => logger.warn({ err }, 'live log redis error'),
      })
    : createMemoryLiveLog(logOptions);
  const hub = createLiveHub({ io: realtime.io, logger, log: liveLog });
  owned.push(measureSockets(realtime.io));
  let liveSubscription: LiveSubscription;
  try {
    liveSubscription = await hub.subscribe(bus, config.liveGroup ?? 'gateway-live', {
      standbyRetryMs: config.liveStandbyRetryMs,
    });
  } catch (err) {
    hub.stop();
    await liveLog.close();
    throw err;
  }
  const live = {
    stop: async () => {
      await liveSubscription.stop();
      hub.stop();
      await liveLog.close();
    },
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  logger.info({ url }, 'gateway listening');

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    server,
    realtime,
    live: hub,
    liveSubscription,
    pushToUser: realtime.pushToUser,
    pushToAdmins: realtime.pushToAdmins,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Connections still open 5 s from now are ended (a client holding a keep-alive or a slow request must
        // not hold the stop up: socket.io's close below also waits for the HTTP server to close).
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        force.unref();
        server.closeIdleConnections();
        await live.stop();
        await realtime.close(); // also stops accepting and disconnects sockets
        server.closeIdleConnections();
        await closed;
        clearTimeout(force);
        for (const close of owned.reverse()) await close();
      })();
      return stopping;
    },
  };
}
