/**
 * Composition root of the withdrawal service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/withdrawal/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import { startOutboxRelay } from '@meridian/platform/app/outboxRelay';
import { createStopList } from '@meridian/platform/app/stopList';
import { loadConfigOrExit } from '@meridian/platform/config';
import { startGrpcServer } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createServiceRuntime, onShutdown } from '@meridian/platform/runtime';
import { CONSUMER_GROUP, SERVICE, type WithdrawalContext } from './app/context.js';
import { handleIdentityEvent } from './app/identityEvents.js';
import { toIntegrationEvent } from './app/integrationEvents.js';
import type { LedgerPort } from './app/ports.js';
import { startProcessManager } from './app/processManager.js';
import { withdrawalRuntimeCodecs } from './adapters/eventCodecs.js';
import { withdrawalGrpcService } from './adapters/withdrawalService.grpc.js';
import { createGrpcLedger } from '@meridian/ledger/client';
import { withdrawalEnvSchema, type WithdrawalConfig } from './config.js';

export { withdrawalEnvSchema, parseWithdrawalConfig, type WithdrawalConfig } from './config.js';
export { withdrawalEventCodecs, withdrawalRuntimeCodecs } from './adapters/eventCodecs.js';
export type { LedgerPort } from './app/ports.js';
export { SERVICE };
export const WITHDRAWAL_TOPIC = topicOf(SERVICE);

export interface WithdrawalDeps {
  config: WithdrawalConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  newId?: () => string;
  /** Default: the ledger over gRPC at config.LEDGER_GRPC_URL. */
  ledger?: LedgerPort;
  /** Process manager sweep interval (default 30 s). */
  redriveIntervalMs?: number;
}

export interface WithdrawalHandle {
  grpcAddress: string;
  /** Resolves when everything appended so far is published on meridian.withdrawal.events. */
  flushOutbox(timeoutMs?: number): Promise<void>;
  /** One process-manager sweep over everything owed (tests). */
  redrive(): Promise<number>;
  stop(): Promise<void>;
}

export async function start(deps: WithdrawalDeps): Promise<WithdrawalHandle> {
  const { config, store, bus, logger } = deps;
  const ownLedger = !deps.ledger;
  const ledger = deps.ledger ?? createGrpcLedger(config.LEDGER_GRPC_URL);
  const ctx: WithdrawalContext = {
    store,
    ledger,
    clock: deps.clock ?? (() => new Date()),
    newId: deps.newId ?? randomUUID,
    logger,
  };
  const stops = createStopList(logger, 'withdrawal');
  const stopAll = () => stops.stopAll();
  if (ownLedger) stops.push(async () => ledger.close?.());

  try {
    // 1. integration events out on meridian.withdrawal.events (transactional outbox)
    const relay = startOutboxRelay({
      store,
      bus,
      topic: topicOf(SERVICE),
      map: (event) => toIntegrationEvent(event, store),
      onError: (err, attempt) => logger.warn({ err, attempt }, 'withdrawal outbox relay failed; retrying'),
    });
    stops.push(() => relay.stop());

    // 2. identity events -> the user directory (name and email), exactly once per event id
    const identity = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('identity'),
      group: CONSUMER_GROUP,
      handle: handleIdentityEvent,
    });
    stops.push(() => identity.stop());

    // 3. the process manager (re-drives owed ledger calls)
    const manager = startProcessManager(ctx, { intervalMs: deps.redriveIntervalMs });
    stops.push(() => manager.stop());

    // 4. gRPC
    const grpc = await startGrpcServer({
      address: config.WITHDRAWAL_GRPC_ADDR,
      logger,
      services: [withdrawalGrpcService(ctx, { logger })],
    });
    stops.push(() => grpc.stop());

    let stopping: Promise<void> | undefined;
    return {
      grpcAddress: grpc.address,
      flushOutbox: (timeoutMs) => relay.flush(timeoutMs),
      redrive: () => manager.sweep(0),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(withdrawalEnvSchema);
  const runtime = await createServiceRuntime(SERVICE, process.env, { codecs: withdrawalRuntimeCodecs });
  const handle = await start({
    config,
    store: runtime.store,
    bus: runtime.bus,
    kv: runtime.kv,
    logger: runtime.logger,
  });
  onShutdown(() => runtime.close(), { logger: runtime.logger });
  onShutdown(() => handle.stop(), { logger: runtime.logger });
  runtime.logger.info(
    { grpc: handle.grpcAddress, ledger: config.LEDGER_GRPC_URL },
    'withdrawal service started',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`withdrawal failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
