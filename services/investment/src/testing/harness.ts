/**
 * Test harness: the real ledger (services/ledger start()) and the investment service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The investment
 * service can be stopped and started again on the same store (a restart), with another LedgerPort
 * (a faulty one, to leave a request without an outcome) and another clock. The ledger side is the
 * ledger's own `startLedgerForCallers` (shared with withdrawal).
 */
import { randomUUID } from 'node:crypto';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { callUnary, createGrpcClient, type UnaryMethod } from '@meridian/platform/grpc/index';
import { createLogger } from '@meridian/platform/logger';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import {
  ADMIN,
  type Call,
  type Partial_,
  caller,
  startLedgerForCallers,
} from '@meridian/ledger/testing/callerStack';
import type { LedgerPort } from '../app/ports.js';
import { parseInvestmentConfig } from '../config.js';
import { start, type InvestmentHandle } from '../main.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

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

export async function startStack(options: { plansJson?: string } = {}) {
  const logger = createLogger('investment-test');
  const ledgerSide = await startLedgerForCallers(logger);
  const { bus, ledgerStore, ledgerCall, realLedger } = ledgerSide;
  const store: ServiceStore = createSqliteServiceStore(':memory:');
  const config = parseInvestmentConfig({
    NODE_ENV: 'test',
    INVESTMENT_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledgerSide.ledgerAddress,
    ...(options.plansJson ? { PLANS_JSON: options.plansJson } : {}),
  });

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
