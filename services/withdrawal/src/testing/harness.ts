/**
 * Test harness: the real ledger (services/ledger start()) and the withdrawal service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The withdrawal
 * service can be stopped and started again on the same store (a restart), with another LedgerPort
 * (a faulty one, to leave a request without an outcome) and another clock. The ledger side is the
 * ledger's own `startLedgerForCallers` (shared with investment).
 */
import { randomUUID } from 'node:crypto';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { callUnary, createGrpcClient, type UnaryMethod } from '@meridian/platform/grpc/index';
import { createLogger } from '@meridian/platform/logger';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import {
  ADMIN,
  type Call,
  type Partial_,
  caller,
  startLedgerForCallers,
} from '@meridian/ledger/testing/callerStack';
import type { LedgerPort } from '../app/ports.js';
import { parseWithdrawalConfig } from '../config.js';
import { start, type WithdrawalHandle } from '../main.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

/** ts-proto encodes a missing string as "undefined": requests are completed with fromPartial first. */
const WITHDRAWAL_REQUESTS: Record<UnaryMethod<WithdrawalServiceClient>, Partial_> = {
  requestWithdrawal: wd.RequestWithdrawalRequest,
  listPending: wd.ListPendingRequest,
  listUserWithdrawals: wd.ListUserWithdrawalsRequest,
  getWithdrawal: wd.GetWithdrawalRequest,
  approveWithdrawal: wd.DecideWithdrawalRequest,
  rejectWithdrawal: wd.DecideWithdrawalRequest,
};

export async function startStack() {
  const logger = createLogger('withdrawal-test');
  const ledgerSide = await startLedgerForCallers(logger);
  const { bus, ledgerStore, ledgerCall, realLedger } = ledgerSide;
  const store: ServiceStore = createSqliteServiceStore(':memory:');
  const config = parseWithdrawalConfig({
    NODE_ENV: 'test',
    WITHDRAWAL_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledgerSide.ledgerAddress,
  });

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
    registerUser: ledgerSide.registerUser,
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
    balances: ledgerSide.balances,
    async stop() {
      await sub.stop();
      client.close();
      await service.stop();
      await ledgerSide.stop();
      await store.close();
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;
