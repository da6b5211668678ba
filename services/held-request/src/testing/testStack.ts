/**
 * The test stack of a held-request service (investment, withdrawal): the ledger side its caller
 * brings (the ledger's `startLedgerForCallers`: the real ledger, its bus, real LedgerPorts) and the
 * service under test on its own SQLite ':memory:' store, reached by a real gRPC client, with every
 * event it publishes collected. The service can be stopped and started again on the same store (a
 * restart), with another ledger port (a faulty one, to leave a request without an outcome) and another
 * clock. Each service's testing/harness.ts gives its own config, start, client and request codecs.
 *
 * Also the held-request rebuild scenario (expectRebuildFromEvents): every read model of a kind dropped
 * and rebuilt from the events alone.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { expect } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type * as grpc from '@grpc/grpc-js';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { type Call, type RequestCodecs, codecCaller } from '@meridian/platform/testing/grpcCall';
import { type Logger, createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type IdFields,
  type LogProjection,
  dropCollections,
  rebuildFromLog,
  replayTopic,
  snapshotCollections,
} from '@meridian/platform/testing/readModels';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { harnessPerTest } from '@meridian/platform/testing/perTest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { Decision } from '../app/heldRequests.js';
import type { HoldLedger } from '../app/holdLedger.js';
import { USERS, handleIdentityEvent } from '../app/userDirectory.js';

/** What the stack uses of the ledger side (the rest of it is handed through). */
export interface LedgerSideOf<Port> {
  bus: EventBus;
  ledgerStore: ServiceStore;
  ledgerAddress: string;
  realLedger(): Port;
  /** After the service under test stopped. */
  stop(): Promise<void>;
}

type Admin = { userId: string; role: string };

export type BootOptions<Port> = { ledger?: Port; clock?: () => Date };

/** What the stack hands a service's start (its composition contract, and the ledger port to use). */
export type StackDeps<Port, Config> = {
  config: Config;
  store: ServiceStore;
  bus: EventBus;
  logger: Logger;
  /** Always given (optional in the type, so that the port type is the one the service's start takes). */
  ledger?: Port;
  clock?: () => Date;
  redriveIntervalMs: number;
  personalData: PersonalData;
};

export async function startHeldRequestStack<
  Port,
  Side extends LedgerSideOf<Port>,
  Config,
  Handle extends { grpcAddress: string; stop(): Promise<void> },
  C extends grpc.Client,
>(spec: {
  /** The service's name (its topic is `topicOf(service)`). */
  service: string;
  /** The service's personal data; default: keys in memory (the stack's `personalData`). */
  personalData?: PersonalData;
  /** Starts the ledger side (the ledger's `startLedgerForCallers`). */
  ledgerSide(logger: Logger): Promise<Side>;
  /** The service's config from env (the stack's test env given; its listen address is the harness's). */
  config(env: Record<string, string>): Config;
  start(deps: StackDeps<Port, Config>): Promise<Handle>;
  /** The request codec of each of the service's methods. */
  requests: RequestCodecs<C>;
  /** An admin's decision on `requestId` through the kind's approve<Kind> / reject<Kind> RPC. */
  decide(call: Call<C>, decision: Decision, requestId: string, admin: Admin): Promise<unknown>;
  client: new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ) => C;
}) {
  const logger = createLogger(`${spec.service}-test`);
  const ledgerSide = await spec.ledgerSide(logger);
  const { bus } = ledgerSide;
  const config = spec.config({
    NODE_ENV: 'test',
    LEDGER_GRPC_URL: ledgerSide.ledgerAddress,
  });
  const store: ServiceStore = createSqliteServiceStore(':memory:');
  /** `shred(userId)` is what deleting the user does. */
  const personalData = spec.personalData ?? new PersonalData(new MemoryPersonalDataKeys());

  let service: Handle;
  let client: C;
  const boot = async (o: BootOptions<Port> = {}) => {
    const ledger = o.ledger ?? ledgerSide.realLedger();
    service = await spec.start({
      config,
      store,
      bus,
      logger,
      ledger,
      clock: o.clock,
      redriveIntervalMs: 60_000,
      personalData,
    });
    client = createGrpcClient(spec.client, service.grpcAddress);
  };
  await boot();

  const restart = async (o: BootOptions<Port> = {}) => {
    client.close();
    await service.stop();
    await boot(o);
  };

  const published: StoredEvent[] = [];
  const sub = await bus.subscribe({
    topic: topicOf(spec.service),
    group: `test-${randomUUID()}`,
    handler: async (e) => void published.push(e),
  });

  // the client of the service as it runs now (a restart opens a new one)
  const call: Call<C> = (method, request) => codecCaller(client, spec.requests)(method, request);

  /** An admin's decision through the kind's approve<Kind> / reject<Kind>. */
  const decide = (decision: Decision, requestId: string, admin: Admin) =>
    spec.decide(call, decision, requestId, admin);

  return {
    ...ledgerSide,
    store,
    personalData,
    decide,
    published,
    call,
    get service() {
      return service;
    },
    restart,
    /** Restarts the service on the real ledger with `calls` in place of its own (a ledger call lost or refused). */
    restartWithLedger: (calls: Partial<Port>) =>
      restart({ ledger: { ...ledgerSide.realLedger(), ...calls } }),
    async stop() {
      await sub.stop();
      client.close();
      await service.stop();
      await ledgerSide.stop();
      await store.close();
    },
  };
}

