/**
 * Composition root of the investment service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/investment/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import {
  type HeldRequestDeps,
  type HeldRequestServiceHandle,
  startHeldRequestService,
} from '@meridian/held-request/app/service';
import { timeOrderedId } from '@meridian/platform/eventSourcing/ids';
import { runServiceProgram } from '@meridian/platform/runtime';
import { createGrpcLedger } from '@meridian/ledger/client';
import { SERVICE, type InvestmentContext } from './app/context.js';
import { investmentView } from './projections/investmentView.js';
import { published } from './app/integrationEvents.js';
import { serveInvestmentMetrics } from './app/metrics.js';
import { startMaturityScheduler } from './app/maturityScheduler.js';
import type { LedgerPort } from './app/ports.js';
import { startProcessManager } from './app/processManager.js';
import { investmentGrpcService } from './adapters/investmentService.grpc.js';
import { investmentEnvSchema, type InvestmentConfig } from './config.js';

export { investmentEnvSchema, parseInvestmentConfig, type InvestmentConfig } from './config.js';

export type InvestmentDeps = HeldRequestDeps<InvestmentConfig, LedgerPort> & {
  /** The maturity scheduler's longest timer (default 60 s). */
  maxTimerMs?: number;
};

export type InvestmentHandle = HeldRequestServiceHandle;

export async function start(deps: InvestmentDeps): Promise<InvestmentHandle> {
  const { config } = deps;
  return startHeldRequestService({
    ...deps,
    service: SERVICE,
    published,
    openLedger: () => createGrpcLedger(config.LEDGER_GRPC_URL, { caller: SERVICE }),
    // time-ordered ids: the documents keyed by them are written at the end of their index
    newId: deps.newId ?? timeOrderedId,
    maxPendingPerUser: config.INVESTMENT_MAX_PENDING,
    context: (base): InvestmentContext => ({ ...base, plans: config.plans }),
    startProcessManager,
    // the durable maturity scheduler (armed from the store)
    startLoops(c, onStop) {
      const scheduler = startMaturityScheduler(c, { maxDelayMs: deps.maxTimerMs });
      onStop(serveInvestmentMetrics(c.store, c.clock));
      c.onScheduleChanged = () => scheduler.poke();
      onStop(() => scheduler.stop());
    },
    grpcAddress: config.INVESTMENT_GRPC_ADDR,
    indexes: investmentView.indexes,
    grpcService: investmentGrpcService,
  });
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: investmentEnvSchema, start });
