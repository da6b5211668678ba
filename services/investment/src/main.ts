/**
 * Composition root of the investment service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/investment/src/main.ts`) it builds its adapters from env with createServiceRuntime.
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
import { CONSUMER_GROUP, SERVICE, type InvestmentContext } from './app/context.js';
import { toIntegrationEvent } from './app/integrationEvents.js';
import { startMaturityScheduler } from './app/maturityScheduler.js';
import type { LedgerPort } from './app/ports.js';
import { startProcessManager } from './app/processManager.js';
import { investmentRuntimeCodecs } from './adapters/eventCodecs.js';
import { investmentGrpcService } from './adapters/investmentService.grpc.js';
import { createGrpcLedger } from '@meridian/ledger/client';
import { investmentEnvSchema, type InvestmentConfig } from './config.js';

export { investmentEnvSchema, parseInvestmentConfig, type InvestmentConfig } from './config.js';
export { investmentEventCodecs, investmentRuntimeCodecs } from './adapters/eventCodecs.js';
export type { LedgerPort } from './app/ports.js';
export { SERVICE };
export const INVESTMENT_TOPIC = topicOf(SERVICE);

export interface InvestmentDeps {
  config: InvestmentConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  newId?: () => string;
  /** Default: the ledger over gRPC at config.LEDGER_GRPC_URL. */
  ledger?: LedgerPort;
  /** Process manager sweep interval (default 30 s); the scheduler's longest timer (default 60 s). */
  redriveIntervalMs?: number;
  maxTimerMs?: number;
}

/** gRPC address, outbox flush and a process-manager sweep (tests), stop. */
export type InvestmentHandle = HeldRequestServiceHandle;

export async function start(deps: InvestmentDeps): Promise<InvestmentHandle> {
  const { config, store, bus, logger } = deps;
  const ownLedger = !deps.ledger;
  const ledger = deps.ledger ?? createGrpcLedger(config.LEDGER_GRPC_URL);
  const ctx: InvestmentContext = {
    store,
    ledger,
    plans: config.plans,
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
    // the durable maturity scheduler (armed from the store)
    startLoops(c, stops) {
      const scheduler = startMaturityScheduler(c, { maxDelayMs: deps.maxTimerMs });
      c.onScheduleChanged = () => scheduler.poke();
      stops.push(() => scheduler.stop());
    },
    onStopped: ownLedger ? async () => ledger.close?.() : undefined,
    grpcAddress: config.INVESTMENT_GRPC_ADDR,
    grpcService: investmentGrpcService,
  });
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(investmentEnvSchema);
  const runtime = await createServiceRuntime(SERVICE, process.env, { codecs: investmentRuntimeCodecs });
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
    { grpc: handle.grpcAddress, ledger: config.LEDGER_GRPC_URL, plans: config.plans.map((p) => p.name) },
    'investment service started',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`investment failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
