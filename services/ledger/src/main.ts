/**
 * Composition root of the ledger service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/ledger/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { timeOrderedId } from '@meridian/platform/eventSourcing/ids';
import { runServiceProgram } from '@meridian/platform/runtime';
import { startService, type ServiceDeps, type ServiceHandle } from '@meridian/platform/service';
import { SERVICE, type LedgerContext } from './app/context.js';
import { IDENTITY_EVENT_TYPES, handleIdentityEvent } from './app/identityEvents.js';
import { serveLedgerMetrics } from './app/metrics.js';
import { published } from './app/integrationEvents.js';
import { LEDGER_INDEXES } from './projections/views.js';
import { ledgerGrpcService } from './adapters/ledgerService.grpc.js';
import { ledgerEnvSchema, type LedgerConfig } from './config.js';

export { ledgerEnvSchema, parseLedgerConfig, type LedgerConfig } from './config.js';
export { SERVICE };

export interface LedgerDeps extends ServiceDeps<LedgerConfig> {
  newId?: () => string;
}

/** gRPC address, outbox flush (meridian.ledger.events), stop. */
export type LedgerHandle = ServiceHandle;

export function start(deps: LedgerDeps): Promise<LedgerHandle> {
  const { config, logger } = deps;
  return startService(
    { ...deps, service: SERVICE, published, indexes: LEDGER_INDEXES },
    async ({ store, consume, serveGrpc, onStop, clock, personalData }) => {
      const ctx: LedgerContext = {
        store,
        clock,
        // time-ordered ids: the documents keyed by them are written at the end of their index
        newId: deps.newId ?? timeOrderedId,
        referralMinimumCents: config.LEDGER_REFERRAL_MIN_DEPOSIT_CENTS,
        maxPendingDeposits: config.LEDGER_MAX_PENDING_DEPOSITS,
        personalData,
      };
      onStop(serveLedgerMetrics(store));
      // identity events -> user directory and referrer links, exactly once per event id
      await consume(
        'identity',
        (event, tx) => handleIdentityEvent(event, tx, clock(), ctx.personalData),
        IDENTITY_EVENT_TYPES,
      );
      const grpcAddress = await serveGrpc(config.LEDGER_GRPC_ADDR, [ledgerGrpcService(ctx, { logger })]);
      return { grpcAddress };
    },
  );
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: ledgerEnvSchema, start });
