import { useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppDispatch } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { personOf } from '../queues/lists';
import { initiatedByFacts, QueueCard, QueuePage, toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided } from '../queues/queuesSlice';
import { useAdminQueue } from '../queues/useAdminQueue';
import { decideWithClaim } from '../claims/claimsApi';
import { ClaimBadge } from '../claims/ClaimNotice';
import { INVESTMENT_DECISION_MESSAGES, investmentsApi, useDecideInvestmentMutation } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';

export const PENDING_INVESTMENTS_MESSAGES = {
  empty: 'No pending investments found.',
  failed: 'Failed to fetch pending investments.',
} as const;

/** /admin-pending-investment: approve or reject removes the item; live queue 'investments'. */
export function PendingInvestmentsPage() {
  const dispatch = useAppDispatch();
  const [decideInvestment] = useDecideInvestmentMutation();
  const [busy, setBusy] = useState<{ id: string; decision: 'approve' | 'reject' } | null>(null);
  // an item another admin reviews shows who, and cannot be decided here (features/claims)
  const { items, reviewedByOther, body } = useAdminQueue<Investment>({
    queue: 'investments',
    claim: 'investment',
    fetchPage: investmentsApi.pendingPage,
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
      dispatch(queueItemDecided({ queue: 'investments', id }));
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
        const who = personOf(i.user);
        const other = reviewedByOther(id);
        return (
          <QueueCard
            key={id}
            label={`${planNameOf(i)} investment of ${formatUsd(i.amount)} by ${who.name}`}
            name={who.name}
            email={who.email}
            amount={formatUsd(i.amount)}
            status={<StatusBadge status={i.status} tone={investmentTone(i.status)} />}
            facts={[
              { term: 'Plan', value: planNameOf(i) || '—' },
              { term: 'At maturity', value: maturityText(i) },
              { term: 'Requested', value: formatDateTime(i.createdAt ?? i.startDate) },
              ...initiatedByFacts(i.initiatedBy),
            ]}
          >
            <ClaimBadge claim={other} />
            <Button
              size="sm"
              onClick={() => decide(id, 'approve')}
              busy={busy?.id === id && busy.decision === 'approve'}
              busyLabel="Processing..."
              disabled={busy !== null || other !== null}
            >
              Approve
            </Button>
            <Button
              size="sm"
              variant="danger"
              onClick={() => decide(id, 'reject')}
              busy={busy?.id === id && busy.decision === 'reject'}
              busyLabel="Processing..."
              disabled={busy !== null || other !== null}
            >
              Reject
            </Button>
            <Link className="btn btn--ghost btn--sm" to={`/investment/${id}`}>
              Details
            </Link>
          </QueueCard>
        );
      })}
    </QueuePage>
  );
}
