/**
 * The wiring every service's composition root shares (docs/CONVENTIONS.md "Service composition
 * contract"), so that a main.ts holds only what is its own:
 *
 * `startService`, inside `start(deps)`: the store whose appends record their integration events
 * (app/integrationEvents.ts), the outbox relay publishing them on meridian.<service>.events, the
 * idempotent consumers, the gRPC server and whatever else the service starts, stopped in reverse order
 * (and torn down when starting fails half-way). When main.ts is the program, runtime.ts's
 * `runServiceProgram` builds the deps from env and calls its `start`.
 */
import { subscribeIdempotent, type IdempotentSubscribeOptions } from './app/consumer.js';
import { type PublishedEvents, publishedModule, withIntegrationEvents } from './app/integrationEvents.js';
import { startOutboxRelay, type OutboxRelayOptions } from './app/outboxRelay.js';
import { startRelayThread } from './app/relayThread.js';
import { createStopList } from './app/stopList.js';
import { startGrpcServer, type GrpcServiceRegistration } from './grpc/index.js';
import type { Logger } from './logger.js';
import { topicOf, type EventBus } from './ports/eventBus.js';
import type { KeyValueStore } from './ports/keyValue.js';
import type { ServiceStore } from './ports/serviceStore.js';
import { personalDataOf, type PersonalData } from './personalData.js';

/** What every service's `start` is given (its own Deps extend this). */
export interface ServiceDeps<Config> {
  config: Config;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  /**
   * Seals and opens personal data with per-user keys (crypto-shredding, personalData.ts). Absent: the
   * process-wide in-memory one (`personalDataOf(deps)`); the standalone passes identity's vault, a service run
   * as its own program one that asks identity over gRPC (runtime.ts).
   */
  personalData?: PersonalData;
  /**
   * The outbox relay on a thread of its own (app/relayThread.ts), built from this env: a service run as
   * its own program with OUTBOX_RELAY=thread (runtime.ts; the ledger's default). Absent: on the event
   * loop (inline; the standalone, tests).
   */
  relayThread?: { env: Record<string, string | undefined> };
}

/** What every service's `start` returns (with what is its own). */
export interface ServiceHandle {
  grpcAddress: string;
  /** Resolves when everything appended so far is published on the service's topic. */
  flushOutbox(timeoutMs?: number): Promise<void>;
  /** Stops what was started, last first (once; later calls return the same promise). */
  stop(): Promise<void>;
}

/** Something a service may open and close at its stop. */
type Closable = { close?(): unknown };

/** What a service builds itself from, inside startService. */
export interface ServiceParts {
  /** The service's store: build everything on it (its appends record their integration events). */
  store: ServiceStore;
  /** Runs `stop` when the service stops (in reverse order of registration). */
  onStop(stop: () => Promise<void> | void): void;
  /**
   * `given` when there is one (a test's: its owner closes it); else what `open` makes, closed when the
   * service stops.
   */
  givenOrOpened<T>(given: T | undefined, open: () => Promise<T & Closable> | (T & Closable)): Promise<T>;
  /**
   * Applies `source`'s events (topicOf(source)) once per event id, in the service's consumer group.
   * `types`: the event types `handle` acts on (the others only advance the offset); absent: all.
   */
  consume(
    source: string,
    handle: IdempotentSubscribeOptions['handle'],
    types?: IdempotentSubscribeOptions['types'],
  ): Promise<void>;
  /** The gRPC server of the service on `address`; resolves to the bound address. */
  serveGrpc(address: string, services: GrpcServiceRegistration[]): Promise<string>;
  /** The spec's clock, else the system's. */
  clock: () => Date;
  /** The spec's personal data, else the process-wide one (personalDataOf). */
  personalData: PersonalData;
}

export interface ServiceSpec {
  /** The service's name: its topic is topicOf(service). */
  service: string;
  store: ServiceStore;
  bus: EventBus;
  logger: Logger;
  /**
   * What each appended domain event publishes (its mapping, null: none), and the module a relay thread
   * imports the same mapping from (app/integrationEvents.ts publishedEvents).
   */
  published: PublishedEvents;
  /** The consumer group of `consume` (and the name of its processed markers); default: the service's name. */
  consumerGroup?: string;
  /** Relay tuning (tests). */
  relay?: Pick<OutboxRelayOptions, 'lease' | 'pollIntervalMs'>;
  /** The indexes the service's lists page on, ensured on the store before `compose`. */
  indexes?: ReadonlyArray<{ collection: string; fields: string[] }>;
  clock?: () => Date;
  personalData?: PersonalData;
  /** Given (ServiceDeps.relayThread) with `published.module`: the relay runs on its own thread. */
  relayThread?: ServiceDeps<unknown>['relayThread'];
}

/**
 * Starts the outbox relay, then `compose` (consumers, gRPC, loops). Any failure stops what was started
 * and rethrows. `compose` returns the gRPC address and whatever else the service's handle shows.
 */
export async function startService<Own extends { grpcAddress: string }>(
  spec: ServiceSpec,
  compose: (parts: ServiceParts) => Promise<Own>,
): Promise<Own & ServiceHandle> {
  const { service, bus, logger, published } = spec;
  const store = withIntegrationEvents(spec.store, published.map);
  const stops = createStopList(logger, service);
  const onStop = (stop: () => Promise<void> | void) => stops.push(async () => stop());
  const consumerGroup = spec.consumerGroup ?? service;
  try {
    const mapping = spec.relayThread ? await publishedModule(published) : undefined;
    const relay =
      spec.relayThread && mapping
        ? startRelayThread({
            service,
            topic: topicOf(service),
            mapping,
            env: spec.relayThread.env,
            store,
            logger,
            relay: spec.relay,
          })
        : startOutboxRelay({
            store,
            bus,
            topic: topicOf(service),
            // events appended before their integration events were recorded: mapped the way they always were
            map: (event) => published.map(event, store),
            onError: (err, attempt) =>
              logger.warn({ err, attempt }, `${service} outbox relay failed; retrying`),
            ...spec.relay,
          });
    onStop(() => relay.stop());
    for (const ix of spec.indexes ?? []) await store.ensureIndex?.(ix.collection, ix.fields);
    const own = await compose({
      store,
      onStop,
      async givenOrOpened(given, open) {
        if (given !== undefined) return given;
        const opened = await open();
        onStop(async () => void (await opened.close?.()));
        return opened;
      },
      clock: spec.clock ?? (() => new Date()),
      personalData: personalDataOf(spec),
      async consume(source, handle, types) {
        const subscription = await subscribeIdempotent({
          bus,
          store,
          topic: topicOf(source),
          group: consumerGroup,
          handle,
          types,
        });
        onStop(() => subscription.stop());
      },
      async serveGrpc(address, services) {
        const server = await startGrpcServer({ address, logger, services });
        onStop(() => server.stop());
        return server.address;
      },
    });
    let stopping: Promise<void> | undefined;
    return {
      ...own,
      flushOutbox: (timeoutMs) => relay.flush(timeoutMs),
      stop: () => (stopping ??= stops.stopAll()),
    };
  } catch (err) {
    await stops.stopAll();
    throw err;
  }
}
