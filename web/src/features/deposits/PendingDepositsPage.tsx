import { Link } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { personOf, serverMessage } from '../queues/lists';
import { initiatedByFacts, LiveHint, QueueBody, QueueCard } from '../queues/QueueParts';
import { useQueue } from '../queues/useQueue';
import { ClaimBadge } from '../claims/ClaimNotice';
import { useOthersClaims } from '../claims/useClaims';
import { depositsApi } from './depositsApi';
import { depositId, type Deposit } from './depositTypes';

export const PENDING_DEPOSITS_MESSAGES = {
  fetched: 'Pending deposits fetched successfully!',
  failed: 'Failed to fetch pending deposits.',
  empty: 'No pending deposits found.',
} as const;

/** /admin-pending-deposit: declared deposits waiting for confirmation; live queue 'deposits'. */
export function PendingDepositsPage() {
  // who reviews which deposit now (features/claims)
  const reviewedByOther = useOthersClaims('deposit');
  const { items, load, more } = useQueue<Deposit>('deposits', depositsApi.pendingPage, (ok, error) => {
    if (ok) toast.success(PENDING_DEPOSITS_MESSAGES.fetched, { toastId: 'pending-deposits-fetched' });
    else
      toast.error(serverMessage(error) || PENDING_DEPOSITS_MESSAGES.failed, {
        toastId: 'pending-deposits-failed',
      });
  });
  return (
    <div className="container section">
      <PageHeader
        eyebrow="Administration"
        title="Pending Deposits"
        subtitle="Declared deposits waiting for confirmation. Open one to confirm or reject it."
      />
      <LiveHint />
      <QueueBody
        more={more}
        load={load}
        count={items.length}
        loadingText="Loading pending deposits…"
        emptyText={PENDING_DEPOSITS_MESSAGES.empty}
        failedText={PENDING_DEPOSITS_MESSAGES.failed}
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
      </QueueBody>
    </div>
  );
}
