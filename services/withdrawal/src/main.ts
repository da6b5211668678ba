/**
 * Composition root of the withdrawal service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/withdrawal/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { randomUUID } from 'node:crypto';
import { type HeldRequestServiceHandle, startHeldRequestService } from '@meridian/held-request/app/service';
import { personalDataOf } from '@meridian/platform/personalData';
import { runServiceProgram } from '@meridian/platform/runtime';
import { type ServiceDeps } from '@meridian/platform/service';
import { createGrpcLedger } from '@meridian/ledger/client';
import { CONSUMER_GROUP, SERVICE, type WithdrawalContext } from './app/context.js';
import { withdrawalView } from './projections/withdrawalView.js';
import { forgetDeletedUser } from './app/identityEvents.js';
import { serviceMappingModule } from '@meridian/platform/app/relayThread';
import { toIntegrationEvent } from './app/integrationEvents.js';
import type { LedgerPort } from './app/ports.js';
import { startProcessManager } from './app/processManager.js';
import { withdrawalGrpcService } from './adapters/withdrawalService.grpc.js';
import { withdrawalEnvSchema, type WithdrawalConfig } from './config.js';

export { withdrawalEnvSchema, parseWithdrawalConfig, type WithdrawalConfig } from './config.js';

export type WithdrawalDeps = ServiceDeps<WithdrawalConfig> & {
  newId?: () => string;
  /** Default: the ledger over gRPC at config.LEDGER_GRPC_URL. */
  ledger?: LedgerPort;
  /** Process manager sweep interval (default 30 s). */
  redriveIntervalMs?: number;
};

/** gRPC address, outbox flush and a process-manager sweep (tests), stop. */
export type WithdrawalHandle = HeldRequestServiceHandle;

export async function start(deps: WithdrawalDeps): Promise<WithdrawalHandle> {
  const { config, bus, logger } = deps;
  const ledger = deps.ledger ?? createGrpcLedger(config.LEDGER_GRPC_URL, { caller: 'withdrawal' });
  return startHeldRequestService({
    service: SERVICE,
    consumerGroup: CONSUMER_GROUP,
    store: deps.store,
    bus,
    logger,
    // every append records its integration events (platform app/integrationEvents.ts)
    integrationEvents: toIntegrationEvent,
    // the same mapping by its module: what a relay thread imports (platform app/relayThread.ts)
    integrationEventsModule: serviceMappingModule(import.meta.url),
    relayThread: deps.relayThread,
    context: (store): WithdrawalContext => ({
      store,
      ledger,
      clock: deps.clock ?? (() => new Date()),
      newId: deps.newId ?? randomUUID,
      logger,
      personalData: personalDataOf(deps),
      maxPendingPerUser: config.WITHDRAWAL_MAX_PENDING,
    }),
    onIdentityEvent: (ctx, event) => forgetDeletedUser(ctx.personalData, event),
    startProcessManager,
    redriveIntervalMs: deps.redriveIntervalMs,
    onStopped: deps.ledger ? undefined : async () => ledger.close?.(),
    grpcAddress: config.WITHDRAWAL_GRPC_ADDR,
    indexes: withdrawalView.indexes,
    grpcService: withdrawalGrpcService,
  });
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: withdrawalEnvSchema, start });
