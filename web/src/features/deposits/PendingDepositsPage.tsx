import { formatDateTime } from '../../ui/dates';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { LinkButton } from '../../ui/ScreenParts';
import { MoneyQueuePage } from '../queues/MoneyQueuePage';
import { usePendingDepositsInfiniteQuery } from '../queues/queueApi';
import { depositId, type Deposit } from './depositTypes';

export const PENDING_DEPOSITS_MESSAGES = {
  fetched: 'Pending deposits fetched successfully!',
  failed: 'Failed to fetch pending deposits.',
  empty: 'No pending deposits found.',
} as const;

/** /admin-pending-deposit: declared deposits waiting for confirmation; live queue 'deposits'. */
export function PendingDepositsPage() {
  return (
    <MoneyQueuePage<Deposit>
      title="Pending Deposits"
      subtitle="Declared deposits waiting for confirmation. Open one to confirm or reject it."
      label="Pending deposits"
      queue={{
        useQueue: usePendingDepositsInfiniteQuery,
        claim: 'deposit',
        texts: { ...PENDING_DEPOSITS_MESSAGES, loading: 'Loading pending deposits…' },
        toastId: 'pending-deposits',
      }}
      cardOf={(d) => ({
        id: depositId(d),
        subject: 'Deposit',
        user: d.user,
        amount: d.amount,
        initiatedBy: d.initiatedBy,
        status: <StatusBadge status={d.status} tone={depositTone(d.status)} />,
        facts: [{ term: 'Requested', value: formatDateTime(d.createdAt) }],
      })}
      actions={(id) => (
        <LinkButton to={`/transaction/${id}`} size="sm">
          Review deposit
        </LinkButton>
      )}
    />
  );
}
