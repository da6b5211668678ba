import { useState } from 'react';
import { usePagedList } from '../../app/usePagedList';
import { MoreSentinel } from '../../ui/MoreSentinel';
import { Link } from 'react-router-dom';
import { Card, EmptyState, PageHeader } from '../../ui/Card';
import { formatDate } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { asStatusChanged, LIVE_EVENTS } from '../live/liveEvents';
import { useLiveEvents } from '../live/useLiveEvents';
import { serverMessage } from '../queues/lists';
import { investmentsApi } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';

export const INVEST_STATUS_MESSAGES = {
  empty: 'No investment at all',
  failed: 'Failed to fetch investments.',
} as const;

/** /invest-status: the user's investments; only 'Active' is styled as active; each opens its detail. */
export function InvestStatusPage() {
  const [error, setError] = useState('');
  // a page at a time, the next one as the user scrolls to the end
  const {
    items: list,
    setItems: setList,
    more,
  } = usePagedList<Investment>(investmentsApi.historyPage, (e) =>
    setError(serverMessage(e) || INVEST_STATUS_MESSAGES.failed),
  );

  useLiveEvents((e) => {
    const changed = e.event === LIVE_EVENTS.statusChanged ? asStatusChanged(e.payload) : null;
    if (changed?.kind !== 'investment') return;
    setList(
      (l) => l?.map((i) => (investmentIdOf(i) === changed.id ? { ...i, status: changed.status } : i)) ?? l,
    );
  });

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Investments"
        title="Investment Status"
        subtitle="Every investment you started, with its projected profit at maturity."
        actions={
          <Link className="btn btn--primary btn--sm" to="/start-invest">
            New investment
          </Link>
        }
      />
      {list === null ? <LoadingBlock label="Loading your investments…" /> : null}
      {list !== null && list.length === 0 ? (
        <Card className="notice-card">
          <EmptyState title={error || INVEST_STATUS_MESSAGES.empty}>
            {!error ? <Link to="/start-invest">Start your first investment</Link> : null}
          </EmptyState>
        </Card>
      ) : null}
      {list && list.length > 0 ? (
        <ul className="record-list" aria-label="Investments">
          {list.map((i) => {
            const id = investmentIdOf(i);
            const active = i.status === 'Active';
            return (
              <li key={id} className={`record ${active ? 'record--active' : ''}`}>
                <Link className="record__link" to={`/investment/${id}`}>
                  <div className="record__main">
                    <p className="record__title">{planNameOf(i) || 'Investment'} plan</p>
                    <p className="record__meta">
                      {i.startDate
                        ? `${formatDate(i.startDate)} → ${formatDate(i.endDate)}`
                        : 'Waiting for approval'}
                    </p>
                  </div>
                  <div className="record__figures">
                    <p className="record__amount">{formatUsd(i.amount)}</p>
                    <p className="record__meta">Profit at maturity {maturityText(i)}</p>
                  </div>
                  <StatusBadge status={i.status} tone={investmentTone(i.status)} />
                </Link>
              </li>
            );
          })}
        </ul>
      ) : null}
      {list ? <MoreSentinel more={more} label="Loading more investments…" testId="investments-more" /> : null}
    </div>
  );
}
