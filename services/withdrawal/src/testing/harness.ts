/**
 * Test harness: the real ledger (services/ledger start()) and the withdrawal service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients. The withdrawal
 * service can be stopped and started again on the same store (a restart), with another LedgerPort
 * (a faulty one, to leave a request without an outcome) and another clock. The ledger side is the
 * ledger's own `startLedgerForCallers` (shared with investment).
 */
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { type RequestCodecs, startHeldRequestStack } from '@meridian/platform/app/heldRequest/testStack';
import { createLogger } from '@meridian/platform/logger';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { ADMIN, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { LedgerPort } from '../app/ports.js';
import { parseWithdrawalConfig } from '../config.js';
import { start, type WithdrawalHandle } from '../main.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

const WITHDRAWAL_REQUESTS: RequestCodecs<WithdrawalServiceClient> = {
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
  const config = parseWithdrawalConfig({
    NODE_ENV: 'test',
    WITHDRAWAL_GRPC_ADDR: '127.0.0.1:0',
    LEDGER_GRPC_URL: ledgerSide.ledgerAddress,
  });
  const stack = await startHeldRequestStack({
    service: 'withdrawal',
    ledgerSide,
    start: (deps: {
      store: ServiceStore;
      bus: EventBus;
      ledger: LedgerPort;
      clock?: () => Date;
    }): Promise<WithdrawalHandle> => start({ ...deps, config, logger, redriveIntervalMs: 60_000 }),
    client: (address) => createGrpcClient(WithdrawalServiceClient, address),
    requests: WITHDRAWAL_REQUESTS,
  });
  return Object.assign(stack, {
    /** Credits the user's Total Profit through the ledger (an admin adjustment). */
    async fund(userId: string, dollars: string) {
      await ledgerSide.ledgerCall('adjustBalance', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        userId,
        account: led.BalanceAccount.BALANCE_ACCOUNT_PROFIT,
        operation: led.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: dollars,
        reason: 'test',
      });
    },
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;
