/**
 * The running parts of a held-request service (investment, withdrawal), started in order and stopped in
 * reverse: 1. its integration events out on meridian.<service>.events (transactional outbox); 2.
 * identity's events into the user directory, exactly once per event id; 3. the service's own loops
 * (investment's maturity scheduler) and the process manager re-driving owed ledger calls; 4. gRPC.
 * Each service's main.ts builds its context and calls this.
 */
import type { OutboxRelayOptions } from '../outboxRelay.js';
import { subscribeIdempotent } from '../consumer.js';
import { startOutboxRelay } from '../outboxRelay.js';
import { createStopList, type StopList } from '../stopList.js';
import { startGrpcServer, type GrpcServiceRegistration } from '../../grpc/index.js';
import { topicOf } from '../../ports/eventBus.js';
import type { EventBus } from '../../ports/eventBus.js';
import type { Logger } from '../../logger.js';
import type { ServiceStore } from '../../ports/serviceStore.js';
import { handleIdentityEvent } from './userDirectory.js';
import type { ProcessManager, ProcessManagerOptions } from './processManager.js';

export interface HeldRequestServiceHandle {
  grpcAddress: string;
  /** Resolves when everything appended so far is published on the service's topic. */
  flushOutbox(timeoutMs?: number): Promise<void>;
  /** One process-manager sweep over everything owed (tests). */
  redrive(): Promise<number>;
  stop(): Promise<void>;
}

export async function startHeldRequestService<Ctx extends { store: ServiceStore; logger: Logger }>(spec: {
  service: string;
  consumerGroup: string;
  bus: EventBus;
  ctx: Ctx;
  /** The integration event an appended event publishes (null: none). */
  toIntegrationEvent: NonNullable<OutboxRelayOptions['map']>;
  startProcessManager(ctx: Ctx, options: ProcessManagerOptions): ProcessManager;
  redriveIntervalMs?: number;
  /** The service's own loops, started before the process manager (stopped after it). */
  startLoops?(ctx: Ctx, stops: StopList): void;
  /** Called first when stopping everything (the ledger port the service opened). */
  onStopped?(): Promise<void>;
  grpcAddress: string;
  grpcService(ctx: Ctx, options: { logger: Logger }): GrpcServiceRegistration;
}): Promise<HeldRequestServiceHandle> {
  const { ctx, bus, service } = spec;
  const { store, logger } = ctx;
  const stops = createStopList(logger, service);
  const stopAll = () => stops.stopAll();
  if (spec.onStopped) stops.push(spec.onStopped);

  try {
    // 1. integration events out on meridian.<service>.events (transactional outbox)
    const relay = startOutboxRelay({
      store,
      bus,
      topic: topicOf(service),
      map: spec.toIntegrationEvent,
      onError: (err, attempt) => logger.warn({ err, attempt }, `${service} outbox relay failed; retrying`),
    });
    stops.push(() => relay.stop());

    // 2. identity events -> the user directory (name and email), exactly once per event id
    const identity = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('identity'),
      group: spec.consumerGroup,
      handle: handleIdentityEvent,
    });
    stops.push(() => identity.stop());

    // 3. the service's own loops, and the process manager (re-drives owed ledger calls)
    spec.startLoops?.(ctx, stops);
    const manager = spec.startProcessManager(ctx, { intervalMs: spec.redriveIntervalMs });
    stops.push(() => manager.stop());

    // 4. gRPC
    const grpc = await startGrpcServer({
      address: spec.grpcAddress,
      logger,
      services: [spec.grpcService(ctx, { logger })],
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
