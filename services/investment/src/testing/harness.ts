/**
 * Test harness: the real ledger (services/ledger start()) and the investment service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The investment
 * service can be stopped and started again on the same store (a restart), with another LedgerPort
 * (a faulty one, to leave a request without an outcome) and another clock. The ledger side is the
 * ledger's own `startLedgerForCallers` (shared with withdrawal).
 */
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { type RequestCodecs, startHeldRequestStack } from '@meridian/platform/app/heldRequest/testStack';
import { createLogger } from '@meridian/platform/logger';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import { ADMIN, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { LedgerPort } from '../app/ports.js';
import { parseInvestmentConfig } from '../config.js';
import { start, type InvestmentHandle } from '../main.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

const INVESTMENT_REQUESTS: RequestCodecs<InvestmentServiceClient> = {
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
  const config = parseInvestmentConfig({
    NODE_ENV: 'test',
    INVESTMENT_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledgerSide.ledgerAddress,
    ...(options.plansJson ? { PLANS_JSON: options.plansJson } : {}),
  });
  const stack = await startHeldRequestStack({
    service: 'investment',
    ledgerSide,
    start: (deps: {
      store: ServiceStore;
      bus: EventBus;
      ledger: LedgerPort;
      clock?: () => Date;
    }): Promise<InvestmentHandle> => start({ ...deps, config, logger, redriveIntervalMs: 60_000 }),
    client: (address) => createGrpcClient(InvestmentServiceClient, address),
    requests: INVESTMENT_REQUESTS,
  });
  return Object.assign(stack, {
    /** Credits the user's Deposit Balance through the ledger (deposit + admin confirmation). */
    async fund(userId: string, dollars: string) {
      const d = await ledgerSide.ledgerCall('createDeposit', {
        caller: caller(userId),
        callerRole: 'subscriber',
        amount: dollars,
        emailVerified: true,
      });
      await ledgerSide.ledgerCall('confirmDeposit', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        depositId: d.depositId,
        notes: '',
      });
    },
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;
