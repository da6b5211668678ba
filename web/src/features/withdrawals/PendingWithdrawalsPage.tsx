import { Link } from 'react-router-dom';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { personOf } from '../queues/lists';
import { initiatedByFacts, QueueCard, QueuePage } from '../queues/QueueParts';
import { useAdminQueue } from '../queues/useAdminQueue';
import { ClaimBadge } from '../claims/ClaimNotice';
import { withdrawalsApi } from './withdrawalsApi';
import type { Withdrawal } from './withdrawalTypes';

export const PENDING_WITHDRAWALS_MESSAGES = {
  fetched: 'Pending withdrawals fetched successfully',
  failed: 'Failed to fetch pending withdrawals.',
  empty: 'No pending withdrawals found.',
  loading: 'Loading pending withdrawals...',
} as const;

/** /admin-pending-wallet: withdrawal requests waiting for approval; live queue 'withdrawals'. */
export function PendingWithdrawalsPage() {
  const { items, reviewedByOther, body } = useAdminQueue<Withdrawal>({
    queue: 'withdrawals',
    claim: 'withdrawal',
    fetchPage: withdrawalsApi.pendingPage,
    texts: PENDING_WITHDRAWALS_MESSAGES,
    toastId: 'pending-withdrawals',
  });
  return (
    <QueuePage
      title="Pending Withdrawal"
      subtitle="Withdrawal requests waiting for approval. Open one to approve or reject it."
      {...body}
      label="Pending withdrawals"
    >
      {items.map((w) => {
        const who = personOf(w.user);
        const shown = withdrawalStatus(w.status);
        return (
          <QueueCard
            key={w._id}
            label={`Withdrawal of ${formatUsd(w.amount)} by ${who.name}`}
            name={who.name}
            email={who.email}
            amount={formatUsd(w.amount)}
            status={<StatusBadge status={w.status} tone={shown.tone} label={shown.label} />}
            facts={[
              { term: 'Requested', value: formatDateTime(w.requestDate) },
              {
                term: 'Wallet address',
                value: <span className="mono break-all">{w.walletAddress || 'N/A'}</span>,
              },
              ...initiatedByFacts(w.initiatedBy),
            ]}
          >
            <ClaimBadge claim={reviewedByOther(w._id ?? '')} />
            <Link className="btn btn--primary btn--sm" to={`/withdrawal/${w._id}`}>
              Review withdrawal
            </Link>
          </QueueCard>
        );
      })}
    </QueuePage>
  );
}
