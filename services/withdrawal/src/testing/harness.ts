/**
 * Test harness: the real ledger (services/ledger start()) and the withdrawal service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The withdrawal
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
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { parseLedgerConfig, start as startLedger } from '@meridian/ledger';
import { createGrpcLedger } from '../adapters/ledger.grpc.js';
import type { LedgerPort } from '../app/ports.js';
import { parseWithdrawalConfig } from '../config.js';
import { start, type WithdrawalHandle } from '../main.js';

type Partial_ = { fromPartial(o: unknown): unknown };
/** ts-proto encodes a missing string as "undefined": requests are completed with fromPartial first. */
const WITHDRAWAL_REQUESTS: Record<UnaryMethod<WithdrawalServiceClient>, Partial_> = {
  requestWithdrawal: wd.RequestWithdrawalRequest,
  listPending: wd.ListPendingRequest,
  listUserWithdrawals: wd.ListUserWithdrawalsRequest,
  getWithdrawal: wd.GetWithdrawalRequest,
  approveWithdrawal: wd.DecideWithdrawalRequest,
  rejectWithdrawal: wd.DecideWithdrawalRequest,
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

export async function startStack() {
  const logger = createLogger('withdrawal-test');
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
  const config = parseWithdrawalConfig({
    NODE_ENV: 'test',
    WITHDRAWAL_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledger.grpcAddress,
  });
  const ports: LedgerPort[] = [];
  const realLedger = () => {
    const port = createGrpcLedger(ledger.grpcAddress);
    ports.push(port);
    return port;
  };

  let service: WithdrawalHandle;
  let client: WithdrawalServiceClient;
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
    client = createGrpcClient(WithdrawalServiceClient, service.grpcAddress);
  };
  await boot();

  const published: StoredEvent[] = [];
  const sub = await bus.subscribe({
    topic: topicOf('withdrawal'),
    group: `test-${randomUUID()}`,
    handler: async (e) => void published.push(e),
  });

  const call: Call<WithdrawalServiceClient> = (method, request) =>
    callUnary(client, method, WITHDRAWAL_REQUESTS[method].fromPartial(request) as never);
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
    /** Credits the user's Total Profit through the ledger (an admin adjustment). */
    async fund(userId: string, dollars: string) {
      await ledgerCall('adjustBalance', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        userId,
        account: led.BalanceAccount.BALANCE_ACCOUNT_PROFIT,
        operation: led.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: dollars,
        reason: 'test',
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
