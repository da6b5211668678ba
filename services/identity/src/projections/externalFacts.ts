/**
 * Facts other services own that the user view shows.
 *   - kyc (WIRED, proto/meridian/kyc/v1/events.proto: user_id, front_doc, back_doc → JSON userId,
 *     frontDoc, backDoc): KycSubmitted / KycApproved / KycRejected -> kycStatus, kycFrontDoc, kycBackDoc
 *   - ledger (WIRED, proto/meridian/ledger/v1/events.proto BalancesChanged: user_id, deposit_cents,
 *     invested_cents, profit_cents → JSON userId, depositCents, investedCents, profitCents):
 *     -> balanceCents, investmentBalanceCents, totalMaturityAmountCents. Every BalancesChanged of a user
 *     comes from their ledger stream (ledger-<userId>), so the envelope version orders them: the view
 *     keeps the highest (`balancesVersion`) and ignores an older one delivered late.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { later, type UserView } from './userView.js';

export const KYC_TOPIC = 'meridian.kyc.events';
export const LEDGER_TOPIC = 'meridian.ledger.events';
export const EXTERNAL_TOPICS = [KYC_TOPIC, LEDGER_TOPIC] as const;
/** The topics identity consumes. */
export const WIRED_EXTERNAL_TOPICS: readonly string[] = [KYC_TOPIC, LEDGER_TOPIC];

/** The user view plus the ledger stream version its balances come from. */
type WithBalancesVersion = UserView & { balancesVersion?: number };

export function projectExternalFact(view: UserView | null, event: StoredEvent): UserView | null {
  if (!view) return view;
  const d = event.data as Record<string, unknown>;
  const str = (k: string, fallback: string) => (typeof d[k] === 'string' ? (d[k] as string) : fallback);
  const cents = (k: string, fallback: number) =>
    typeof d[k] === 'number' && Number.isInteger(d[k]) ? (d[k] as number) : fallback;
  const updatedAt = later(view.updatedAt, event.occurredAt);
  switch (event.type) {
    case 'KycSubmitted':
      return {
        ...view,
        kycStatus: 'Pending',
        kycFrontDoc: str('frontDoc', view.kycFrontDoc),
        kycBackDoc: str('backDoc', view.kycBackDoc),
        updatedAt,
      };
    case 'KycApproved':
      return { ...view, kycStatus: 'Approved', updatedAt };
    case 'KycRejected':
      return { ...view, kycStatus: 'Rejected', updatedAt };
    case 'BalancesChanged': {
      const seen = (view as WithBalancesVersion).balancesVersion ?? 0;
      if (event.version <= seen) return view;
      return {
        ...view,
        balancesVersion: event.version,
        balanceCents: cents('depositCents', view.balanceCents),
        investmentBalanceCents: cents('investedCents', view.investmentBalanceCents),
        totalMaturityAmountCents: cents('profitCents', view.totalMaturityAmountCents),
        updatedAt,
      } as WithBalancesVersion;
    }
    default:
      return view;
  }
}
