import { useState } from 'react';
import { toast } from '../../ui/toast';
import { useServerApiDispatch } from '../../app/api';
import { Button } from '../../ui/Button';
import { formatDateTime } from '../../ui/dates';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { DECISION_BUTTONS, MoneyQueueCard, QueuePage, toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided, usePendingInvestmentsInfiniteQuery } from '../queues/queueApi';
import { useAdminQueue } from '../queues/useAdminQueue';
import { decideWithClaim } from '../claims/claimsApi';
import { ClaimBadge } from '../claims/ClaimNotice';
import { INVESTMENT_DECISION_MESSAGES, useDecideInvestmentMutation } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';
import { LinkButton } from '../../ui/ScreenParts';

export const PENDING_INVESTMENTS_MESSAGES = {
  empty: 'No pending investments found.',
  failed: 'Failed to fetch pending investments.',
} as const;

/** /admin-pending-investment: approve or reject removes the item; live queue 'investments'. */
export function PendingInvestmentsPage() {
  const dispatch = useServerApiDispatch();
  const [decideInvestment] = useDecideInvestmentMutation();
  const [busy, setBusy] = useState<{ id: string; decision: 'approve' | 'reject' } | null>(null);
  // an item another admin reviews shows who, and cannot be decided here (features/claims)
  const { items, reviewedByOther, body } = useAdminQueue<Investment>({
    useQueue: usePendingInvestmentsInfiniteQuery,
    claim: 'investment',
    texts: { ...PENDING_INVESTMENTS_MESSAGES, loading: 'Loading pending investments…' },
    toastId: 'pending-investments',
  });

  async function decide(id: string, decision: 'approve' | 'reject') {
    setBusy({ id, decision });
    try {
      // deciding from the list claims the item first: the gateway decides only with the claim
      const message = await decideWithClaim('investment', id, () =>
        decideInvestment({ id, decision }).unwrap(),
      );
      toast.success(
        message ||
          (decision === 'approve'
            ? INVESTMENT_DECISION_MESSAGES.approved
            : INVESTMENT_DECISION_MESSAGES.rejected),
      );
      dispatch(queueItemDecided('investments', id));
    } catch (e) {
      toastDecisionFailed(
        decision === 'approve'
          ? INVESTMENT_DECISION_MESSAGES.approveFailed
          : INVESTMENT_DECISION_MESSAGES.rejectFailed,
        e,
      );
    } finally {
      setBusy(null);
    }
  }

  return (
    <QueuePage
      title="Pending Investment"
      subtitle="Investments waiting for approval. The amount is already reserved from the investor’s Deposit Balance."
      {...body}
      label="Pending investments"
    >
      {items.map((i) => {
        const id = investmentIdOf(i);
        const other = reviewedByOther(id);
        return (
          <MoneyQueueCard
            key={id}
            subject={`${planNameOf(i)} investment`}
            user={i.user}
            amount={i.amount}
            initiatedBy={i.initiatedBy}
            status={<StatusBadge status={i.status} tone={investmentTone(i.status)} />}
            facts={[
              { term: 'Plan', value: planNameOf(i) || '—' },
              { term: 'At maturity', value: maturityText(i) },
              { term: 'Requested', value: formatDateTime(i.createdAt ?? i.startDate) },
            ]}
          >
            <ClaimBadge claim={other} />
            {DECISION_BUTTONS.map(({ decision, label, variant }) => (
              <Button
                key={decision}
                size="sm"
                variant={variant}
                onClick={() => decide(id, decision)}
                busy={busy?.id === id && busy.decision === decision}
                busyLabel="Processing..."
                disabled={busy !== null || other !== null}
              >
                {label}
              </Button>
            ))}
            <LinkButton to={`/investment/${id}`} variant="ghost" size="sm">
              Details
            </LinkButton>
          </MoneyQueueCard>
        );
      })}
    </QueuePage>
  );
}
