/**
 * Composition root of the kyc service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/kyc/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import { startOutboxRelay } from '@meridian/platform/app/outboxRelay';
import { loadConfigOrExit } from '@meridian/platform/config';
import { startGrpcServer } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createServiceRuntime, onShutdown } from '@meridian/platform/runtime';
import type { EventCodecs } from '@meridian/platform/adapters/eventBus.kafka';
import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import { CONSUMER_GROUP } from './app/collections.js';
import { handleIdentityEvent } from './app/handleIdentityEvent.js';
import { toIntegrationEvent, type KycContext } from './app/kycCases.js';
import type { DocumentStore } from './app/ports.js';
import { createFsDocumentStore } from './adapters/documentStore.fs.js';
import { kycGrpcService } from './adapters/kycService.grpc.js';
import { startKycHttpServer } from './adapters/kycHttp.node.js';
import { kycEnvSchema, type KycConfig } from './config.js';

export { kycEnvSchema, parseKycConfig, type KycConfig } from './config.js';
export type { DocumentStore } from './app/ports.js';

export const SERVICE = 'kyc';

/** Protobuf codecs of the events this service consumes and produces (used by the Kafka bus). */
export const kycEventCodecs: EventCodecs = {
  UserRegistered: identityEvents.UserRegistered,
  ProfileUpdated: identityEvents.ProfileUpdated,
  UserDeleted: identityEvents.UserDeleted,
  KycSubmitted,
  KycApproved,
  KycRejected,
};

export interface KycDeps {
  config: KycConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  /** Where documents live; default: GridFS when MONGO_URL is set, else files under DATA_DIR/kyc. */
  documents?: DocumentStore;
  /** Test hook for the 10 MB limit. */
  maxFileBytes?: number;
}

export interface KycHandle {
  grpcAddress: string;
  /** Base URL of the document endpoint (POST /upload, GET /documents/:userId/:side) the gateway proxies to. */
  httpUrl: string;
  documents: DocumentStore;
  stop(): Promise<void>;
}

/** The document store chosen by env: GridFS when MONGO_URL is set, else files under DATA_DIR/kyc. */
export async function createDocumentStore(
  config: Pick<KycConfig, 'MONGO_URL' | 'DATA_DIR'>,
): Promise<DocumentStore> {
  if (config.MONGO_URL) {
    const { createGridFsDocumentStore } = await import('./adapters/documentStore.gridfs.js');
    return createGridFsDocumentStore({ url: config.MONGO_URL, database: 'meridian_kyc' });
  }
  return createFsDocumentStore({ root: join(config.DATA_DIR, 'kyc') });
}

export async function start(deps: KycDeps): Promise<KycHandle> {
  const { config, store, bus, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        logger.error({ err }, 'error while stopping kyc');
      }
    }
    stops.length = 0;
  };

  try {
    const documents = deps.documents ?? (await createDocumentStore(config));
    if (!deps.documents) stops.push(() => documents.close());
    const ctx: KycContext = { store, clock, newId: randomUUID };

    // 1. KycSubmitted / KycApproved / KycRejected out on meridian.kyc.events (KycCaseErased stays private)
    const relay = startOutboxRelay({
      store,
      bus,
      topic: topicOf(SERVICE),
      map: toIntegrationEvent,
      onError: (err, attempt) => logger.warn({ err, attempt }, 'kyc outbox relay failed; retrying'),
    });
    stops.push(() => relay.stop());

    // 2. identity events: names for the review list, and erasure when a user is deleted
    const subscription = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('identity'),
      group: CONSUMER_GROUP,
      handle: (event, tx) => handleIdentityEvent(event, tx, { documents, now: clock }),
    });
    stops.push(() => subscription.stop());

    // 3. gRPC
    const grpc = await startGrpcServer({
      address: config.KYC_GRPC_ADDR,
      logger,
      services: [kycGrpcService({ ctx, logger })],
    });
    stops.push(() => grpc.stop());

    // 4. the document endpoint behind the gateway
    const http = await startKycHttpServer({
      address: config.KYC_HTTP_ADDR,
      ctx,
      documents,
      internalToken: config.KYC_INTERNAL_TOKEN,
      logger,
      maxFileBytes: deps.maxFileBytes,
    });
    stops.push(() => http.stop());

    return { grpcAddress: grpc.address, httpUrl: http.url, documents, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(kycEnvSchema);
  const runtime = await createServiceRuntime(SERVICE, process.env, { codecs: kycEventCodecs });
  if (config.usedDevDefaults.length > 0) {
    runtime.logger.warn(
      { variables: config.usedDevDefaults },
      'using development defaults (never in production)',
    );
  }
  const handle = await start({
    config,
    store: runtime.store,
    bus: runtime.bus,
    kv: runtime.kv,
    logger: runtime.logger,
  });
  onShutdown(() => runtime.close(), { logger: runtime.logger });
  onShutdown(() => handle.stop(), { logger: runtime.logger });
  runtime.logger.info({ grpc: handle.grpcAddress, http: handle.httpUrl }, 'kyc service started');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`kyc failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
