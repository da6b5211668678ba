import { Link } from 'react-router-dom';
import { pagedList } from '../../app/api';
import { MoreSentinel } from '../../ui/MoreSentinel';
import { PageHeader } from '../../ui/Card';
import { formatDate } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { serverMessage } from '../queues/lists';
import { useInvestmentHistoryInfiniteQuery } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';
import { LinkButton, NoticeCard } from '../../ui/ScreenParts';

export const INVEST_STATUS_MESSAGES = {
  empty: 'No investment at all',
  failed: 'Failed to fetch investments.',
} as const;

/** /invest-status: the user's investments; only 'Active' is styled as active; each opens its detail. */
export function InvestStatusPage() {
  // a page at a time, the next one as the user scrolls to the end; status pushes update the pages
  const {
    items: list,
    failed,
    error: failure,
    more,
  } = pagedList<Investment>(useInvestmentHistoryInfiniteQuery());
  const error = failed ? serverMessage(failure) || INVEST_STATUS_MESSAGES.failed : '';

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Investments"
        title="Investment Status"
        subtitle="Every investment you started, with its projected profit at maturity."
        actions={
          <LinkButton to="/start-invest" size="sm">
            New investment
          </LinkButton>
        }
      />
      {list === null ? <LoadingBlock label="Loading your investments…" /> : null}
      {list !== null && list.length === 0 ? (
        <NoticeCard title={error || INVEST_STATUS_MESSAGES.empty}>
          {!error ? <Link to="/start-invest">Start your first investment</Link> : null}
        </NoticeCard>
      ) : null}
      {list && list.length > 0 ? (
        <ul className="bare-list record-list" aria-label="Investments">
          {list.map((i) => {
            const id = investmentIdOf(i);
            const active = i.status === 'Active';
            return (
              <li key={id} className={`record ${active ? 'record--active' : ''}`}>
                <Link className="record__link" to={`/investment/${id}`}>
                  <div className="record__main">
                    <p className="record__title">{planNameOf(i) || 'Investment'} plan</p>
                    <p className="record__meta">
                      {i.startDate && !i.datesProjected
                        ? `${formatDate(i.startDate)} → ${formatDate(i.endDate)}`
                        : i.startDate
                          ? `Waiting for approval · projected ${formatDate(i.startDate)} → ${formatDate(i.endDate)}`
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
