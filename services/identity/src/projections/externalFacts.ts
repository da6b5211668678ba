/**
 * HOOK (not wired yet): facts other services own that the user view shows.
 *   - kyc:    KycSubmitted / KycApproved / KycRejected  -> kycStatus, kycFrontDoc, kycBackDoc
 *   - ledger: BalancesChanged                           -> balanceCents, investmentBalanceCents,
 *                                                          totalMaturityAmountCents
 * Those services' event contracts do not exist yet; the field names below are the expected ones
 * (userId, frontDoc, backDoc, depositCents, investedCents, profitCents) and must be checked against
 * their events.proto when they land. Wire with app/externalFacts.ts (subscribeIdempotent on
 * topicOf('kyc') and topicOf('ledger'), group 'identity') from main.ts.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { UserView } from './userView.js';

export const EXTERNAL_TOPICS = ['meridian.kyc.events', 'meridian.ledger.events'] as const;

export function projectExternalFact(view: UserView | null, event: StoredEvent): UserView | null {
  if (!view) return view;
  const d = event.data as Record<string, unknown>;
  const str = (k: string, fallback: string) => (typeof d[k] === 'string' ? (d[k] as string) : fallback);
  const cents = (k: string, fallback: number) => (typeof d[k] === 'number' && Number.isInteger(d[k]) ? (d[k] as number) : fallback);
  switch (event.type) {
    case 'KycSubmitted':
      return { ...view, kycStatus: 'Pending', kycFrontDoc: str('frontDoc', view.kycFrontDoc), kycBackDoc: str('backDoc', view.kycBackDoc), updatedAt: event.occurredAt };
    case 'KycApproved':
      return { ...view, kycStatus: 'Approved', updatedAt: event.occurredAt };
    case 'KycRejected':
      return { ...view, kycStatus: 'Rejected', updatedAt: event.occurredAt };
    case 'BalancesChanged':
      return {
        ...view,
        balanceCents: cents('depositCents', view.balanceCents),
        investmentBalanceCents: cents('investedCents', view.investmentBalanceCents),
        totalMaturityAmountCents: cents('profitCents', view.totalMaturityAmountCents),
        updatedAt: event.occurredAt,
      };
    default:
      return view;
  }
}
