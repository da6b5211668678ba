/**
 * Domain events -> the integration events of proto/meridian/ledger/v1/events.proto (ts-proto message
 * objects, camelCase, cents). ReferrerLinked and ReferralBonusEarned stay private to the ledger.
 * Used as the outbox relay's map; the source envelope (id, stream, version) is kept, so consumers
 * de-duplicate on the ledger's event id.
 */
import type { DomainEvent, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import type * as pb from '@meridian/proto/meridian/ledger/v1/events';
import { HoldPurpose } from '@meridian/proto/meridian/ledger/v1/ledger';
import type { HoldPurpose as DomainHoldPurpose, LedgerEvent, LedgerTransaction } from '../domain/account.js';
import type { DepositEvent } from '../domain/deposit.js';
import { userById } from '../projections/views.js';

export const LEDGER_INTEGRATION_EVENTS = [
  'DepositRequested',
  'DepositConfirmed',
  'DepositRejected',
  'FundsHeld',
  'FundsCaptured',
  'FundsReleased',
  'TransactionPosted',
  'BalancesChanged',
  'ReferralBonusPaid',
] as const;

export const holdPurposeToProto = (p: DomainHoldPurpose): HoldPurpose =>
  p === 'investment' ? HoldPurpose.HOLD_PURPOSE_INVESTMENT : HoldPurpose.HOLD_PURPOSE_WITHDRAWAL;

export function transactionToProto(t: LedgerTransaction & { userId: string }) {
  return {
    transactionId: t.transactionId,
    userId: t.userId,
    idempotencyKey: t.idempotencyKey,
    reason: t.reason,
    memo: t.memo,
    entries: t.entries.map((e) => ({ accountId: e.accountId, amountCents: e.amountCents })),
    postedAt: t.postedAt,
    depositId: t.references.depositId ?? '',
    investmentId: t.references.investmentId ?? '',
    withdrawalId: t.references.withdrawalId ?? '',
    holdId: t.references.holdId ?? '',
    adminId: t.references.adminId ?? '',
    refereeId: t.references.refereeId ?? '',
  };
}

export async function toIntegrationEvent(
  stored: StoredEvent,
  reads: StoreReads,
): Promise<DomainEvent | null> {
  const event = { type: stored.type, data: stored.data } as LedgerEvent | DepositEvent;
  switch (event.type) {
    case 'DepositRequested': {
      const user = await userById(reads, event.data.userId);
      const data: pb.DepositRequested = {
        ...event.data,
        userName: user?.name ?? '',
        userEmail: user?.email ?? '',
      };
      return { type: event.type, data };
    }
    case 'DepositConfirmed': {
      const data: pb.DepositConfirmed = { ...event.data };
      return { type: event.type, data };
    }
    case 'DepositRejected': {
      const data: pb.DepositRejected = { ...event.data };
      return { type: event.type, data };
    }
    case 'FundsHeld': {
      const data: pb.FundsHeld = { ...event.data, purpose: holdPurposeToProto(event.data.purpose) };
      return { type: event.type, data };
    }
    case 'FundsCaptured': {
      const data: pb.FundsCaptured = { ...event.data, purpose: holdPurposeToProto(event.data.purpose) };
      return { type: event.type, data };
    }
    case 'FundsReleased': {
      const data: pb.FundsReleased = { ...event.data, purpose: holdPurposeToProto(event.data.purpose) };
      return { type: event.type, data };
    }
    case 'TransactionPosted': {
      const data: pb.TransactionPosted = { transaction: transactionToProto(event.data) };
      return { type: event.type, data };
    }
    case 'BalancesChanged': {
      const data: pb.BalancesChanged = { ...event.data };
      return { type: event.type, data };
    }
    case 'ReferralBonusPaid': {
      const data: pb.ReferralBonusPaid = { ...event.data };
      return { type: event.type, data };
    }
    case 'ReferrerLinked':
    case 'ReferralBonusEarned':
      return null;
    default: {
      const _exhaustive: never = event;
      return null;
    }
  }
}
