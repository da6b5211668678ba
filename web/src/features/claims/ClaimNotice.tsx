import { toast } from '../../ui/toast';
import { Button } from '../../ui/Button';
import { serverMessage } from '../queues/lists';
import type { ItemClaim } from './useClaims';
import type { HeldClaim } from './claimsSlice';

export const CLAIM_TEXT = {
  reviewedBy: (name: string) => `Being reviewed by ${name}`,
  yours: 'You are reviewing this item: other admins cannot decide it meanwhile.',
  takeOver: 'Take over',
  takeOverFailed: 'Could not take this item over',
} as const;

/** "Being reviewed by <name>" on a queue card (another admin holds the item). */
export function ClaimBadge({ claim }: { claim: HeldClaim | null }) {
  if (!claim) return null;
  return (
    <span className="claim-badge" role="status">
      {CLAIM_TEXT.reviewedBy(claim.adminName)}
    </span>
  );
}

/** On an open item: who reviews it; another admin's claim comes with a "Take over" button. */
export function ClaimNotice({ item }: { item: ItemClaim }) {
  if (item.other) {
    return (
      <div className="claim-notice claim-notice--other" role="status" aria-live="polite">
        <p>
          <strong>{CLAIM_TEXT.reviewedBy(item.other.adminName)}</strong>. Decisions are disabled while they
          review it.
        </p>
        <Button
          size="sm"
          variant="secondary"
          busy={item.busy}
          busyLabel="Taking over..."
          onClick={() =>
            void item.takeOver().catch((e: unknown) => {
              toast.error(serverMessage(e) || CLAIM_TEXT.takeOverFailed);
            })
          }
        >
          {CLAIM_TEXT.takeOver}
        </Button>
      </div>
    );
  }
  if (item.mine) {
    return (
      <p className="claim-notice claim-notice--mine" role="status" aria-live="polite">
        {CLAIM_TEXT.yours}
      </p>
    );
  }
  return null;
}
