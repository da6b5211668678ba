import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { storeSynchronous } from '@meridian/platform/adapters/sqliteFile';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import { createLogger, type Logger } from '@meridian/platform/logger';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { DocumentStore } from '@meridian/kyc';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { createSqlitePersonalDataKeys, personalDataKeysPath } from '@meridian/identity';
import { standaloneEnvSchema } from './config.js';
import { parseServiceConfigs, startServices, type MoneyServices, type ServicesOptions } from './services.js';
import { generateSecrets, keptSecrets } from './secrets.js';
import { ephemeralMeshCertificates, keptMeshCertificates } from './meshCertificates.js';
import { registerMeshIdentities } from '@meridian/platform/grpc/mesh';
import {
  closeMoneyClients,
  createIdentityClient,
  createKycClient,
  createSupportClient,
  createMoneyClients,
  createNotificationClient,
  parseGatewayConfig,
  startGateway,
  type GatewayConfig,
  type RunningGateway,
} from '@meridian/gateway';

export interface StandaloneOptions extends ServicesOptions {
  /** Environment to read (default process.env). PORT, HOST, DATA_DIR, REDIS_URL, ADMIN_EMAIL, ... as in docs/CONVENTIONS.md. */
  env?: Record<string, string | undefined>;
  /** ':memory:' keeps every SQLite database in memory (tests); default env.DATA_DIR or ./data. */
  dataDir?: string;
  /** Prefix of every Redis key when REDIS_URL is set (default 'meridian:'); tests pass a random one. */
  redisPrefix?: string;
  /** Overrides of the gateway's config (tests: small rate limits). */
  gateway?: Partial<GatewayConfig>;
  logger?: Logger;
  clock?: () => Date;
}

export interface Standalone {
  url: string;
  port: number;
  gateway: RunningGateway;
  identityAddress: string;
  notificationAddress: string;
  kycAddress: string;
  /** Base URL of the kyc service's internal document endpoint (loopback). */
  kycHttpUrl: string;
  /** Where the kyc service keeps documents (tests check erasure through it). */
  kycDocuments: DocumentStore;
  /** The ledger, investment and withdrawal services (addresses, flushOutbox). */
  money: MoneyServices;
  /** The support service's gRPC address (loopback). */
  supportAddress: string;
  /** Seals and opens personal data with the per-user keys of identity's vault (shared by every service here). */
  personalData: PersonalData;
  /** The first admin; `password` only when this start generated it (print it once). */
  admin: { email: string; password?: string };
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Every service and the gateway in ONE process (docs/architecture.md §6): one SQLite file per service
 * and one shared in-process bus under DATA_DIR, a KeyValueStore (Redis when REDIS_URL is set, else
 * memory). The services serve gRPC on 127.0.0.1 loopback (services.ts: investment and withdrawal reach the
 * ledger through it); the gateway's clients call their handlers in this process directly (in-process transport).
 */
export async function startStandalone(options: StandaloneOptions = {}): Promise<Standalone> {
  const env = { ...(options.env ?? process.env) };
  // Links in emails point at this process unless APP_URL says otherwise.
  if (!env.APP_URL && env.PORT && env.PORT !== '0') env.APP_URL = `http://localhost:${env.PORT}`;
  const dataDir = options.dataDir ?? env.DATA_DIR ?? './data';
  const inMemory = dataDir === ':memory:';
  // the data folder is its owner's alone (700); every file the adapters create in it is 600
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
  }
  // Secrets and the first admin's password: the env's, else kept in DATA_DIR/secrets.json (generated at
  // the first start), never fixed defaults; in memory, fresh for this run.
  const { generatedPassword, ...secrets } = inMemory
    ? { ...generateSecrets(), generatedPassword: undefined }
    : keptSecrets(join(dataDir, 'secrets.json'), env);
  for (const [name, value] of Object.entries(secrets)) env[name] ||= value;
  const file = (name: string) => (inMemory ? ':memory:' : join(dataDir, name));
  const logger = options.logger ?? createLogger('standalone', { env });
  const loggerFor = (service: string): Logger =>
    options.logger ? options.logger.child({ component: service }) : createLogger(service, { env });
  const stops: Array<{ name: string; fn: () => Promise<void> | void }> = [];
  const onStop = (name: string, fn: () => Promise<void> | void) => stops.push({ name, fn });

  const stopAll = async () => {
    for (const { name, fn } of [...stops].reverse()) {
      try {
        await fn();
      } catch (err) {
        logger.error({ err, step: name }, 'error while stopping');
      }
    }
  };

