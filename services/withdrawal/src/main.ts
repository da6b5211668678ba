/**
 * Composition root of the withdrawal service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/withdrawal/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import {
  type HeldRequestDeps,
  type HeldRequestServiceHandle,
  startHeldRequestService,
} from '@meridian/held-request/app/service';
import { runServiceProgram } from '@meridian/platform/runtime';
import { createGrpcLedger } from '@meridian/ledger/client';
import { SERVICE } from './app/context.js';
import { withdrawalView } from './projections/withdrawalView.js';
import { published } from './app/integrationEvents.js';
import type { LedgerPort } from './app/ports.js';
import { startProcessManager } from './app/processManager.js';
import { withdrawalGrpcService } from './adapters/withdrawalService.grpc.js';
import { withdrawalEnvSchema, type WithdrawalConfig } from './config.js';

export { withdrawalEnvSchema, parseWithdrawalConfig, type WithdrawalConfig } from './config.js';

export type WithdrawalDeps = HeldRequestDeps<WithdrawalConfig, LedgerPort>;

export type WithdrawalHandle = HeldRequestServiceHandle;

export async function start(deps: WithdrawalDeps): Promise<WithdrawalHandle> {
  const { config } = deps;
  return startHeldRequestService({
    ...deps,
    service: SERVICE,
    published,
    openLedger: () => createGrpcLedger(config.LEDGER_GRPC_URL, { caller: SERVICE }),
    maxPendingPerUser: config.WITHDRAWAL_MAX_PENDING,
    context: (base) => base,
    startProcessManager,
    grpcAddress: config.WITHDRAWAL_GRPC_ADDR,
    indexes: withdrawalView.indexes,
    grpcService: withdrawalGrpcService,
  });
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: withdrawalEnvSchema, start });
