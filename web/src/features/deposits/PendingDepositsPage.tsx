import { formatDateTime } from '../../ui/dates';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { MoneyQueueCard, QueuePage } from '../queues/QueueParts';
import { usePendingDepositsInfiniteQuery } from '../queues/queueApi';
import { useAdminQueue } from '../queues/useAdminQueue';
import { ClaimBadge } from '../claims/ClaimNotice';
import { depositId, type Deposit } from './depositTypes';
import { LinkButton } from '../../ui/ScreenParts';

export const PENDING_DEPOSITS_MESSAGES = {
  fetched: 'Pending deposits fetched successfully!',
  failed: 'Failed to fetch pending deposits.',
  empty: 'No pending deposits found.',
} as const;

/** /admin-pending-deposit: declared deposits waiting for confirmation; live queue 'deposits'. */
export function PendingDepositsPage() {
  const { items, reviewedByOther, body } = useAdminQueue<Deposit>({
    useQueue: usePendingDepositsInfiniteQuery,
    claim: 'deposit',
    texts: { ...PENDING_DEPOSITS_MESSAGES, loading: 'Loading pending deposits…' },
    toastId: 'pending-deposits',
  });
  return (
    <QueuePage
      title="Pending Deposits"
      subtitle="Declared deposits waiting for confirmation. Open one to confirm or reject it."
      {...body}
      label="Pending deposits"
    >
      {items.map((d) => {
        const id = depositId(d);
        return (
          <MoneyQueueCard
            key={id}
            subject="Deposit"
            user={d.user}
            amount={d.amount}
            initiatedBy={d.initiatedBy}
            status={<StatusBadge status={d.status} tone={depositTone(d.status)} />}
            facts={[{ term: 'Requested', value: formatDateTime(d.createdAt) }]}
          >
            <ClaimBadge claim={reviewedByOther(id)} />
            <LinkButton to={`/transaction/${id}`} size="sm">
              Review deposit
            </LinkButton>
          </MoneyQueueCard>
        );
      })}
    </QueuePage>
  );
}
