/**
 * The ledger side of a calling service's test stack (investment, withdrawal): the real ledger
 * (start()) on its own SQLite ':memory:' store and an in-process bus to share, reached by a real gRPC
 * client, plus real LedgerPorts over gRPC (`@meridian/ledger/client`) for the service under test.
 * Exported as `@meridian/ledger/testing/callerStack`; each service's testing/harness.ts adds itself.
 */
import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import {
  callUnary,
  createGrpcClient,
  type RequestOf,
  type ResponseOf,
  type UnaryMethod,
} from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { createGrpcLedger } from '../client/ledgerPort.grpc.js';
import type { LedgerPort } from '../client/ledgerPort.js';
import { parseLedgerConfig } from '../config.js';
import { start as startLedger } from '../main.js';

export type Partial_ = { fromPartial(o: unknown): unknown };
/** ts-proto encodes a missing string as "undefined": requests are completed with fromPartial first. */
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

export async function startLedgerForCallers(logger: Logger) {
  const bus: EventBus = createInProcEventBus({ path: ':memory:' });
  const ledgerStore = createSqliteServiceStore(':memory:');
  const ledger = await startLedger({
    config: parseLedgerConfig({ NODE_ENV: 'test', LEDGER_GRPC_ADDR: '127.0.0.1:0' }),
    store: ledgerStore,
    bus,
    logger,
  });
  const ledgerClient = createGrpcClient(LedgerServiceClient, ledger.grpcAddress);
  const ports: LedgerPort[] = [];
  const realLedger = () => {
    const port = createGrpcLedger(ledger.grpcAddress);
    ports.push(port);
    return port;
  };
  const ledgerCall: Call<LedgerServiceClient> = (method, request) =>
    callUnary(ledgerClient, method, LEDGER_REQUESTS[method].fromPartial(request) as never);

  return {
    bus,
    ledgerStore,
    ledgerAddress: ledger.grpcAddress,
    ledgerCall,
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
    balances: (userId: string) =>
      ledgerCall('getBalances', { caller: caller(ADMIN.userId), callerRole: 'admin', userId }),
    /** After the service under test stopped: its ledger ports, the ledger, the bus, the ledger's store. */
    async stop() {
      ledgerClient.close();
      for (const p of ports) p.close?.();
      await ledger.stop();
      await bus.close();
      await ledgerStore.close();
    },
  };
}

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
