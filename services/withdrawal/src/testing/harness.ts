/**
 * Test harness: the real ledger (services/ledger start()) and the withdrawal service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients: the held-request
 * test stack (@meridian/held-request testing/testStack.ts) with the ledger's `startLedgerForCallers`.
 */
import { startHeldRequestStack } from '@meridian/held-request/testing/testStack';
import type { PersonalData } from '@meridian/platform/personalData';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { ADMIN, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import { queueKind } from '@meridian/held-request/testing/queueSpecs';
import { parseWithdrawalConfig } from '../config.js';
import { start } from '../main.js';
import { withdrawalView } from '../projections/withdrawalView.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

/** A valid wallet address (Ethereum, checksummed). */
export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

export async function startStack(
  options: { personalData?: PersonalData; env?: Record<string, string> } = {},
) {
  const stack = await startHeldRequestStack({
    personalData: options.personalData,
    service: 'withdrawal',
    ledgerSide: startLedgerForCallers,
    config: (env) => parseWithdrawalConfig({ ...env, ...options.env }),
    start: (deps: Parameters<typeof start>[0]) => start(deps),
    proto: wd,
    client: wd.WithdrawalServiceClient,
  });
  return Object.assign(stack, {
    /** Credits the user's Total Profit through the ledger (an admin adjustment). */
    async fund(userId: string, dollars: string) {
      await stack.ledgerCall('adjustBalance', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        userId,
        account: led.BalanceAccount.BALANCE_ACCOUNT_PROFIT,
        operation: led.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: dollars,
        reason: 'test',
      });
    },
    /** The user (verified, KYC approved) requests $50 to WALLET; answers the withdrawal's id. */
    request: (userId: string, withdrawalId = '') =>
      stack.submit(
        'requestWithdrawal',
        userId,
        '50',
        { callerKycStatus: 'Approved', walletAddress: WALLET },
        withdrawalId,
      ),
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** The withdrawal kind as the held-request queue specs drive it. */
export const QUEUE = queueKind('withdrawal', 'listUserWithdrawals', withdrawalView, startStack);
