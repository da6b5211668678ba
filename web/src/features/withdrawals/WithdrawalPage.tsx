import { useParams } from 'react-router-dom';
import { PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { personOf } from '../queues/lists';
import { DecisionPanel } from '../queues/DecisionPanel';
import { useDecideWithdrawalMutation, useWithdrawalQuery } from './withdrawalsApi';
import { LinkButton, NoticeCard } from '../../ui/ScreenParts';

export const WITHDRAWAL_MESSAGES = {
  fetchFailed: 'Failed to fetch withdrawal details.',
  approved: 'Withdrawal approved!',
  rejected: 'Withdrawal rejected!',
  approveFailed: 'Failed to approve withdrawal.',
  rejectFailed: 'Failed to reject withdrawal.',
} as const;

const CHOICES = [
  {
    decision: 'approve',
    label: 'Approve',
    succeeded: WITHDRAWAL_MESSAGES.approved,
    failed: WITHDRAWAL_MESSAGES.approveFailed,
  },
  {
    decision: 'reject',
    label: 'Reject',
    succeeded: WITHDRAWAL_MESSAGES.rejected,
    failed: WITHDRAWAL_MESSAGES.rejectFailed,
  },
] as const;

/** /withdrawal/{id}: one withdrawal; Approve and Reject only while it is 'Pending'. */
export function WithdrawalPage() {
  const { id = '' } = useParams();
  const [decideWithdrawal] = useDecideWithdrawalMutation();
  const query = useWithdrawalQuery(id);
  const w = query.data;

  const back = (
    <LinkButton to="/admin-pending-wallet" variant="secondary" size="sm">
      Back to pending withdrawals
    </LinkButton>
  );

  if (query.isError || (query.isSuccess && !w)) {
    return (
      <div className="container container--narrow section">
        <NoticeCard title={WITHDRAWAL_MESSAGES.fetchFailed} footer={back} />
      </div>
    );
  }

  const shown = w ? withdrawalStatus(w.status) : null;
  const who = w ? personOf(w.user) : null;
  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Administration"
        title="Withdrawal detail"
        subtitle="Check the wallet address before you approve: a paid withdrawal cannot be reversed."
        actions={back}
      />
      {!w ? <LoadingBlock label="Loading withdrawal…" /> : null}
      {w && shown && who ? (
        <DecisionPanel
          kind="withdrawal"
          id={id}
          amount={formatUsd(w.amount)}
          status={<StatusBadge status={w.status} tone={shown.tone} label={shown.label} />}
          detailsLabel="Withdrawal"
          details={[
            { term: 'User', value: [who.name, who.email].filter(Boolean).join(' · ') || '—' },
            { term: 'Amount', value: formatUsd(w.amount) },
            {
              term: 'Wallet address',
              value: <span className="mono break-all">{w.walletAddress || 'N/A'}</span>,
            },
            { term: 'Status', value: shown.label },
            { term: 'Requested', value: formatDateTime(w.requestDate) },
          ]}
          pending={w.status === 'Pending'}
          choices={CHOICES}
          send={(decision, target) => decideWithdrawal({ id: target, decision }).unwrap()}
          ignoreServerMessage
          layout="inline"
        />
      ) : null}
    </div>
  );
}
