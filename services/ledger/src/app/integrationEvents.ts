/**
 * Domain events -> the integration events of proto/meridian/ledger/v1/events.proto (ts-proto message
 * objects, camelCase, cents), built when the domain events are appended (platform app/integrationEvents.ts):
 * a deposit request carries the depositor's name and email as the directory knew them then.
 * ReferrerLinked and ReferralBonusEarned stay private to the ledger. The source envelope (id, stream,
 * version) is kept, so consumers de-duplicate on the ledger's event id.
 */
import { asIs, integrationMapping, publishedEvents } from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/ledger/v1/events';
import {
  HoldPurpose,
  type LedgerTransaction as ProtoTransaction,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import {
  LEDGER_REFERENCE_KEYS,
  type ChainFields,
  type HoldMovement,
  type HoldPurpose as DomainHoldPurpose,
  type LedgerEvent,
  type LedgerReferenceKey,
  type LedgerTransaction,
} from '../domain/account.js';
import type { DepositEvent } from '../domain/deposit.js';
import { userById } from '../projections/views.js';

export const holdPurposeToProto = (p: DomainHoldPurpose): HoldPurpose =>
  p === 'investment' ? HoldPurpose.HOLD_PURPOSE_INVESTMENT : HoldPurpose.HOLD_PURPOSE_WITHDRAWAL;

export function transactionToProto(
  t: LedgerTransaction & { userId: string } & Partial<ChainFields>,
): ProtoTransaction {
  const { transactionId, userId, idempotencyKey, reason, memo, postedAt } = t;
  const references = Object.fromEntries(LEDGER_REFERENCE_KEYS.map((k) => [k, t.references[k] ?? '']));
  const entries = t.entries.map(({ accountId, amountCents }) => ({ accountId, amountCents }));
  return {
    transactionId,
    userId,
    idempotencyKey,
    reason,
    memo,
    entries,
    postedAt,
    ...(references as Record<LedgerReferenceKey, string>),
    // its link in the user's hash chain (absent on a transaction stored before the chain: 0 and '')
    seq: t.seq ?? 0,
    prevHash: t.prevHash ?? '',
    hash: t.hash ?? '',
  };
}

/** A step of a hold goes out with the proto's HoldPurpose. */
const withHoldPurpose = ({ type, data }: { type: string; data: HoldMovement }) => ({
  type,
  data: { ...data, purpose: holdPurposeToProto(data.purpose) },
});

export const toIntegrationEvent = integrationMapping<LedgerEvent | DepositEvent>({
  // with the depositor's name and email as the ledger's directory knew them then
  DepositRequested: async ({ type, data }, reads) => {
    const user = await userById(reads, data.userId);
    const requested: pb.DepositRequested = {
      network: '',
      address: '',
      addressId: '',
      ...data,
      userName: user?.name ?? '',
      userEmail: user?.email ?? '',
    };
    return { type, data: requested };
  },
  DepositConfirmed: asIs<pb.DepositConfirmed>(),
  DepositRejected: asIs<pb.DepositRejected>(),
  FundsHeld: withHoldPurpose,
  FundsCaptured: withHoldPurpose,
  FundsReleased: withHoldPurpose,
  TransactionPosted: ({ type, data }) => {
    const posted: pb.TransactionPosted = { transaction: transactionToProto(data) };
    return { type, data: posted };
  },
  BalancesChanged: asIs<pb.BalancesChanged>(),
  ReferralBonusPaid: asIs<pb.ReferralBonusPaid>(),
  ReferrerLinked: null,
  ReferralBonusEarned: null,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
