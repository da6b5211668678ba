import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { formatDateTime } from '../../ui/dates';
import { TextAreaField } from '../../ui/Field';
import { formatUsd } from '../../ui/format';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { personOf } from '../queues/lists';
import { DecisionPanel } from '../queues/DecisionPanel';
import { RecordDetailPage } from '../queues/RecordDetailPage';
import { networkOf } from '../support/supportTypes';
import { useDecideDepositMutation, useDepositQuery } from './depositsApi';
import { depositId } from './depositTypes';

export const PAYMENT_MESSAGES = {
  missingId: 'Transaction ID is missing!',
  failed: 'Failed to fetch payment status',
  error: 'Error fetching payment status.',
  confirmFailed: 'Failed to confirm payment',
  rejectFailed: 'Failed to reject payment',
} as const;

const CHOICES = [
  {
    decision: 'confirm',
    label: 'Confirm payment',
    succeeded: 'Payment confirmed',
    failed: PAYMENT_MESSAGES.confirmFailed,
  },
  {
    decision: 'reject',
    label: 'Reject payment',
    succeeded: 'Payment rejected',
    failed: PAYMENT_MESSAGES.rejectFailed,
  },
] as const;

/** /transaction/{transactionId}: a declared deposit; the admin confirms or rejects it with optional notes. */
export function TransactionPage() {
  const { transactionId = '' } = useParams();
  const [notes, setNotes] = useState('');
  const [decideDeposit] = useDecideDepositMutation();
  const query = useDepositQuery(transactionId, { skip: !transactionId });
  const deposit = query.data;
  const failure = !transactionId
    ? PAYMENT_MESSAGES.missingId
    : query.isError
      ? PAYMENT_MESSAGES.error
      : query.isSuccess && !deposit
        ? PAYMENT_MESSAGES.failed
        : null;

  useEffect(() => {
    if (failure === PAYMENT_MESSAGES.missingId)
      toast.error(PAYMENT_MESSAGES.missingId, { toastId: 'payment-missing-id' });
    else if (failure === PAYMENT_MESSAGES.failed) toast.error(failure, { toastId: 'payment-failed' });
    else if (failure === PAYMENT_MESSAGES.error) toast.error(failure, { toastId: 'payment-error' });
  }, [failure]);

  return (
    <RecordDetailPage
      eyebrow="Administration"
      title="Payment detail"
      subtitle="Check the declared amount against the wallet before you confirm."
      back={{ to: '/admin-pending-deposit', label: 'Back to pending deposits' }}
      loadingLabel="Loading payment…"
      failure={failure}
      record={deposit}
    >
      {(deposit) => (
        <DecisionPanel
          kind="deposit"
          id={transactionId}
          decisionId={depositId(deposit)}
          amount={formatUsd(deposit.amount)}
          status={<StatusBadge status={deposit.status} tone={depositTone(deposit.status)} />}
          detailsLabel="Payment"
          details={[
            // the deposit address the person declared sending to, first, beside the amount
            ...(deposit.sentTo
              ? [
                  { term: 'Network', value: networkOf(deposit.sentTo.network).label || '—' },
                  { term: 'Sent to', value: <code className="break-all">{deposit.sentTo.address}</code> },
                ]
              : []),
            {
              term: 'Transaction ID',
              value: <span className="break-all">{depositId(deposit) || transactionId}</span>,
            },
            { term: 'User', value: personOf(deposit.user).name || '—' },
            { term: 'Email', value: personOf(deposit.user).email || '—' },
            { term: 'Requested', value: formatDateTime(deposit.createdAt) },
            { term: 'Notes', value: deposit.notes || '—' },
          ]}
          pending={deposit.status === 'Pending'}
          choices={CHOICES}
          send={(decision, id) =>
            decideDeposit({
              transactionId: id,
              decision,
              notes: notes.trim(),
              detailKey: transactionId,
            }).unwrap()
          }
          layout="section"
        >
          <TextAreaField
            label="Notes"
            optional
            name="notes"
            rows={3}
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
            placeholder="Reference, wallet checked, reason for a rejection…"
          />
        </DecisionPanel>
      )}
    </RecordDetailPage>
  );
}
