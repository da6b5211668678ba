/**
 * Test harness: the ledger started through `start()` on SQLite (':memory:' or a file, for restarts)
 * and the in-process bus, reached by a real gRPC client. Identity's UserRegistered is published on
 * meridian.identity.events as identity would. `settle()` waits until the outbox is published and the
 * identity topic consumed, so the invariant check sees a quiet ledger.
 */
import { randomUUID } from 'node:crypto';
import { harnessPerTest } from '@meridian/platform/testing/perTest';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { createLogger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import type * as pb from '@meridian/proto/meridian/ledger/v1/ledger';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { CONSUMER_GROUP } from '../app/context.js';
import { parseLedgerConfig } from '../config.js';
import { start, type LedgerHandle } from '../main.js';
import { expectLedgerInvariants } from './invariants.js';
import { type Call, identityEvent, ledgerCaller, userRegistered } from './ledgerClient.js';

type InProcBus = ReturnType<typeof createInProcEventBus>;

export interface Principal {
  userId: string;
  caller: Caller;
  callerRole: string;
}

export interface LedgerHarness {
  call: Call<LedgerServiceClient>;
  store: ServiceStore;
  bus: InProcBus;
  /** The ledger's personal data (keys in memory): `shred(userId)` is what deleting the user does to the key. */
  personalData: PersonalData;
  service: LedgerHandle;
  admin: Principal;
  /** The admin as a request's caller: `{ caller, callerRole: 'admin' }`. */
  asAdmin(): { caller: Caller; callerRole: string };
  /** A fresh investor, announced by a UserRegistered (optionally with a referrer) the ledger has consumed. */
  user(options?: {
    name?: string;
    email?: string;
    referredBy?: string;
    register?: boolean;
  }): Promise<Principal>;
  /** Publishes an identity event as identity would; returns it (publish it again for a duplicate). */
  publishIdentity(type: string, data: Record<string, unknown>, id?: string): Promise<StoredEvent>;
  republish(event: StoredEvent): Promise<void>;
  /** Creates a deposit of `dollars` for the principal (email verified), left Pending. */
  requestDeposit(who: Principal, dollars: string): Promise<pb.Deposit>;
  /** Creates and confirms a deposit of `dollars` for the principal. */
  fund(who: Principal, dollars: string): Promise<pb.Deposit>;
  balances(userId: string): Promise<pb.Balances>;
  /** The outbox is published and the identity topic consumed. */
  settle(): Promise<void>;
  checkInvariants(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the service (keeping store and bus) and starts it again, optionally on another bus. */
  restart(options?: { bus?: EventBus }): Promise<void>;
}

export function principal(userId: string, role = 'subscriber'): Principal {
  return {
    userId,
    caller: { userId, sessionId: `s-${userId}`, impersonatorId: '', correlationId: '' },
    callerRole: role,
  };
}

export async function startLedgerHarness(
  options: {
    storePath?: string;
    busPath?: string;
    store?: ServiceStore;
    /** what the service sees as its bus (fault injection) */ wrapBus?: (bus: EventBus) => EventBus;
    /** the ledger's personal data (default: its own, keys in memory) */
    personalData?: PersonalData;
    /** more of the ledger's environment (e.g. LEDGER_MAX_PENDING_DEPOSITS) */
    env?: Record<string, string>;
  } = {},
): Promise<LedgerHarness> {
  const store = options.store ?? createSqliteServiceStore(options.storePath ?? ':memory:');
  const bus = createInProcEventBus({ path: options.busPath ?? ':memory:' });
  const config = parseLedgerConfig({ NODE_ENV: 'test', LEDGER_GRPC_ADDR: '127.0.0.1:0', ...options.env });
  const logger = createLogger('ledger', { level: 'silent' });
  const personalData = options.personalData ?? new PersonalData(new MemoryPersonalDataKeys());
  const begin = (b: EventBus) => start({ config, store, bus: b, logger, personalData });
  let service = await begin(options.wrapBus ? options.wrapBus(bus) : bus);
  let client = createGrpcClient(LedgerServiceClient, service.grpcAddress);
  let identityPosition = 0;
  const identityTopic = topicOf('identity');

  const h: LedgerHarness = {
    call: (method, request) => ledgerCaller(client)(method, request),
    store,
    bus,
    personalData,
    get service() {
      return service;
    },
    admin: principal(`admin-${randomUUID()}`, 'admin'),
    asAdmin: () => ({ caller: h.admin.caller, callerRole: 'admin' }),
    async user(o = {}) {
      const p = principal(`user-${randomUUID()}`);
      if (o.register !== false) {
        await h.publishIdentity(
          'UserRegistered',
          userRegistered(p.userId, {
            name: o.name ?? 'Test Investor',
            email: o.email ?? `${p.userId}@example.com`,
            referralCode: p.userId.slice(5, 13),
            referredBy: o.referredBy ?? '',
          }),
        );
        await h.settle();
      }
      return p;
    },
    async publishIdentity(type, data, id = randomUUID()) {
      const event = identityEvent(type, data, { id, position: ++identityPosition });
      await bus.publish(identityTopic, [event]);
      return event;
    },
    async republish(event) {
      await bus.publish(identityTopic, [event]);
    },
    requestDeposit: (who, dollars) =>
      h.call('createDeposit', {
        caller: who.caller,
        callerRole: who.callerRole,
        amount: dollars,
        emailVerified: true,
      }),
    async fund(who, dollars) {
      const d = await h.requestDeposit(who, dollars);
      return h.call('confirmDeposit', { ...h.asAdmin(), depositId: d.depositId });
    },
    balances: (userId) => h.call('getBalances', { caller: h.admin.caller, callerRole: 'admin', userId }),
    async settle() {
      await waitFor(() => bus.committed(CONSUMER_GROUP, identityTopic) >= bus.size(identityTopic), {
        message: 'identity events consumed by the ledger',
      });
      await service.flushOutbox();
    },
    async checkInvariants() {
      await h.settle();
      await expectLedgerInvariants(store);
    },
    async stop() {
      client.close();
      await service.stop();
      await bus.close();
      if (!options.store) await store.close();
    },
    async restart(o = {}) {
      client.close();
      await service.stop();
      service = await begin(o.bus ?? bus);
      client = createGrpcClient(LedgerServiceClient, service.grpcAddress);
    },
  };
  return h;
}

/**
 * The setup of the integration specs: a fresh ledger before each test, its invariants checked and it
 * stopped after each. The harness returned stands for the current test's.
 */
export function ledgerPerTest(options: Parameters<typeof startLedgerHarness>[0] = {}): LedgerHarness {
  return harnessPerTest(
    'the ledger harness',
    () => startLedgerHarness(options),
    async (h) => {
      try {
        await h.checkInvariants();
      } finally {
        await h.stop();
      }
    },
  );
}
