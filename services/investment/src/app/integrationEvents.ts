/**
 * Domain events -> the integration events of proto/meridian/investment/v1/events.proto (ts-proto
 * message objects, camelCase, cents), as the outbox relay's map. The source envelope (id, stream,
 * version) is kept, so consumers de-duplicate on the investment service's event id.
 *
 * The request enters the admin queue when the ledger holds its funds: the domain HoldPlaced goes out
 * as InvestmentRequested. The domain InvestmentRequested (before the hold), HoldRefused (the
 * investor got the refusal as the answer) and the ledger's confirmations (HoldCaptured, HoldReleased,
 * MaturitySettled: the process manager's bookkeeping) stay private.
 */
import type { DomainEvent, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import type * as pb from '@meridian/proto/meridian/investment/v1/events';
import type { InvestmentEvent } from '../domain/investment.js';
import { investmentById, userById } from '../projections/investmentView.js';

export const INVESTMENT_INTEGRATION_EVENTS = [
  'InvestmentRequested',
  'InvestmentApproved',
  'InvestmentRejected',
  'InvestmentMatured',
] as const;

export async function toIntegrationEvent(
  stored: StoredEvent,
  reads: StoreReads,
): Promise<DomainEvent | null> {
  const event = { type: stored.type, data: stored.data } as InvestmentEvent;
  switch (event.type) {
    case 'HoldPlaced': {
      const doc = await investmentById(reads, event.data.investmentId);
      if (!doc) return null;
      const user = await userById(reads, doc.userId);
      const data: pb.InvestmentRequested = {
        investmentId: doc.investmentId,
        userId: doc.userId,
        userName: user?.name ?? '',
        userEmail: user?.email ?? '',
        planName: doc.planName,
        amountCents: doc.amountCents,
        rateBps: doc.rateBps,
        durationMs: doc.durationMs,
        requestedAt: doc.requestedAt,
      };
      return { type: 'InvestmentRequested', data };
    }
    case 'InvestmentApproved': {
      const data: pb.InvestmentApproved = { ...event.data };
      return { type: event.type, data };
    }
    case 'InvestmentRejected': {
      const data: pb.InvestmentRejected = { ...event.data };
      return { type: event.type, data };
    }
    case 'InvestmentMatured': {
      const data: pb.InvestmentMatured = { ...event.data };
      return { type: event.type, data };
    }
    case 'InvestmentRequested':
    case 'HoldRefused':
    case 'HoldCaptured':
    case 'HoldReleased':
    case 'MaturitySettled':
      return null;
    default: {
      const _exhaustive: never = event;
      return null;
    }
  }
}
