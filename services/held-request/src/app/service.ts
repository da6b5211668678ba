/**
 * The running parts of a held-request service (investment, withdrawal), started in order and stopped in
 * reverse: 1. its integration events out on meridian.<service>.events (transactional outbox); 2.
 * identity's events into the user directory, exactly once per event id (UserDeleted also drops the user's
 * personal-data key from this process's cache: identity destroyed it); 3. the service's own loops
 * (investment's maturity scheduler) and the process manager re-driving owed ledger calls; 4. gRPC.
 * Each service's main.ts gives its ledger, rules and own context and calls this.
 */
import { randomUUID } from 'node:crypto';
import type { GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import {
  startService,
  type ServiceDeps,
  type ServiceHandle,
  type ServiceSpec,
} from '@meridian/platform/service';
import type { HeldRequestContext } from './heldRequests.js';
import type { HoldLedger } from './holdLedger.js';
import { DIRECTORY_EVENT_TYPES, handleIdentityEvent } from './userDirectory.js';
import type { ProcessManager, ProcessManagerOptions } from './processManager.js';

/** What a held-request service's start takes (its own deps extend this). */
export type HeldRequestDeps<Config, Port> = ServiceDeps<Config> & {
  /** Default: the ledger over gRPC at config.LEDGER_GRPC_URL. */
  ledger?: Port;
  newId?: () => string;
  /** Process manager sweep interval (default 30 s). */
  redriveIntervalMs?: number;
};

/** gRPC address, outbox flush and a process-manager sweep (tests), stop. */
export interface HeldRequestServiceHandle extends ServiceHandle {
  /** One process-manager sweep over everything owed (tests). */
  redrive(): Promise<number>;
}

/** On the platform's startService: its store, relay, idempotent consumers, gRPC server and ordered stop. */
export async function startHeldRequestService<Port extends HoldLedger, Ctx extends HeldRequestContext<Port>>(
  spec: ServiceSpec & {
    /** The ledger port given (tests); absent: `openLedger()`'s, closed when stopping everything. */
    ledger?: Port;
    openLedger(): Port & { close?(): unknown };
    /** Default: randomUUID. */
    newId?: () => string;
    maxPendingPerUser: number;
    /** The kind's context: the held-request one, and what the kind adds to it. */
    context(base: HeldRequestContext<Port>): Ctx;
    startProcessManager(ctx: Ctx, options: ProcessManagerOptions): ProcessManager;
    redriveIntervalMs?: number;
    /** The service's own loops, started before the process manager (stopped after it). */
    startLoops?(ctx: Ctx, onStop: (stop: () => Promise<void> | void) => void): void;
    grpcAddress: string;
    grpcService(ctx: Ctx, options: { logger: Logger }): GrpcServiceRegistration;
  },
): Promise<HeldRequestServiceHandle> {
  return startService(
    spec,
    async ({ store, onStop, givenOrOpened, consume, serveGrpc, clock, personalData }) => {
      const ledger = await givenOrOpened(spec.ledger, () => spec.openLedger());
      const { logger, maxPendingPerUser } = spec;
      const base = {
        store,
        ledger,
        logger,
        clock,
        newId: spec.newId ?? randomUUID,
        personalData,
        maxPendingPerUser,
      };
      const ctx = spec.context(base);
      // identity events -> the user directory (name and email), exactly once per event id
      await consume(
        'identity',
        async (event, tx) => {
          await handleIdentityEvent(event, tx);
          personalData.forgetIfDeleted(event);
        },
        DIRECTORY_EVENT_TYPES,
      );
      // the service's own loops, and the process manager (re-drives owed ledger calls)
      spec.startLoops?.(ctx, onStop);
      const manager = spec.startProcessManager(ctx, { intervalMs: spec.redriveIntervalMs });
      onStop(() => manager.stop());
      const grpcAddress = await serveGrpc(spec.grpcAddress, [spec.grpcService(ctx, { logger })]);
      return { grpcAddress, redrive: () => manager.sweep(0) };
    },
  );
}
