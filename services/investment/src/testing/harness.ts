/**
 * Test harness: the real ledger (services/ledger start()) and the investment service, each on its own
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
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import { ADMIN, ADMIN_2, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import { type QueueKind, pageOf } from '@meridian/held-request/testing/queueSpecs';
import type { RaceKind } from '@meridian/held-request/testing/raceSpecs';
import { parseInvestmentConfig } from '../config.js';
import { INVESTMENT_MESSAGES } from '../domain/investment.js';
import { start } from '../main.js';
import { investmentView } from '../projections/investmentView.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

/** The request codec of each of the investment service's methods. */
const REQUESTS: RequestCodecs<inv.InvestmentServiceClient> = {
  listPlans: inv.ListPlansRequest,
  startInvest: inv.StartInvestRequest,
  investmentHistory: UserPageRequest,
  getInvestment: inv.GetInvestmentRequest,
  listPending: QueuePageRequest,
  countPending: QueueCountRequest,
  approveInvestment: inv.DecideInvestmentRequest,
  rejectInvestment: inv.DecideInvestmentRequest,
  settleDueForUser: inv.SettleDueForUserRequest,
  closeAccount: CloseAccountRequest,
};

export async function startStack(
  options: { plansJson?: string; personalData?: PersonalData; env?: Record<string, string> } = {},
) {
  const stack = await startHeldRequestStack({
    personalData: options.personalData,
    service: 'investment',
    ledgerSide: startLedgerForCallers,
    config: (env) =>
      parseInvestmentConfig({
        ...env,
        INVESTMENT_GRPC_ADDR: '127.0.0.1:0',
        ...options.env,
        ...(options.plansJson ? { PLANS_JSON: options.plansJson } : {}),
      }),
    start: (deps: Parameters<typeof start>[0]) => start(deps),
    requests: REQUESTS,
    client: inv.InvestmentServiceClient,
    decide: (call, decision, investmentId, admin) => {
      const request = { caller: caller(admin.userId), callerRole: admin.role, investmentId };
      switch (decision) {
        case 'approve':
          return call('approveInvestment', request);
        case 'reject':
          return call('rejectInvestment', request);
      }
    },
  });
  /** The user (verified) starts a Starter investment of `amount` (`investmentId`: its own); `submit`: its id. */
  const answer = (userId: string, amount: string, investmentId = '') =>
    stack.call('startInvest', {
      caller: caller(userId),
      callerRole: 'subscriber',
      callerVerified: true,
      amount,
      planName: 'Starter',
      investmentId,
    });
  const submit = async (userId: string, amount: string, investmentId = '') => {
    const { investment } = await answer(userId, amount, investmentId);
    if (!investment) throw new Error('startInvest answered no investment');
    return investment.investmentId;
  };
  return Object.assign(stack, {
    /** Credits the user's Deposit Balance through the ledger (deposit + admin confirmation). */
    async fund(userId: string, dollars: string) {
      const d = await stack.ledgerCall('createDeposit', {
        caller: caller(userId),
        callerRole: 'subscriber',
        amount: dollars,
        emailVerified: true,
      });
      await stack.ledgerCall('confirmDeposit', {
        caller: caller(ADMIN.userId),
        callerRole: 'admin',
        depositId: d.depositId,
        notes: '',
      });
    },
    answer,
    submit,
    /** The user (verified) starts a $100 Starter investment; answers its id. */
    request: (userId: string, investmentId = '') => submit(userId, '100', investmentId),
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** A page of a list of investments: their ids. */
const page = (out: inv.ListInvestmentsResponse) =>
  pageOf(out.investments, (i) => i.investmentId, out.nextCursor);

/** The investment kind as the held-request queue specs drive it. */
export const QUEUE: QueueKind<Stack> = {
  service: 'investment',
  maxPendingEnv: 'INVESTMENT_MAX_PENDING',
  counterId: investmentView.counter.id,
  startStack,
  listPending: async (stack, request) => page(await stack.call('listPending', request)),
  listOwn: async (stack, request) => page(await stack.call('investmentHistory', request)),
  countPending: (stack, request) => stack.call('countPending', request),
};

/** The investment kind as the held-request race specs drive it ($100 and $200 Starter investments). */
export const RACE: RaceKind<Stack> = {
  ...QUEUE,
  messages: { ...INVESTMENT_MESSAGES, submitted: 'Investment request submitted successfully' },
  admins: [ADMIN, ADMIN_2],
  statusOf: async (stack, investmentId) =>
    (await stack.call('getInvestment', { caller: caller(ADMIN.userId), callerRole: 'admin', investmentId }))
      .status,
  statuses: { pending: 'pending', approve: 'Active', reject: 'Rejected' },
  balance: { available: 'depositCents', held: 'investmentHoldCents', capturedInto: 'investedCents' },
  parallel: { amount: '100', accepted: 10 },
  raced: {
    fund: '1000',
    amount: '200',
    balances: (won) => ({ investedCents: won === 'approve' ? 40_000 : 20_000 }),
  },
};
