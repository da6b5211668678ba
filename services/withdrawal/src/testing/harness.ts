/**
 * Test harness: the real ledger (services/ledger start()) and the withdrawal service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients: the held-request
 * test stack (@meridian/held-request testing/testStack.ts) with the ledger's `startLedgerForCallers`.
 */
import { startHeldRequestStack } from '@meridian/held-request/testing/testStack';
import type { RequestCodecs } from '@meridian/platform/testing/grpcCall';
import {
  CloseAccountRequest,
  QueueCountRequest,
  QueuePageRequest,
  UserPageRequest,
} from '@meridian/proto/meridian/common/v1/common';
import type { PersonalData } from '@meridian/platform/personalData';
import * as led from '@meridian/proto/meridian/ledger/v1/ledger';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { ADMIN, ADMIN_2, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import { type QueueKind, pageOf } from '@meridian/held-request/testing/queueSpecs';
import type { RaceKind } from '@meridian/held-request/testing/raceSpecs';
import { parseWithdrawalConfig } from '../config.js';
import { WITHDRAWAL_MESSAGES } from '../domain/withdrawal.js';
import { start } from '../main.js';
import { withdrawalView } from '../projections/withdrawalView.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

/** A valid wallet address (Ethereum, checksummed). */
export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The request codec of each of the withdrawal service's methods. */
const REQUESTS: RequestCodecs<wd.WithdrawalServiceClient> = {
  requestWithdrawal: wd.RequestWithdrawalRequest,
  listPending: QueuePageRequest,
  countPending: QueueCountRequest,
  listUserWithdrawals: UserPageRequest,
  getWithdrawal: wd.GetWithdrawalRequest,
  approveWithdrawal: wd.DecideWithdrawalRequest,
  rejectWithdrawal: wd.DecideWithdrawalRequest,
  closeAccount: CloseAccountRequest,
};

export async function startStack(
  options: { personalData?: PersonalData; env?: Record<string, string> } = {},
) {
  const stack = await startHeldRequestStack({
    personalData: options.personalData,
    service: 'withdrawal',
    ledgerSide: startLedgerForCallers,
    config: (env) => parseWithdrawalConfig({ ...env, WITHDRAWAL_GRPC_ADDR: '127.0.0.1:0', ...options.env }),
    start: (deps: Parameters<typeof start>[0]) => start(deps),
    requests: REQUESTS,
    client: wd.WithdrawalServiceClient,
    decide: (call, decision, withdrawalId, admin) => {
      const request = { caller: caller(admin.userId), callerRole: admin.role, withdrawalId };
      switch (decision) {
        case 'approve':
          return call('approveWithdrawal', request);
        case 'reject':
          return call('rejectWithdrawal', request);
      }
    },
  });
  /**
   * The user (verified, KYC approved) requests `amount` to `walletAddress` (`withdrawalId`: its own); `submit`:
   * its id.
   */
  const answer = (userId: string, amount: string, withdrawalId = '', walletAddress = WALLET) =>
    stack.call('requestWithdrawal', {
      caller: caller(userId),
      callerRole: 'subscriber',
      callerVerified: true,
      callerKycStatus: 'Approved',
      amount,
      walletAddress,
      withdrawalId,
    });
  const submit = async (userId: string, amount: string, withdrawalId = '') => {
    const { withdrawal } = await answer(userId, amount, withdrawalId);
    if (!withdrawal) throw new Error('requestWithdrawal answered no withdrawal');
    return withdrawal.withdrawalId;
  };
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
    answer,
    submit,
    request: (userId: string, withdrawalId = '') => submit(userId, '50', withdrawalId),
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** A page of a list of withdrawals: their ids. */
const page = (out: wd.ListWithdrawalsResponse) =>
  pageOf(out.withdrawals, (i) => i.withdrawalId, out.nextCursor);

/** The withdrawal kind as the held-request queue specs drive it. */
export const QUEUE: QueueKind<Stack> = {
  service: 'withdrawal',
  maxPendingEnv: 'WITHDRAWAL_MAX_PENDING',
  counterId: withdrawalView.counter.id,
  startStack,
  listPending: async (stack, request) => page(await stack.call('listPending', request)),
  listOwn: async (stack, request) => page(await stack.call('listUserWithdrawals', request)),
  countPending: (stack, request) => stack.call('countPending', request),
};

/** The withdrawal kind as the held-request race specs drive it ($60 and $100 withdrawals to WALLET). */
export const RACE: RaceKind<Stack> = {
  ...QUEUE,
  messages: { ...WITHDRAWAL_MESSAGES, submitted: 'Withdrawal request submitted successfully' },
  admins: [ADMIN, ADMIN_2],
  statusOf: async (stack, withdrawalId) =>
    (await stack.call('getWithdrawal', { caller: caller(ADMIN.userId), callerRole: 'admin', withdrawalId }))
      .status,
  statuses: { pending: 'Pending', approve: 'Approved', reject: 'Rejected' },
  balance: { available: 'profitCents', held: 'withdrawalHoldCents' },
  // 16 x $60 = $960 of $1,000
  parallel: { amount: '60', accepted: 16 },
  raced: {
    fund: '300',
    amount: '100',
    balances: (won) => ({ profitCents: won === 'approve' ? 10_000 : 20_000 }),
  },
};
