import { formatDateTime } from '../../ui/dates';
import { StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { LinkButton } from '../../ui/ScreenParts';
import { MoneyQueuePage } from '../queues/MoneyQueuePage';
import { usePendingWithdrawalsInfiniteQuery } from '../queues/queueApi';
import type { Withdrawal } from './withdrawalTypes';

export const PENDING_WITHDRAWALS_MESSAGES = {
  fetched: 'Pending withdrawals fetched successfully',
  failed: 'Failed to fetch pending withdrawals.',
  empty: 'No pending withdrawals found.',
} as const;

/** /admin-pending-wallet: withdrawal requests waiting for approval; live queue 'withdrawals'. */
export function PendingWithdrawalsPage() {
  return (
    <MoneyQueuePage<Withdrawal>
      title="Pending Withdrawal"
      subtitle="Withdrawal requests waiting for approval. Open one to approve or reject it."
      label="Pending withdrawals"
      queue={{
        useQueue: usePendingWithdrawalsInfiniteQuery,
        claim: 'withdrawal',
        texts: { ...PENDING_WITHDRAWALS_MESSAGES, loading: 'Loading pending withdrawals...' },
        toastId: 'pending-withdrawals',
      }}
      cardOf={(w) => {
        const shown = withdrawalStatus(w.status);
        return {
          id: w._id ?? '',
          subject: 'Withdrawal',
          user: w.user,
          amount: w.amount,
          initiatedBy: w.initiatedBy,
          status: <StatusBadge status={w.status} tone={shown.tone} label={shown.label} />,
          facts: [
            { term: 'Requested', value: formatDateTime(w.requestDate) },
            {
              term: 'Wallet address',
              value: <span className="mono break-all">{w.walletAddress || 'N/A'}</span>,
            },
          ],
        };
      }}
      actions={(id) => (
        <LinkButton to={`/withdrawal/${id}`} size="sm">
          Review withdrawal
        </LinkButton>
      )}
    />
  );
}
