import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { AdminOnly } from '../../app/guards';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, EmptyState, PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { DetailList } from '../../ui/DetailList';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { asStatusChanged, LIVE_EVENTS } from '../live/liveEvents';
import { useLiveEvents } from '../live/useLiveEvents';
import { personOf, serverMessage } from '../queues/lists';
import { toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided } from '../queues/queuesSlice';
import { decideWithClaim } from '../claims/claimsApi';
import { ClaimNotice } from '../claims/ClaimNotice';
import { useItemClaim } from '../claims/useClaims';
import { INVESTMENT_DECISION_MESSAGES, investmentsApi } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';

type View =
  { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; investment: Investment };

/** /investment/{investmentId}: the terms of one investment; an admin approves or rejects a pending one. */
export function InvestmentPage() {
  const { investmentId = '' } = useParams();
  const dispatch = useAppDispatch();
  const [view, setView] = useState<View>({ kind: 'loading' });
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  // an admin opening a pending investment claims it: other admins see who reviews it (features/claims)
  const review = useItemClaim(
    'investment',
    investmentId,
    isAdmin && view.kind === 'ready' && view.investment.status === 'pending',
  );

  const load = useCallback(async () => {
    try {
      const investment = await investmentsApi.one(investmentId);
      setView(
        investment ? { kind: 'ready', investment } : { kind: 'error', message: 'Investment not found.' },
      );
    } catch (e) {
      setView({ kind: 'error', message: serverMessage(e) || 'Failed to fetch the investment.' });
    }
  }, [investmentId]);

  useEffect(() => {
    void load();
  }, [load]);

  useLiveEvents((e) => {
    const changed = e.event === LIVE_EVENTS.statusChanged ? asStatusChanged(e.payload) : null;
    if (changed?.kind === 'investment' && changed.id === investmentId) void load();
  });

  async function decide(decision: 'approve' | 'reject') {
    setBusy(decision);
    try {
      const message = await decideWithClaim('investment', investmentId, () =>
        investmentsApi.decide(investmentId, decision),
      );
      toast.success(
        message ||
          (decision === 'approve'
            ? INVESTMENT_DECISION_MESSAGES.approved
            : INVESTMENT_DECISION_MESSAGES.rejected),
      );
      dispatch(queueItemDecided({ queue: 'investments', id: investmentId }));
      await load();
    } catch (e) {
      toastDecisionFailed(
        decision === 'approve'
          ? INVESTMENT_DECISION_MESSAGES.approveFailed
          : INVESTMENT_DECISION_MESSAGES.rejectFailed,
        e,
      );
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Investments"
        title="Investment detail"
        actions={
          <Link className="btn btn--secondary btn--sm" to="/invest-status">
            All investments
          </Link>
        }
      />
      {view.kind === 'loading' ? <LoadingBlock label="Loading investment…" /> : null}
      {view.kind === 'error' ? (
        <Card className="notice-card">
          <EmptyState title={view.message} />
        </Card>
      ) : null}
      {view.kind === 'ready' ? (
        <Card className="money-card">
          <div className="detail-head">
            <div>
              <p className="eyebrow">{planNameOf(view.investment) || 'Investment'} plan</p>
              <p className="detail-head__amount">{formatUsd(view.investment.amount)}</p>
            </div>
            <StatusBadge status={view.investment.status} tone={investmentTone(view.investment.status)} />
          </div>
          <DetailList
            label="Investment"
            rows={[
              {
                term: 'Investment ID',
                value: <span className="break-all">{investmentIdOf(view.investment) || investmentId}</span>,
              },
              {
                term: 'Profit at maturity',
                value: maturityText(view.investment),
              },
              {
                term: 'Start date',
                value: view.investment.startDate
                  ? formatDateTime(view.investment.startDate)
                  : 'Set at approval',
              },
              {
                term: 'End date',
                value: view.investment.endDate ? formatDateTime(view.investment.endDate) : 'Set at approval',
              },
              ...(view.investment.user
                ? [
                    { term: 'Investor', value: personOf(view.investment.user).name || '—' },
                    { term: 'Email', value: personOf(view.investment.user).email || '—' },
                  ]
                : []),
            ]}
          />
          {view.investment.status === 'pending' ? (
            <AdminOnly>
              <div className="decision">
                <ClaimNotice item={review} />
                <p className="muted">
                  Approving moves the reserved amount into the investor’s Total Investment and starts the
                  term.
                </p>
                <div className="decision__buttons">
                  <Button
                    onClick={() => decide('approve')}
                    busy={busy === 'approve'}
                    busyLabel="Processing..."
                    disabled={busy !== null || review.other !== null}
                  >
                    Approve investment
                  </Button>
                  <Button
                    variant="danger"
                    onClick={() => decide('reject')}
                    busy={busy === 'reject'}
                    busyLabel="Processing..."
                    disabled={busy !== null || review.other !== null}
                  >
                    Reject investment
                  </Button>
                </div>
              </div>
            </AdminOnly>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}
