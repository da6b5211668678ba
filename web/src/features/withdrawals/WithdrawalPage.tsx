import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, EmptyState, PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { DetailList } from '../../ui/DetailList';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { asStatusChanged, LIVE_EVENTS } from '../live/liveEvents';
import { useLiveEvents } from '../live/useLiveEvents';
import { personOf } from '../queues/lists';
import { toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided } from '../queues/queuesSlice';
import { decideWithClaim } from '../claims/claimsApi';
import { ClaimNotice } from '../claims/ClaimNotice';
import { useItemClaim } from '../claims/useClaims';
import { withdrawalsApi } from './withdrawalsApi';
import type { Withdrawal } from './withdrawalTypes';

export const WITHDRAWAL_MESSAGES = {
  fetchFailed: 'Failed to fetch withdrawal details.',
  approved: 'Withdrawal approved!',
  rejected: 'Withdrawal rejected!',
  approveFailed: 'Failed to approve withdrawal.',
  rejectFailed: 'Failed to reject withdrawal.',
} as const;

type View = { kind: 'loading' } | { kind: 'error' } | { kind: 'ready'; withdrawal: Withdrawal };

/** /withdrawal/{id}: one withdrawal; Approve and Reject only while it is 'Pending'. */
export function WithdrawalPage() {
  const { id = '' } = useParams();
  const dispatch = useAppDispatch();
  const [view, setView] = useState<View>({ kind: 'loading' });
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  // an admin opening a pending withdrawal claims it: other admins see who reviews it (features/claims)
  const review = useItemClaim(
    'withdrawal',
    id,
    isAdmin && view.kind === 'ready' && view.withdrawal.status === 'Pending',
  );

  useEffect(() => {
    let live = true;
    withdrawalsApi.one(id).then(
      (w) => live && setView(w ? { kind: 'ready', withdrawal: w } : { kind: 'error' }),
      () => live && setView({ kind: 'error' }),
    );
    return () => {
      live = false;
    };
  }, [id]);

  useLiveEvents((e) => {
    const changed = e.event === LIVE_EVENTS.statusChanged ? asStatusChanged(e.payload) : null;
    if (changed?.kind !== 'withdrawal' || changed.id !== id) return;
    setView((v) =>
      v.kind === 'ready' ? { kind: 'ready', withdrawal: { ...v.withdrawal, status: changed.status } } : v,
    );
  });

  async function decide(decision: 'approve' | 'reject') {
    if (view.kind !== 'ready') return;
    setBusy(decision);
    try {
      await decideWithClaim('withdrawal', id, () => withdrawalsApi.decide(id, decision));
      toast.success(decision === 'approve' ? WITHDRAWAL_MESSAGES.approved : WITHDRAWAL_MESSAGES.rejected);
      setView({
        kind: 'ready',
        withdrawal: { ...view.withdrawal, status: decision === 'approve' ? 'Approved' : 'Rejected' },
      });
      dispatch(queueItemDecided({ queue: 'withdrawals', id }));
    } catch (e) {
      toastDecisionFailed(
        decision === 'approve' ? WITHDRAWAL_MESSAGES.approveFailed : WITHDRAWAL_MESSAGES.rejectFailed,
        e,
      );
    } finally {
      setBusy(null);
    }
  }

  const back = (
    <Link className="btn btn--secondary btn--sm" to="/admin-pending-wallet">
      Back to pending withdrawals
    </Link>
  );

  if (view.kind === 'error') {
    return (
      <div className="container container--narrow section">
        <Card className="notice-card">
          <EmptyState title={WITHDRAWAL_MESSAGES.fetchFailed} />
          {back}
        </Card>
      </div>
    );
  }

  const w = view.kind === 'ready' ? view.withdrawal : null;
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
        <Card className="money-card">
          <div className="detail-head">
            <p className="detail-head__amount">{formatUsd(w.amount)}</p>
            <StatusBadge status={w.status} tone={shown.tone} label={shown.label} />
          </div>
          <DetailList
            label="Withdrawal"
            rows={[
              { term: 'User', value: [who.name, who.email].filter(Boolean).join(' · ') || '—' },
              { term: 'Amount', value: formatUsd(w.amount) },
              {
                term: 'Wallet address',
                value: <span className="mono break-all">{w.walletAddress || 'N/A'}</span>,
              },
              { term: 'Status', value: shown.label },
              { term: 'Requested', value: formatDateTime(w.requestDate) },
            ]}
          />
          {w.status === 'Pending' ? <ClaimNotice item={review} /> : null}
          {w.status === 'Pending' ? (
            <div className="decision__buttons">
              <Button
                onClick={() => decide('approve')}
                busy={busy === 'approve'}
                busyLabel="Processing..."
                disabled={busy !== null || review.other !== null}
              >
                Approve
              </Button>
              <Button
                variant="danger"
                onClick={() => decide('reject')}
                busy={busy === 'reject'}
                busyLabel="Processing..."
                disabled={busy !== null || review.other !== null}
              >
                Reject
              </Button>
            </div>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}
