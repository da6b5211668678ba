import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, EmptyState, PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { DetailList } from '../../ui/DetailList';
import { TextAreaField } from '../../ui/Field';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { depositTone, StatusBadge } from '../../ui/StatusBadge';
import { asStatusChanged, LIVE_EVENTS } from '../live/liveEvents';
import { useLiveEvents } from '../live/useLiveEvents';
import { personOf } from '../queues/lists';
import { toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided } from '../queues/queuesSlice';
import { decideWithClaim } from '../claims/claimsApi';
import { ClaimNotice } from '../claims/ClaimNotice';
import { useItemClaim } from '../claims/useClaims';
import { depositsApi } from './depositsApi';
import { depositId, type Deposit } from './depositTypes';

export const PAYMENT_MESSAGES = {
  missingId: 'Transaction ID is missing!',
  failed: 'Failed to fetch payment status',
  error: 'Error fetching payment status.',
  confirmFailed: 'Failed to confirm payment',
  rejectFailed: 'Failed to reject payment',
} as const;

type View = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; deposit: Deposit };

/** /transaction/{transactionId}: a declared deposit; the admin confirms or rejects it with optional notes. */
export function TransactionPage() {
  const { transactionId = '' } = useParams();
  const dispatch = useAppDispatch();
  const [view, setView] = useState<View>(
    transactionId ? { kind: 'loading' } : { kind: 'error', message: PAYMENT_MESSAGES.missingId },
  );
  const [notes, setNotes] = useState('');
  const [busy, setBusy] = useState<'confirm' | 'reject' | null>(null);
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  // an admin opening a pending deposit claims it: other admins see who reviews it (features/claims)
  const review = useItemClaim(
    'deposit',
    transactionId,
    isAdmin && view.kind === 'ready' && view.deposit.status === 'Pending',
  );

  const fetchStatus = useCallback(async () => {
    if (!transactionId) {
      toast.error(PAYMENT_MESSAGES.missingId, { toastId: 'payment-missing-id' });
      return;
    }
    try {
      const deposit = await depositsApi.view(transactionId);
      if (deposit) setView({ kind: 'ready', deposit });
      else {
        toast.error(PAYMENT_MESSAGES.failed, { toastId: 'payment-failed' });
        setView({ kind: 'error', message: PAYMENT_MESSAGES.failed });
      }
    } catch {
      toast.error(PAYMENT_MESSAGES.error, { toastId: 'payment-error' });
      setView({ kind: 'error', message: PAYMENT_MESSAGES.error });
    }
  }, [transactionId]);

  useEffect(() => {
    void fetchStatus();
  }, [fetchStatus]);

  useLiveEvents((e) => {
    const changed = e.event === LIVE_EVENTS.statusChanged ? asStatusChanged(e.payload) : null;
    if (changed?.kind !== 'deposit' || changed.id !== transactionId) return;
    setView((v) =>
      v.kind === 'ready' ? { kind: 'ready', deposit: { ...v.deposit, status: changed.status } } : v,
    );
  });

  async function decide(decision: 'confirm' | 'reject') {
    if (view.kind !== 'ready') return;
    setBusy(decision);
    try {
      const id = depositId(view.deposit) || transactionId;
      const message = await decideWithClaim('deposit', id, () =>
        depositsApi.decide(id, decision, notes.trim()),
      );
      const status = decision === 'confirm' ? 'Confirmed' : 'Rejected';
      toast.success(message || (decision === 'confirm' ? 'Payment confirmed' : 'Payment rejected'));
      setView({
        kind: 'ready',
        deposit: { ...view.deposit, status, notes: notes.trim() || view.deposit.notes },
      });
      dispatch(queueItemDecided({ queue: 'deposits', id: transactionId }));
    } catch (e) {
      toastDecisionFailed(
        decision === 'confirm' ? PAYMENT_MESSAGES.confirmFailed : PAYMENT_MESSAGES.rejectFailed,
        e,
      );
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Administration"
        title="Payment detail"
        subtitle="Check the declared amount against the wallet before you confirm."
        actions={
          <Link className="btn btn--secondary btn--sm" to="/admin-pending-deposit">
            Back to pending deposits
          </Link>
        }
      />
      {view.kind === 'loading' ? <LoadingBlock label="Loading payment…" /> : null}
      {view.kind === 'error' ? (
        <Card className="notice-card">
          <EmptyState title={view.message} />
        </Card>
      ) : null}
      {view.kind === 'ready' ? (
        <Card className="money-card">
          <div className="detail-head">
            <p className="detail-head__amount">{formatUsd(view.deposit.amount)}</p>
            <StatusBadge status={view.deposit.status} tone={depositTone(view.deposit.status)} />
          </div>
          <DetailList
            label="Payment"
            rows={[
              {
                term: 'Transaction ID',
                value: <span className="break-all">{depositId(view.deposit) || transactionId}</span>,
              },
              { term: 'User', value: personOf(view.deposit.user).name || '—' },
              { term: 'Email', value: personOf(view.deposit.user).email || '—' },
              { term: 'Requested', value: formatDateTime(view.deposit.createdAt) },
              { term: 'Notes', value: view.deposit.notes || '—' },
            ]}
          />
          {view.deposit.status === 'Pending' ? (
            <div className="decision">
              <ClaimNotice item={review} />
              <TextAreaField
                label="Notes"
                optional
                name="notes"
                rows={3}
                value={notes}
                onChange={(e) => setNotes(e.target.value)}
                placeholder="Reference, wallet checked, reason for a rejection…"
              />
              <div className="decision__buttons">
                <Button
                  onClick={() => decide('confirm')}
                  busy={busy === 'confirm'}
                  busyLabel="Processing..."
                  disabled={busy !== null || review.other !== null}
                >
                  Confirm payment
                </Button>
                <Button
                  variant="danger"
                  onClick={() => decide('reject')}
                  busy={busy === 'reject'}
                  busyLabel="Processing..."
                  disabled={busy !== null || review.other !== null}
                >
                  Reject payment
                </Button>
              </div>
            </div>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}