/** A fresh stack from `start` for each test; after it, the ledger's invariants hold and the stack stops. */
export function stackPerTest<S extends { ledgerProblems(): Promise<string[]>; stop(): Promise<void> }>(
  start: () => Promise<S>,
): S {
  return harnessPerTest('the stack', start, async (s) => {
    expect(await s.ledgerProblems()).toEqual([]);
    await s.stop();
  });
}

// ---------- the rebuild scenario ----------

/** What the rebuild scenario drives of a kind's stack (its harness's startStack result). */
export interface RebuildStack<Port extends RebuildPort> {
  store: ServiceStore;
  bus: EventBus;
  service: { stop(): Promise<void> };
  realLedger(): Port;
  restart(o?: BootOptions<Port>): Promise<void>;
  registerUser(userId: string, name: string, email: string): Promise<void>;
  /** Credits the balance the kind's requests are held from (dollars). */
  fund(userId: string, dollars: string): Promise<void>;
  decide(decision: Decision, requestId: string, admin: Admin): Promise<unknown>;
  /** The user's request of `amount` on the kind's harness's terms (`requestId`: its own); resolves to its id. */
  submit(userId: string, amount: string, requestId?: string): Promise<string>;
}
type RebuildPort = HoldLedger & { getBalances(userId: string): Promise<object> };

export interface RebuildKind<Doc extends { sync: string }> {
  /** The kind's read model: its stream, collection, projection, id field, pending status, query by id. */
  view: LogProjection & {
    idField: string;
    pendingStatus: string;
    byId(reads: ServiceStore, id: string): Promise<Doc | null>;
  };
  /** The balance field of getBalances a request is held from (a stale one lets the ledger refuse). */
  balanceField: string;
  /** The status of an approved request. */
  approvedStatus: string;
  /**
   * The kind's own steps after the first approval (`advance` moves the service's clock); resolves to
   * what the request's document then matches.
   */
  afterApproval(requestId: string, advance: (ms: number) => void): Promise<Record<string, unknown>>;
}

const ADMIN = { userId: 'admin-1', role: 'admin' };

/** An event of identity's topic (stream user-<userId>) as identity publishes it. */
const identityEvent = (type: string, userId: string, data: Record<string, unknown>): StoredEvent =>
  busEvent(`user-${userId}`, 2, { userId, ...data }, type);

/**
 * Every read model of a held-request service dropped and rebuilt from the events alone, the process
 * manager's to-do list (`sync`) included: a realistic run (requests, a refusal, a request left without
 * its hold, approvals with the kind's own steps after, a rejection, a capture lost then re-driven)
 * through the gRPC surface against the real ledger, then every collection is snapshotted, dropped and
 * rebuilt — the requests from the service's own log through the kind's projection, the users directory
 * by replaying identity's topic (kept forever) through the live handler — and compared.
 */
