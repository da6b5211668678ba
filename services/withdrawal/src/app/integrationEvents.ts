/**
 * Domain events -> the integration events of proto/meridian/withdrawal/v1/events.proto (ts-proto
 * message objects, camelCase, cents), as the outbox relay's map. The source envelope is kept, so
 * consumers de-duplicate on the withdrawal service's event id.
 *
 * The request enters the admin queue when the ledger holds its funds: the domain HoldPlaced goes out as
 * WithdrawalRequested. The domain WithdrawalRequested (before the hold), HoldRefused and the ledger's
 * confirmations (HoldCaptured, HoldReleased: the process manager's bookkeeping) stay private.
 */
import type { DomainEvent, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import type * as pb from '@meridian/proto/meridian/withdrawal/v1/events';
import type { WithdrawalEvent } from '../domain/withdrawal.js';
import { userById, withdrawalById } from '../projections/withdrawalView.js';

export const WITHDRAWAL_INTEGRATION_EVENTS = [
  'WithdrawalRequested',
  'WithdrawalApproved',
  'WithdrawalRejected',
] as const;

export async function toIntegrationEvent(
  stored: StoredEvent,
  reads: StoreReads,
): Promise<DomainEvent | null> {
  const event = { type: stored.type, data: stored.data } as WithdrawalEvent;
  switch (event.type) {
    case 'HoldPlaced': {
      const doc = await withdrawalById(reads, event.data.withdrawalId);
      if (!doc) return null;
      const user = await userById(reads, doc.userId);
      const data: pb.WithdrawalRequested = {
        withdrawalId: doc.withdrawalId,
        userId: doc.userId,
        userName: user?.name ?? '',
        userEmail: user?.email ?? '',
        amountCents: doc.amountCents,
        walletAddress: doc.walletAddress,
        network: doc.network,
        requestDate: doc.requestDate,
      };
      return { type: 'WithdrawalRequested', data };
    }
    case 'WithdrawalApproved': {
      const data: pb.WithdrawalApproved = { ...event.data };
      return { type: event.type, data };
    }
    case 'WithdrawalRejected': {
      const data: pb.WithdrawalRejected = { ...event.data };
      return { type: event.type, data };
    }
    case 'WithdrawalRequested':
    case 'HoldRefused':
    case 'HoldCaptured':
    case 'HoldReleased':
      return null;
    default: {
      const _exhaustive: never = event;
      return null;
    }
  }
}
