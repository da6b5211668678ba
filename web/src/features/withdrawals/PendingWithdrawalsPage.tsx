import { formatDateTime } from '../../ui/dates';
import { StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { MoneyQueueCard, QueuePage } from '../queues/QueueParts';
import { usePendingWithdrawalsInfiniteQuery } from '../queues/queueApi';
import { useAdminQueue } from '../queues/useAdminQueue';
import { ClaimBadge } from '../claims/ClaimNotice';
import type { Withdrawal } from './withdrawalTypes';
import { LinkButton } from '../../ui/ScreenParts';

export const PENDING_WITHDRAWALS_MESSAGES = {
  fetched: 'Pending withdrawals fetched successfully',
  failed: 'Failed to fetch pending withdrawals.',
  empty: 'No pending withdrawals found.',
  loading: 'Loading pending withdrawals...',
} as const;

/** /admin-pending-wallet: withdrawal requests waiting for approval; live queue 'withdrawals'. */
export function PendingWithdrawalsPage() {
  const { items, reviewedByOther, body } = useAdminQueue<Withdrawal>({
    useQueue: usePendingWithdrawalsInfiniteQuery,
    claim: 'withdrawal',
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
        const shown = withdrawalStatus(w.status);
        return (
          <MoneyQueueCard
            key={w._id}
            subject="Withdrawal"
            user={w.user}
            amount={w.amount}
            initiatedBy={w.initiatedBy}
            status={<StatusBadge status={w.status} tone={shown.tone} label={shown.label} />}
            facts={[
              { term: 'Requested', value: formatDateTime(w.requestDate) },
              {
                term: 'Wallet address',
                value: <span className="mono break-all">{w.walletAddress || 'N/A'}</span>,
              },
            ]}
          >
            <ClaimBadge claim={reviewedByOther(w._id ?? '')} />
            <LinkButton to={`/withdrawal/${w._id}`} size="sm">
              Review withdrawal
            </LinkButton>
          </MoneyQueueCard>
        );
      })}
    </QueuePage>
  );
}
