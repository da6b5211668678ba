/**
 * Composition root of the ledger service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/ledger/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { randomUUID } from 'node:crypto';
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
import { CONSUMER_GROUP, SERVICE, type LedgerContext } from './app/context.js';
import { handleIdentityEvent } from './app/identityEvents.js';
import { toIntegrationEvent } from './app/integrationEvents.js';
import { ledgerRuntimeCodecs } from './adapters/eventCodecs.js';
import { ledgerGrpcService } from './adapters/ledgerService.grpc.js';
import { ledgerEnvSchema, type LedgerConfig } from './config.js';

export { ledgerEnvSchema, parseLedgerConfig, type LedgerConfig } from './config.js';
export { ledgerEventCodecs, ledgerRuntimeCodecs } from './adapters/eventCodecs.js';
export { SERVICE };

export interface LedgerDeps {
  config: LedgerConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  newId?: () => string;
}

export interface LedgerHandle {
  grpcAddress: string;
  /** Resolves when everything appended so far is published on meridian.ledger.events. */
  flushOutbox(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function start(deps: LedgerDeps): Promise<LedgerHandle> {
  const { config, store, bus, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const ctx: LedgerContext = { store, clock, newId: deps.newId ?? randomUUID };
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        logger.error({ err }, 'error while stopping ledger');
      }
    }
    stops.length = 0;
  };

  try {
    // 1. integration events out on meridian.ledger.events (transactional outbox)
    const relay = startOutboxRelay({
      store,
      bus,
      topic: topicOf(SERVICE),
      map: (event) => toIntegrationEvent(event, store),
      onError: (err, attempt) => logger.warn({ err, attempt }, 'ledger outbox relay failed; retrying'),
    });
    stops.push(() => relay.stop());

    // 2. identity events -> user directory and referrer links, exactly once per event id
    const identity = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('identity'),
      group: CONSUMER_GROUP,
      handle: (event, tx) => handleIdentityEvent(event, tx, clock()),
    });
    stops.push(() => identity.stop());

    // 3. gRPC
    const grpc = await startGrpcServer({
      address: config.LEDGER_GRPC_ADDR,
      logger,
      services: [ledgerGrpcService(ctx, { logger })],
    });
    stops.push(() => grpc.stop());

    return { grpcAddress: grpc.address, flushOutbox: (timeoutMs) => relay.flush(timeoutMs), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(ledgerEnvSchema);
  const runtime = await createServiceRuntime(SERVICE, process.env, { codecs: ledgerRuntimeCodecs });
  const handle = await start({
    config,
    store: runtime.store,
    bus: runtime.bus,
    kv: runtime.kv,
    logger: runtime.logger,
  });
  onShutdown(() => runtime.close(), { logger: runtime.logger });
  onShutdown(() => handle.stop(), { logger: runtime.logger });
  runtime.logger.info({ grpc: handle.grpcAddress }, 'ledger service started');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`ledger failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
