/**
 * The ledger's gRPC surface as tests call it (this package's harness and the callers' stack): a typed
 * `call(method, partialRequest)` over a real client, and identity's events as identity publishes them.
 */
import { randomUUID } from 'node:crypto';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { type Call, type RequestCodecs, codecCaller } from '@meridian/platform/testing/grpcCall';
import * as pb from '@meridian/proto/meridian/ledger/v1/ledger';
import {
  CloseAccountRequest,
  QueueCountRequest,
  QueuePageRequest,
  UserPageRequest,
} from '@meridian/proto/meridian/common/v1/common';
import type { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';

const REQUESTS: RequestCodecs<LedgerServiceClient> = {
  createDeposit: pb.CreateDepositRequest,
  getDeposit: pb.GetDepositRequest,
  listUserDeposits: UserPageRequest,
  listPendingDeposits: QueuePageRequest,
  countPendingDeposits: QueueCountRequest,
  confirmDeposit: pb.DecideDepositRequest,
  rejectDeposit: pb.DecideDepositRequest,
  placeHold: pb.PlaceHoldRequest,
  captureHold: pb.SettleHoldRequest,
  releaseHold: pb.SettleHoldRequest,
  settleMaturity: pb.SettleMaturityRequest,
  settleMaturities: pb.SettleMaturitiesRequest,
  adjustBalance: pb.AdjustBalanceRequest,
  getBalances: pb.GetBalancesRequest,
  listBalances: pb.ListBalancesRequest,
  listTransactions: pb.ListTransactionsRequest,
  getStatement: pb.GetStatementRequest,
  verifyLedger: pb.VerifyLedgerRequest,
  closeAccount: CloseAccountRequest,
};

export type { Call };

/** `call(method, partialRequest)` on a ledger client, the request completed with its defaults. */
export const ledgerCaller = (client: LedgerServiceClient): Call<LedgerServiceClient> =>
  codecCaller(client, REQUESTS);

/** An event of identity's topic as identity stores and publishes it. */
export function identityEvent(
  type: string,
  data: Record<string, unknown>,
  options: { id?: string; position?: number } = {},
): StoredEvent {
  return {
    id: options.id ?? randomUUID(),
    type,
    data,
    streamId: `user-${String(data.userId)}`,
    version: 1,
    position: options.position ?? 1,
    occurredAt: new Date().toISOString(),
    correlationId: randomUUID(),
    causationId: null,
    actor: null,
  };
}

/** The data of identity's UserRegistered, with the fields a test does not care about filled in. */
export const userRegistered = (
  userId: string,
  fields: { name: string; email: string; referralCode?: string; referredBy?: string },
) => ({
  userId,
  role: 'subscriber',
  referralCode: '',
  referredBy: '',
  ...fields,
  registeredAt: new Date().toISOString(),
  phone: '',
  country: '',
});