  try {
    // mutual TLS between the services (and their callers) even on loopback: the platform CA and a
    // certificate per service kept in DATA_DIR/mesh (generated at the first start), fresh in memory
    onStop(
      'mesh identities',
      registerMeshIdentities(
        inMemory ? ephemeralMeshCertificates() : keptMeshCertificates(join(dataDir, 'mesh')),
      ),
    );
    // KYC documents are files under DATA_DIR/kyc; with ':memory:' a temporary directory, removed on stop.
    let kycDataDir = dataDir;
    if (inMemory) {
      const tmp = mkdtempSync(join(tmpdir(), 'meridian-kyc-'));
      onStop('kyc temporary files', () => rm(tmp, { recursive: true, force: true }));
      kycDataDir = tmp;
    }
    // Services listen on loopback only, on ports the OS picks unless configured.
    const configs = parseServiceConfigs(env, dataDir, kycDataDir);
    const gatewayBase = parseGatewayConfig(env);

    const redisPrefix = options.redisPrefix ?? 'meridian:';
    const kvFor = (service: string): KeyValueStore => {
      const kv = env.REDIS_URL
        ? createRedisKeyValueStore({
            url: env.REDIS_URL,
            prefix: `${redisPrefix}${service}:`,
            onError: (err) =>
              loggerFor(service).warn({ err: err.message }, 'redis: connection error; reconnecting'),
          })
        : createMemoryKeyValueStore({ prefix: `${service}:` });
      onStop(`${service} kv`, () => kv.close());
      return kv;
    };

    const bus = createInProcEventBus({
      path: file('bus.sqlite'),
      onError: (err, ctx) =>
        logger.warn(
          { err, topic: ctx.topic, group: ctx.group, attempt: ctx.attempt },
          'event handler failed; retrying',
        ),
    });
    onStop('bus', () => bus.close());

    const storeFor = (service: string): ServiceStore => {
      const store = createSqliteServiceStore(file(`${service}.sqlite`), {
        synchronous: storeSynchronous(service),
      });
      onStop(`${service} store`, () => store.close());
      return store;
    };

    // identity's key vault (DATA_DIR/identity-keys.sqlite, never in a backup), one for every service here
    const vault = inMemory
      ? new MemoryPersonalDataKeys()
      : createSqlitePersonalDataKeys(personalDataKeysPath(dataDir));
    if (!inMemory) onStop('personal data keys', () => (vault as { close(): void }).close());
    const personalData = new PersonalData(vault);

    const { identity, notification, kyc, money, support } = await startServices({
      configs,
      storeFor,
      kvFor,
      bus,
      loggerFor,
      personalData,
      clock: options.clock,
      onStop,
      identity: options.identity,
      kyc: options.kyc,
      money: options.money,
    });

    // the gateway's clients call the services' handlers in this process directly (no HTTP/2 over loopback;
    // the same proto encoding, statuses, deadlines and traces: platform grpc/inProcess.ts)
    const inProcess = { inProcess: true, caller: 'gateway' };
    const identityClient = createIdentityClient(identity.grpcAddress, inProcess);
    const notificationClient = createNotificationClient(notification.grpcAddress, inProcess);
    const kycClient = createKycClient(kyc.grpcAddress, inProcess);
    const supportClient = createSupportClient(support.grpcAddress, inProcess);
    const moneyClients = createMoneyClients(
      {
        ledgerGrpcUrl: money.ledger.grpcAddress,
        investmentGrpcUrl: money.investment.grpcAddress,
        withdrawalGrpcUrl: money.withdrawal.grpcAddress,
      },
      inProcess,
    );
    onStop('grpc clients', () => {
      identityClient.close();
      notificationClient.close();
      kycClient.close();
      supportClient.close();
      closeMoneyClients(moneyClients);
    });

    const gatewayConfig: GatewayConfig = {
      ...gatewayBase,
      identityGrpcUrl: identity.grpcAddress,
      notificationGrpcUrl: notification.grpcAddress,
      kycGrpcUrl: kyc.grpcAddress,
      kycHttpUrl: kyc.httpUrl,
      // the same secret the kyc service was started with (its dev default when unset outside production)
      kycInternalToken: configs.kyc.KYC_INTERNAL_TOKEN,
      ledgerGrpcUrl: money.ledger.grpcAddress,
      investmentGrpcUrl: money.investment.grpcAddress,
      withdrawalGrpcUrl: money.withdrawal.grpcAddress,
      supportGrpcUrl: support.grpcAddress,
      // one gateway in this process: one live-push group on the shared bus
      liveGroup: 'gateway-live',
      // the live log and the socket.io channels live under this run's Redis prefix (tests run several
      // compositions on one Redis)
      liveKeyPrefix: `${redisPrefix}gateway:live:`,
      socketChannel: `${redisPrefix}socket.io`,
      ...options.gateway,
    };
    const gateway = await startGateway({
      config: gatewayConfig,
      // loopback unless HOST says otherwise (HOST=0.0.0.0 to reach it from another machine)
      host: standaloneEnvSchema.shape.HOST.parse(env.HOST),
      identity: identityClient,
      notification: notificationClient,
      kyc: kycClient,
      support: supportClient,
      money: moneyClients,
      bus,
      kv: kvFor('gateway'),
      logger: loggerFor('gateway'),
      personalData,
    });
    onStop('gateway', () => gateway.stop());

    const { ADMIN_EMAIL, ADMIN_PASSWORD } = configs.identity;
    let stopping: Promise<void> | undefined;
    return {
      url: gateway.url,
      port: gateway.port,
      gateway,
      identityAddress: identity.grpcAddress,
      notificationAddress: notification.grpcAddress,
      kycAddress: kyc.grpcAddress,
      kycHttpUrl: kyc.httpUrl,
      kycDocuments: kyc.documents,
      money,
      supportAddress: support.grpcAddress,
      personalData,
      admin: {
        email: ADMIN_EMAIL,
        password: generatedPassword === ADMIN_PASSWORD ? ADMIN_PASSWORD : undefined,
      },
      dataDir,
      stop() {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
