/**
 * The test stack of a held-request service (investment, withdrawal): the ledger side its caller
 * brings (the ledger's `startLedgerForCallers`: the real ledger, its bus, real LedgerPorts) and the
 * service under test on its own SQLite ':memory:' store, reached by a real gRPC client, with every
 * event it publishes collected. The service can be stopped and started again on the same store (a
 * restart), with another ledger port (a faulty one, to leave a request without an outcome) and another
 * clock. Each service's testing/harness.ts gives its own start, client and request codecs.
 */
import { randomUUID } from 'node:crypto';
import { createSqliteServiceStore } from '../../adapters/serviceStore.sqlite.js';
import type { StoredEvent } from '../../eventSourcing/types.js';
import { callUnary, type RequestOf, type ResponseOf, type UnaryMethod } from '../../grpc/index.js';
import { topicOf, type EventBus } from '../../ports/eventBus.js';
import type { ServiceStore } from '../../ports/serviceStore.js';

/** What the stack uses of the ledger side (the rest of it is handed through). */
export interface LedgerSideOf<Port> {
  bus: EventBus;
  ledgerStore: ServiceStore;
  realLedger(): Port;
  /** After the service under test stopped. */
  stop(): Promise<void>;
}

/** ts-proto encodes a missing string as "undefined": requests are completed with fromPartial first. */
export type RequestCodecs<C> = Record<UnaryMethod<C>, { fromPartial(o: unknown): unknown }>;

export type BootOptions<Port> = { ledger?: Port; clock?: () => Date };

export async function startHeldRequestStack<
  Port,
  Side extends LedgerSideOf<Port>,
  Handle extends { grpcAddress: string; stop(): Promise<void> },
  C extends Parameters<typeof callUnary>[0],
>(spec: {
  /** The service's name (its topic is `topicOf(service)`). */
  service: string;
  ledgerSide: Side;
  start(deps: { store: ServiceStore; bus: EventBus; ledger: Port; clock?: () => Date }): Promise<Handle>;
  client(address: string): C;
  requests: RequestCodecs<C>;
}) {
  const { ledgerSide } = spec;
  const { bus } = ledgerSide;
  const store: ServiceStore = createSqliteServiceStore(':memory:');

  let service: Handle;
  let client: C;
  const boot = async (o: BootOptions<Port> = {}) => {
    service = await spec.start({ store, bus, ledger: o.ledger ?? ledgerSide.realLedger(), clock: o.clock });
    client = spec.client(service.grpcAddress);
  };
  await boot();

  const published: StoredEvent[] = [];
  const sub = await bus.subscribe({
    topic: topicOf(spec.service),
    group: `test-${randomUUID()}`,
    handler: async (e) => void published.push(e),
  });

  const call = <M extends UnaryMethod<C>>(
    method: M,
    request: Partial<RequestOf<C, M>>,
  ): Promise<ResponseOf<C, M>> =>
    callUnary(client, method, spec.requests[method].fromPartial(request) as never);

  return {
    ...ledgerSide,
    store,
    published,
    call,
    get service() {
      return service;
    },
    async restart(o: BootOptions<Port> = {}) {
      client.close();
      await service.stop();
      await boot(o);
    },
    async stop() {
      await sub.stop();
      client.close();
      await service.stop();
      await ledgerSide.stop();
      await store.close();
    },
  };
}
