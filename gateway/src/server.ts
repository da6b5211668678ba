import { createServer, type Server, type ServerResponse } from 'node:http';
import { personalDataOf, type PersonalData } from '@meridian/platform/personalData';
import { listenOn } from '@meridian/platform/util/freePort';
import { join } from 'node:path';
import { Server as NetServer, type Socket } from 'node:net';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import type { GatewayConfig } from './config.js';
import { createGatewayApp } from './app.js';
import {
  createIdentityClient,
  createKycClient,
  createSupportClient,
  createNotificationClient,
  type IdentityServiceClient,
  type KycServiceClient,
  type SupportServiceClient,
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
import { createRevocationFeed } from './sessionRevocations.js';
import { attachClaimsRealtime } from './live/claimsRealtime.js';
import { emailRepliesToOffline } from './live/supportOffline.js';
import { attachSupportTyping } from './live/supportTyping.js';

export interface StartGatewayOptions {
  config: GatewayConfig;
  /** Default: clients to config.identityGrpcUrl / config.notificationGrpcUrl (closed on stop). */
  identity?: IdentityServiceClient;
  notification?: NotificationServiceClient;
  /** Default: a client to config.kycGrpcUrl (closed on stop). */
  kyc?: KycServiceClient;
  /** Default: a client to config.supportGrpcUrl (closed on stop). */
  support?: SupportServiceClient;
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
  /**
   * Opens the personal values events carry sealed (live pushes) and seals the claim records' admin names.
   * Default: the process's shared one (personalDataOf); the standalone passes identity's vault, main.ts one
   * that fetches keys from identity.
   */
  personalData?: PersonalData;
  /** Listen host (default: all interfaces). */
  host?: string;
  /** stop(): connections still open this long after it began are ended (default 10 s). */
  forceCloseAfterMs?: number;
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
  /**
   * The first step of a graceful stop: /readyz answers 503 and every response from now on closes its
   * keep-alive connection; still accepting. stop() drains too, then stops accepting, lets the requests in
   * flight finish and closes the rest.
   */
  drain(): void;
  stop(): Promise<void>;
}

/** The gateway on an HTTP server (REST API, SPA, socket.io on the same port). */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const personalData = personalDataOf(options);
  const owned: Array<() => Promise<void> | void> = [];
  const identity = options.identity ?? createIdentityClient(config.identityGrpcUrl);
  if (!options.identity) owned.push(() => identity.close());
  const notification = options.notification ?? createNotificationClient(config.notificationGrpcUrl);
  if (!options.notification) owned.push(() => notification.close());
  const kyc = options.kyc ?? createKycClient(config.kycGrpcUrl);
  if (!options.kyc) owned.push(() => kyc.close());
  const support = options.support ?? createSupportClient(config.supportGrpcUrl ?? '127.0.0.1:50057');
  if (!options.support) owned.push(() => support.close());
  const money = options.money ?? createMoneyClients(config);
  if (!options.money) owned.push(() => closeMoneyClients(money));
  let kv = options.kv;
  if (!kv) {
    const created = config.redisUrl
      ? createRedisKeyValueStore({
          url: config.redisUrl,
          prefix: 'meridian:gateway:',
          onError: (err) => logger.warn({ err: err.message }, 'redis: connection error; reconnecting'),
        })
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
        kafka: { sasl: config.kafkaSasl },
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

  // identity's session revocations: lets auth.ts cache principals (sessionRevocations.ts)
  const revocations = await createRevocationFeed({ redisUrl: config.redisUrl, logger });
  owned.push(() => revocations.close());
  // a user's revocation (deletion among others) reaches every instance: drop the user's cached personal-data
  // key, so a deleted user's values are not opened from memory (it is fetched again while the user exists)
  const offKeys = revocations.subscribe({
    revoked: (r) => {
      if ('uid' in r) personalData.forget(r.uid);
    },
    lost: () => undefined,
  });
  owned.push(offKeys);
  const app = createGatewayApp({
    config,
    identity,
    notification,
    kyc,
    kv,
    logger,
    money,
    support,
    revocations,
    personalData,
  });
  // Draining (drain(), then stop()): /readyz answers 503 and every response closes its keep-alive connection
  // (Connection: close), so clients open new connections, which go elsewhere once the listener is closed.
  let draining = false;
  const inFlight = new Set<ServerResponse>();
  /** Every HTTP connection: requests in flight on it, responses it finished, since when it is open. */
  const connections = new Map<Socket, { active: number; served: number; since: number }>();
  const handle = withHttpMetrics(app);
  const server = createServer((req, res) => {
    const conn = connections.get(req.socket);
    if (conn) {
      conn.active++;
      res.once('close', () => {
        conn.active--;
        conn.served++;
      });
    }
    if (draining) {
      res.setHeader('Connection', 'close');
      if ((req.url ?? '').split('?')[0] === '/readyz') {
        res
          .writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ status: 'draining' }));
        return;
      }
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    handle(req, res);
  });
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
    connections.set(socket, { active: 0, served: 0, since: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  // a WebSocket is socket.io's to close (realtime.close)
  server.on('upgrade', (_req, socket: Socket) => connections.delete(socket));
  /**
   * Ends the connections nothing more will come on: idle keep-alive ones (they answered before and have
   * nothing in flight) and ones that sent no request within 2 s. A connection accepted a moment ago keeps
   * its chance: its request may still be in the socket's buffer (http.Server's closeIdleConnections would
   * destroy it unread: the client would see a reset). Resolves true when no HTTP connection is left.
   */
  const sweep = (): boolean => {
    for (const [socket, c] of connections)
      if (c.active === 0 && (c.served > 0 || Date.now() - c.since > 2_000)) socket.destroy();
    return connections.size === 0;
  };
  /**
   * Closes the listening socket right after an event-loop poll phase that accepted no connection (from a
   * setImmediate: the check phase follows the poll phase), trying again every 10 ms for up to 2 s: the
   * connections the kernel queued before the close were accepted by then (closing the socket resets
   * those still queued: a client whose connection had been established would see a reset, not a refusal).
   */
  const closeListenerQuietly = () =>
    new Promise<void>((resolve) => {
      const giveUpAt = Date.now() + 2_000;
      const attempt = () => {
        const seen = accepted;
        setImmediate(() => {
          if (accepted !== seen && Date.now() < giveUpAt) {
            setTimeout(attempt, 10);
            return;
          }
          if (server.listening) NetServer.prototype.close.call(server);
          resolve();
        });
      };
      attempt();
    });
  const drain = () => {
    if (draining) return;
    draining = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    logger.info({ inFlight: inFlight.size }, 'gateway draining: not ready, closing keep-alive connections');
  };
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
    allowedHosts: config.allowedHosts,
    nodeEnv: config.nodeEnv,
    redisUrl: config.redisUrl,
    socketChannel: config.socketChannel,
    deadlineMs: config.grpcDeadlineMs,
    revalidateMs: config.socketRevalidateMs,
    revocations,
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
  const hub = createLiveHub({
    io: realtime.io,
    logger,
    log: liveLog,
    personalData,
    // a reply nobody's socket (on any instance) received is emailed, once per burst
    onSupportEvent: emailRepliesToOffline({ io: realtime.io, support, deadlineMs: config.grpcDeadlineMs }),
  });
  // claim locks of the admin queues: pushed to every admin, released when an admin's last socket goes
  const claimsLive = attachClaimsRealtime({ io: realtime.io, claims: app.locals.claims, logger });
  owned.push(() => claimsLive.stop());
  // support's typing indicator, from an admin's socket to the investor's
  const typing = attachSupportTyping({ io: realtime.io, support, logger, deadlineMs: config.grpcDeadlineMs });
  owned.push(() => typing.stop());
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

  const port = await listenOn(server, config.port, options.host);
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
    drain,
    stop() {
      stopping ??= (async () => {
        drain();
        // Stops accepting: a new connection is refused. Only the listening socket (net.Server's close):
        // http.Server's would also destroy the connections accepted whose request is not read yet.
        const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
        await closeListenerQuietly();
        // Requests in flight finish and their connections close after the response (Connection: close); the
        // idle ones are ended. Connections still open 10 s from now are ended (a slow upload must not hold
        // the stop up past the shutdown grace period).
        const force = setTimeout(() => {
          server.closeAllConnections();
          for (const socket of connections.keys()) socket.destroy();
        }, options.forceCloseAfterMs ?? 10_000);
        force.unref();
        let sweeper: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          const tick = () => (sweep() ? resolve() : (sweeper = setTimeout(tick, 20)));
          tick();
        });
        clearTimeout(sweeper);
        await live.stop();
        await realtime.close(); // disconnects the WebSockets
        await closed;
        clearTimeout(force);
        for (const close of owned.reverse()) await close();
      })();
      return stopping;
    },
  };
}
