/**
 * Test harness: the real ledger (services/ledger start()) and the investment service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The investment
 * service can be stopped and started again on the same store (a restart), with another LedgerPort
 * (a faulty one, to leave a request without an outcome) and another clock.
 */
import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import {
  callUnary,
  createGrpcClient,
  type RequestOf,
  type ResponseOf,
  type UnaryMethod,
} from '@meridian/platform/grpc/index';
import { createLogger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { parseLedgerConfig, start as startLedger } from '@meridian/ledger';
import { createGrpcLedger } from '../adapters/ledger.grpc.js';
import type { LedgerPort } from '../app/ports.js';
import { parseInvestmentConfig } from '../config.js';
import { start, type InvestmentHandle } from '../main.js';

type Partial_ = { fromPartial(o: unknown): unknown };
/** ts-proto encodes a missing string as "undefined": requests are completed with fromPartial first. */
const INVESTMENT_REQUESTS: Record<UnaryMethod<InvestmentServiceClient>, Partial_> = {
  listPlans: inv.ListPlansRequest,
  startInvest: inv.StartInvestRequest,
  investmentHistory: inv.InvestmentHistoryRequest,
  getInvestment: inv.GetInvestmentRequest,
  listPending: inv.ListPendingRequest,
  approveInvestment: inv.DecideInvestmentRequest,
  rejectInvestment: inv.DecideInvestmentRequest,
  settleDueForUser: inv.SettleDueForUserRequest,
};
const LEDGER_REQUESTS: Record<UnaryMethod<LedgerServiceClient>, Partial_> = {
  createDeposit: led.CreateDepositRequest,
  getDeposit: led.GetDepositRequest,
  listUserDeposits: led.ListUserDepositsRequest,
  listPendingDeposits: led.ListPendingDepositsRequest,
  confirmDeposit: led.DecideDepositRequest,
  rejectDeposit: led.DecideDepositRequest,
  placeHold: led.PlaceHoldRequest,
  captureHold: led.SettleHoldRequest,
  releaseHold: led.SettleHoldRequest,
  settleMaturity: led.SettleMaturityRequest,
  adjustBalance: led.AdjustBalanceRequest,
  getBalances: led.GetBalancesRequest,
  listTransactions: led.ListTransactionsRequest,
};

export const ADMIN = { userId: 'admin-1', role: 'admin' };
export const ADMIN_2 = { userId: 'admin-2', role: 'admin' };

export type Call<C extends grpc.Client> = <M extends UnaryMethod<C>>(
  method: M,
  request: Partial<RequestOf<C, M>>,
) => Promise<ResponseOf<C, M>>;

export const caller = (userId: string) => ({ userId, sessionId: '', impersonatorId: '', correlationId: '' });

export async function startStack(options: { plansJson?: string } = {}) {
  const logger = createLogger('investment-test');
  const bus: EventBus = createInProcEventBus({ path: ':memory:' });
  const ledgerStore = createSqliteServiceStore(':memory:');
  const ledger = await startLedger({
    config: parseLedgerConfig({ NODE_ENV: 'test', LEDGER_GRPC_ADDR: '127.0.0.1:0' }),
    store: ledgerStore,
    bus,
    logger,
  });
  const ledgerClient = createGrpcClient(LedgerServiceClient, ledger.grpcAddress);
  const store: ServiceStore = createSqliteServiceStore(':memory:');
  const config = parseInvestmentConfig({
    NODE_ENV: 'test',
    INVESTMENT_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledger.grpcAddress,
    ...(options.plansJson ? { PLANS_JSON: options.plansJson } : {}),
  });
  const ports: LedgerPort[] = [];
  const realLedger = () => {
    const port = createGrpcLedger(ledger.grpcAddress);
    ports.push(port);
    return port;
  };

  let service: InvestmentHandle;
  let client: InvestmentServiceClient;
  const boot = async (o: { ledger?: LedgerPort; clock?: () => Date } = {}) => {
    service = await start({
      config,
      store,
      bus,
      logger,
      ledger: o.ledger ?? realLedger(),
      clock: o.clock,
      redriveIntervalMs: 60_000,
    });
    client = createGrpcClient(InvestmentServiceClient, service.grpcAddress);
  };
  await boot();

  const published: StoredEvent[] = [];
  const sub = await bus.subscribe({
    topic: topicOf('investment'),
    group: `test-${randomUUID()}`,
    handler: async (e) => void published.push(e),
  });

  const call: Call<InvestmentServiceClient> = (method, request) =>
    callUnary(client, method, INVESTMENT_REQUESTS[method].fromPartial(request) as never);
  const ledgerCall: Call<LedgerServiceClient> = (method, request) =>
    callUnary(ledgerClient, method, LEDGER_REQUESTS[method].fromPartial(request) as never);

  return {
    store,
    ledgerStore,
    bus,
    published,
    call,
    ledgerCall,
    get service() {
      return service;
    },
    async restart(o: { ledger?: LedgerPort; clock?: () => Date } = {}) {
      client.close();
      await service.stop();
      await boot(o);
    },
    realLedger,
    /** Registers a user in the directory as identity would (UserRegistered on the bus). */
    async registerUser(userId: string, name: string, email: string) {
      await bus.publish(topicOf('identity'), [
        {
          id: randomUUID(),
          type: 'UserRegistered',
          data: {
            userId,
            name,
            email,
            role: 'subscriber',
            referralCode: '',
            referredBy: '',
            registeredAt: new Date().toISOString(),
            phone: '',
            country: '',
          },
          streamId: `user-${userId}`,
          version: 1,
          position: 1,
          occurredAt: new Date().toISOString(),
          correlationId: randomUUID(),
          causationId: null,
          actor: null,
        },
      ]);
    },
    /** Credits the user's Deposit Balance through the ledger (deposit + admin confirmation). */
    async fund(userId: string, dollars: string) {
      const d = await ledgerCall('createDeposit', {
        caller: caller(userId),
        callerRole: 'subscriber',
        amount: dollars,
        emailVerified: true,
      });
      await ledgerCall('confirmDeposit', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        depositId: d.depositId,
        notes: '',
      });
    },
    balances: (userId: string) =>
      ledgerCall('getBalances', { caller: caller(ADMIN.userId), callerRole: 'admin', userId }),
    async stop() {
      await sub.stop();
      client.close();
      ledgerClient.close();
      await service.stop();
      for (const p of ports) p.close?.();
      await ledger.stop();
      await bus.close();
      await store.close();
      await ledgerStore.close();
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** The gRPC error of a rejected call (code and details). */
export async function grpcError(
  promise: Promise<unknown>,
): Promise<{ code: number; details: string; errorCode?: string }> {
  try {
    await promise;
  } catch (err) {
    const e = err as grpc.ServiceError;
    const code = e.metadata?.get('x-error-code')[0];
    return { code: e.code, details: e.details, ...(typeof code === 'string' ? { errorCode: code } : {}) };
  }
  throw new Error('expected the call to fail');
}
