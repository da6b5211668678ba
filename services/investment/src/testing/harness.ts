/**
 * Test harness: the real ledger (services/ledger start()) and the investment service, each on its own
 * SQLite ':memory:' store, sharing one in-process bus, reached by real gRPC clients: the held-request
 * test stack (@meridian/held-request testing/testStack.ts) with the ledger's `startLedgerForCallers`.
 */
import { startHeldRequestStack } from '@meridian/held-request/testing/testStack';
import type { PersonalData } from '@meridian/platform/personalData';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import { ADMIN, caller, startLedgerForCallers } from '@meridian/ledger/testing/callerStack';
import { queueKind } from '@meridian/held-request/testing/queueSpecs';
import { parseInvestmentConfig } from '../config.js';
import { start } from '../main.js';
import { investmentView } from '../projections/investmentView.js';

export { ADMIN, ADMIN_2, caller, grpcError, type Call } from '@meridian/ledger/testing/callerStack';

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
        ...options.env,
        ...(options.plansJson ? { PLANS_JSON: options.plansJson } : {}),
      }),
    start: (deps: Parameters<typeof start>[0]) => start(deps),
    proto: inv,
    client: inv.InvestmentServiceClient,
  });
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
    /** The user (verified) starts a $100 Starter investment; answers its id. */
    request: (userId: string, investmentId = '') =>
      stack.submit('startInvest', userId, '100', { planName: 'Starter' }, investmentId),
  });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** The investment kind as the held-request queue specs drive it. */
export const QUEUE = queueKind('investment', 'investmentHistory', investmentView, startStack);