export async function expectRebuildFromEvents<Port extends RebuildPort, Doc extends { sync: string }>(
  stack: RebuildStack<Port>,
  kind: RebuildKind<Doc>,
): Promise<void> {
  const { view, approvedStatus: approved } = kind;
  const request = (userId: string, amount: string, requestId?: string) =>
    stack.submit(userId, amount, requestId);
  const pending = view.pendingStatus;
  const ID_OF: IdFields = { [view.collection]: view.idField, [USERS]: 'userId' };
  const [u1, u2, u3] = [1, 2, 3].map((n) => `user-${n}-${randomUUID()}`);
  await stack.registerUser(u1, 'Ada', 'ada@example.com');
  await stack.registerUser(u2, 'Bob', 'bob@example.com');
  await stack.registerUser(u3, 'Cy', 'cy@example.com');
  await stack.bus.publish(topicOf('identity'), [
    identityEvent('ProfileUpdated', u1, { name: 'Ada L.', fields: ['name'] }),
  ]);
  const identityEvents = 4;
  await stack.fund(u1, '2000');
  await stack.fund(u2, '500');
  await stack.fund(u3, '100');

  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  const real = stack.realLedger();
  await stack.restart({ ledger: real, clock });
  const doc = async (id: string) => {
    const found = await view.byId(stack.store, id);
    if (!found) throw new Error(`no request ${id} in ${view.collection}`);
    return found;
  };

  // approved, then the kind's own steps
  const first = await request(u1, '100');
  await stack.decide('approve', first, ADMIN);
  const afterFirst = await kind.afterApproval(first, (ms) => (offsetMs += ms));
  expect(await doc(first)).toMatchObject(afterFirst);

  // approved while the ledger's capture is lost, then re-driven by the process manager
  const redriven = await request(u1, '200');
  await stack.restart({
    ledger: { ...real, captureHold: async () => Promise.reject(unavailable('ledger down')) },
    clock,
  });
  await stack.decide('approve', redriven, ADMIN);
  expect(await doc(redriven)).toMatchObject({ status: approved, sync: 'capture' });
  await stack.restart({ ledger: real, clock });
  await waitFor(async () => (await doc(redriven)).sync === 'none', 'capture re-driven');
  expect(await doc(redriven)).toMatchObject({ status: approved, funds: 'captured' });

  // rejected (released), waiting in the queue, refused by the ledger (a stale balance)
  const rejected = await request(u2, '300');
  await stack.decide('reject', rejected, ADMIN);
  const queued = await request(u2, '150');
  const stale: Port = {
    ...real,
    getBalances: async (userId: string) => ({
      ...(await real.getBalances(userId)),
      [kind.balanceField]: 1_000_000,
    }),
  };
  await stack.restart({ ledger: stale, clock });
  const refusedId = `req-${randomUUID()}`;
  await expect(request(u3, '400', refusedId)).rejects.toMatchObject({
    code: status.FAILED_PRECONDITION,
  });

  // left without its hold's outcome: owed to the process manager
  const lost: Port = { ...real, placeHold: async () => Promise.reject(unavailable('ledger down')) };
  await stack.restart({ ledger: lost, clock });
  const awaitingId = `req-${randomUUID()}`;
  await expect(request(u1, '250', awaitingId)).rejects.toMatchObject({ code: status.UNAVAILABLE });

  await waitFor(
    async () => (await stack.store.find<{ name: string }>(USERS)).some((u) => u.name === 'Ada L.'),
    'directory up to date',
  );
  await stack.service.stop();
  const before = await snapshotCollections(stack.store, ID_OF);

  // the run covers every state the rebuild must restore, the process manager's included
  const requests = await stack.store.find<Record<string, unknown>>(view.collection);
  const byId = new Map(requests.map((d) => [d[view.idField], d]));
  expect(byId.get(first)).toMatchObject({ status: afterFirst.status, sync: 'none' });
  expect(byId.get(redriven)).toMatchObject({ status: approved, sync: 'none' });
  expect(byId.get(rejected)).toMatchObject({ status: 'Rejected', sync: 'none', funds: 'released' });
  expect(byId.get(queued)).toMatchObject({ status: pending, hold: 'placed', sync: 'none' });
  expect(byId.get(refusedId)).toMatchObject({ status: 'Rejected', hold: 'refused', listed: false });
  expect(byId.get(awaitingId)).toMatchObject({ status: pending, hold: 'awaiting', sync: 'hold' });
  expect(before[USERS]).toHaveLength(3);

  await dropCollections(stack.store, ID_OF);
  for (const c of Object.keys(ID_OF)) expect(await stack.store.count(c)).toBe(0);

  // the requests: the service's own log alone
  expect(await rebuildFromLog(stack.store, view)).toBe(6);
  // users: identity's topic replayed from the beginning (a fresh group) through the live handler
  await replayTopic(stack.bus, stack.store, topicOf('identity'), identityEvents, handleIdentityEvent);

  expect(await snapshotCollections(stack.store, ID_OF)).toEqual(before);
}
