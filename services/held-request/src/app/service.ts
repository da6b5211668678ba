/**
 * The running parts of a held-request service (investment, withdrawal), started in order and stopped in
 * reverse: 1. its integration events out on meridian.<service>.events (transactional outbox); 2.
 * identity's events into the user directory, exactly once per event id; 3. the service's own loops
 * (investment's maturity scheduler) and the process manager re-driving owed ledger calls; 4. gRPC.
 * Each service's main.ts gives its context and rules and calls this.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import { startService, type ServiceHandle, type ServiceSpec } from '@meridian/platform/service';
import { DIRECTORY_EVENT_TYPES, handleIdentityEvent } from './userDirectory.js';
import type { ProcessManager, ProcessManagerOptions } from './processManager.js';

export interface HeldRequestServiceHandle extends ServiceHandle {
  /** One process-manager sweep over everything owed (tests). */
  redrive(): Promise<number>;
}

/** On the platform's startService: its store, relay, idempotent consumers, gRPC server and ordered stop. */
export async function startHeldRequestService<Ctx extends { store: ServiceStore; logger: Logger }>(
  spec: Omit<ServiceSpec, 'consumerGroup'> & {
    consumerGroup: string;
    /** The service's context on the store startService gives (whose appends record their integration events). */
    context(store: ServiceStore): Ctx;
    startProcessManager(ctx: Ctx, options: ProcessManagerOptions): ProcessManager;
    redriveIntervalMs?: number;
    /** The service's own loops, started before the process manager (stopped after it). */
    startLoops?(ctx: Ctx, onStop: (stop: () => Promise<void> | void) => void): void;
    /**
     * The service's own reaction to one of identity's events, after the directory's (UserDeleted: forget the
     * key); it sees the directory's types only (DIRECTORY_EVENT_TYPES).
     */
    onIdentityEvent?(ctx: Ctx, event: StoredEvent, tx: StoreTx): Promise<void> | void;
    /** Called when stopping everything, after the loops and consumers (the ledger port the service opened). */
    onStopped?(): Promise<void>;
    grpcAddress: string;
    grpcService(ctx: Ctx, options: { logger: Logger }): GrpcServiceRegistration;
    /** The indexes the lists page on (the kind's requestView `indexes`), ensured at start. */
    indexes?: ReadonlyArray<{ collection: string; fields: string[] }>;
  },
): Promise<HeldRequestServiceHandle> {
  return startService(spec, async ({ store, onStop, consume, serveGrpc }) => {
    for (const ix of spec.indexes ?? []) await store.ensureIndex?.(ix.collection, ix.fields);
    const ctx = spec.context(store);
    if (spec.onStopped) onStop(spec.onStopped);
    // identity events -> the user directory (name and email), exactly once per event id
    await consume(
      'identity',
      async (event, tx) => {
        await handleIdentityEvent(event, tx);
        await spec.onIdentityEvent?.(ctx, event, tx);
      },
      DIRECTORY_EVENT_TYPES,
    );
    // the service's own loops, and the process manager (re-drives owed ledger calls)
    spec.startLoops?.(ctx, onStop);
    const manager = spec.startProcessManager(ctx, { intervalMs: spec.redriveIntervalMs });
    onStop(() => manager.stop());
    const grpcAddress = await serveGrpc(spec.grpcAddress, [spec.grpcService(ctx, { logger: spec.logger })]);
    return { grpcAddress, redrive: () => manager.sweep(0) };
  });
}
