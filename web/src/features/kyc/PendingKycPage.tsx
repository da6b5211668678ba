import { useState } from 'react';
import { toast } from '../../ui/toast';
import { Button } from '../../ui/Button';
import { StatusBadge } from '../../ui/StatusBadge';
import type { User } from '../auth/authTypes';
import { DECISION_BUTTONS, QueueCard, QueuePage, toastDecisionFailed } from '../queues/QueueParts';
import { usePendingKycInfiniteQuery } from '../queues/queueApi';
import { useAdminQueue } from '../queues/useAdminQueue';
import { claimsApi, decideWithClaim } from '../claims/claimsApi';
import { ClaimBadge } from '../claims/ClaimNotice';
import { kycApi } from './kycApi';

export const PENDING_KYC_MESSAGES = {
  approved: 'KYC approved successfully!',
  rejected: 'KYC rejected successfully!',
  approveFailed: 'Error approving KYC. Try again!',
  rejectFailed: 'Error rejecting KYC. Try again!',
  empty: 'No pending requests.',
  failed: 'Failed to fetch pending KYC requests.',
} as const;

/**
 * One side of a submission: the image itself (the server sends documents as attachments under a
 * sandboxing policy, never as a page of ours; an <img> still shows an image) and a download link; a PDF,
 * which no <img> shows, is its download link alone.
 */
const KYC_SIDES = [
  { side: 'front', doc: 'frontDoc', missing: 'Front missing' },
  { side: 'back', doc: 'backDoc', missing: 'Back missing' },
] as const;

function KycDocument(props: { url: string; side: 'front' | 'back'; owner: string; onOpen: () => void }) {
  const [image, setImage] = useState(true);
  return (
    <span className="kyc-doc">
      {image ? (
        <img
          src={props.url}
          alt={`${props.side === 'front' ? 'Front' : 'Back'} of ${props.owner}'s document`}
          loading="lazy"
          onError={() => setImage(false)}
        />
      ) : null}
      <a href={props.url} download onClick={props.onOpen}>
        Download {props.side}
      </a>
    </span>
  );
}

/** /pending-kyc: identity documents waiting for a decision; live queue 'kyc'; the list reloads after a decision. */
export function PendingKycPage() {
  const [busy, setBusy] = useState<{ id: string; decision: 'approve' | 'reject' } | null>(null);
  // a submission another admin reviews shows who, and cannot be decided here (features/claims)
  const { items, reload, reviewedByOther, body } = useAdminQueue<User>({
    useQueue: usePendingKycInfiniteQuery,
    claim: 'kyc',
    texts: { ...PENDING_KYC_MESSAGES, loading: 'Loading pending requests…' },
    toastId: 'pending-kyc',
  });

  /** Opening a submission's documents claims it: other admins see who reviews it (a failure changes nothing). */
  function openDocuments(id: string) {
    void claimsApi.claim('kyc', id).catch(() => undefined);
  }

  async function decide(id: string, decision: 'approve' | 'reject') {
    setBusy({ id, decision });
    try {
      // deciding claims the submission first: the gateway decides only with the claim
      await decideWithClaim('kyc', id, () => kycApi.decide(id, decision));
      toast.success(decision === 'approve' ? PENDING_KYC_MESSAGES.approved : PENDING_KYC_MESSAGES.rejected);
    } catch (e) {
      toastDecisionFailed(
        decision === 'approve' ? PENDING_KYC_MESSAGES.approveFailed : PENDING_KYC_MESSAGES.rejectFailed,
        e,
      );
    }
    await reload();
    setBusy(null);
  }

  return (
    <QueuePage
      title="Pending Kyc Verification"
      subtitle="Check that both sides are legible, valid and match the account holder before you approve."
      {...body}
      label="Pending KYC requests"
    >
      {items.map((u) => (
        <QueueCard
          key={u._id}
          label={`KYC of ${u.name}`}
          name={u.name}
          email={u.email}
          status={
            <StatusBadge
              status={u.kycStatus ?? ''}
              tone="warning"
              label={`KYC: ${u.kycStatus ?? 'Unknown'}`}
            />
          }
          facts={[
            {
              term: 'Documents',
              value: (
                <span className="cluster cluster--wide doc-links">
                  {KYC_SIDES.map(({ side, doc, missing }) => {
                    const url = u.kyc?.[doc];
                    return url ? (
                      <KycDocument
                        key={side}
                        url={url}
                        side={side}
                        owner={u.name}
                        onOpen={() => openDocuments(u._id)}
                      />
                    ) : (
                      <span key={side} className="muted">
                        {missing}
                      </span>
                    );
                  })}
                </span>
              ),
            },
          ]}
        >
          <ClaimBadge claim={reviewedByOther(u._id)} />
          {DECISION_BUTTONS.map(({ decision, label, variant }) => (
            <Button
              key={decision}
              size="sm"
              variant={variant}
              onClick={() => decide(u._id, decision)}
              disabled={busy !== null || reviewedByOther(u._id) !== null}
              aria-label={`${label} KYC of ${u.name}`}
            >
              {busy?.id === u._id && busy.decision === decision ? 'Processing...' : label}
            </Button>
          ))}
        </QueueCard>
      ))}
    </QueuePage>
  );
}
