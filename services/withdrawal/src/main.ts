/**
 * Composition root of the withdrawal service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/withdrawal/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import {
  type HeldRequestServiceHandle,
  startHeldRequestService,
} from '@meridian/platform/app/heldRequest/service';
import { loadConfigOrExit } from '@meridian/platform/config';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createServiceRuntime, onShutdown } from '@meridian/platform/runtime';
import { CONSUMER_GROUP, SERVICE, type WithdrawalContext } from './app/context.js';
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

/** gRPC address, outbox flush and a process-manager sweep (tests), stop. */
export type WithdrawalHandle = HeldRequestServiceHandle;

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
  return startHeldRequestService({
    service: SERVICE,
    consumerGroup: CONSUMER_GROUP,
    bus,
    ctx,
    toIntegrationEvent: (event) => toIntegrationEvent(event, store),
    startProcessManager,
    redriveIntervalMs: deps.redriveIntervalMs,
    onStopped: ownLedger ? async () => ledger.close?.() : undefined,
    grpcAddress: config.WITHDRAWAL_GRPC_ADDR,
    grpcService: withdrawalGrpcService,
  });
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
