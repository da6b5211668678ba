import { Link } from 'react-router-dom';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { personOf } from '../queues/lists';
import { initiatedByFacts, QueueCard, QueuePage } from '../queues/QueueParts';
import { useAdminQueue } from '../queues/useAdminQueue';
import { ClaimBadge } from '../claims/ClaimNotice';
import { depositsApi } from './depositsApi';
import { depositId, type Deposit } from './depositTypes';

export const PENDING_DEPOSITS_MESSAGES = {
  fetched: 'Pending deposits fetched successfully!',
  failed: 'Failed to fetch pending deposits.',
  empty: 'No pending deposits found.',
} as const;

/** /admin-pending-deposit: declared deposits waiting for confirmation; live queue 'deposits'. */
export function PendingDepositsPage() {
  const { items, reviewedByOther, body } = useAdminQueue<Deposit>({
    queue: 'deposits',
    claim: 'deposit',
    fetchPage: depositsApi.pendingPage,
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
        const who = personOf(d.user);
        const id = depositId(d);
        return (
          <QueueCard
            key={id}
            label={`Deposit of ${formatUsd(d.amount)} by ${who.name}`}
            name={who.name}
            email={who.email}
            amount={formatUsd(d.amount)}
            status={<StatusBadge status={d.status} tone={depositTone(d.status)} />}
            facts={[
              { term: 'Requested', value: formatDateTime(d.createdAt) },
              ...initiatedByFacts(d.initiatedBy),
            ]}
          >
            <ClaimBadge claim={reviewedByOther(id)} />
            <Link className="btn btn--primary btn--sm" to={`/transaction/${id}`}>
              Review deposit
            </Link>
          </QueueCard>
        );
      })}
    </QueuePage>
  );
}
