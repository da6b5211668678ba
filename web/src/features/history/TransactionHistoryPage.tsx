import { useEffect } from 'react';
import { pagedList } from '../../app/api';
import { MoreSentinel } from '../../ui/MoreSentinel';
import { toast } from '../../ui/toast';
import { PageHeader } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { depositTone, investmentTone, StatusBadge, withdrawalStatus } from '../../ui/StatusBadge';
import { StatementsSection } from '../statements/StatementsSection';
import { orderHistory, timestampOf, type HistoryItem } from './history';
import { useTransactionHistoryInfiniteQuery } from './historyApi';
import { NoticeCard } from '../../ui/ScreenParts';

export const HISTORY_MESSAGES = { failed: 'Failed to fetch data.', empty: 'No records found.' } as const;

const LABEL: Record<string, string> = {
  Transaction: 'Deposit',
  Investment: 'Investment',
  Withdrawal: 'Withdrawal',
};

function Status({ item }: { item: HistoryItem }) {
  const status = item.status ?? '';
  if (!status) return null;
  if (item.type === 'Withdrawal') {
    const s = withdrawalStatus(status);
    return <StatusBadge status={status} tone={s.tone} label={s.label} />;
  }
  return (
    <StatusBadge
      status={status}
      tone={item.type === 'Investment' ? investmentTone(status) : depositTone(status)}
    />
  );
}

function detail(item: HistoryItem): string {
  if (item.type === 'Investment')
    return `${typeof item.plan === 'string' ? item.plan : (item.plan?.name ?? '')} plan`.trim();
  if (item.type === 'Withdrawal') return item.walletAddress ? `To ${item.walletAddress}` : 'Withdrawal';
  return 'Deposit';
}

/**
 * /transaction-History: deposits, investments and withdrawals in one list, newest first; a page at a
 * time (historyApi.ts), the next one loaded as the user scrolls to the end.
 */
export function TransactionHistoryPage() {
  const { items: loaded, failed, more } = pagedList<HistoryItem>(useTransactionHistoryInfiniteQuery());
  useEffect(() => {
    if (failed) toast.error(HISTORY_MESSAGES.failed, { toastId: 'history-failed' });
  }, [failed]);
  const items = loaded && orderHistory(loaded);

  return (
    <div className="container section">
      <PageHeader
        eyebrow="History"
        title="Transaction History"
        subtitle="Every deposit, investment and withdrawal on your account, newest first."
      />
      {items === null ? <LoadingBlock label="Loading your history…" /> : null}
      {items !== null && items.length === 0 ? (
        <NoticeCard title={failed ? HISTORY_MESSAGES.failed : HISTORY_MESSAGES.empty} />
      ) : null}
      {items && items.length > 0 ? (
        <ul className="bare-list record-list" aria-label="Transaction history">
          {items.map((item, index) => (
            <li key={`${item.type}-${item._id ?? index}`} className="record" data-type={item.type}>
              <div className="record__row">
                <span className={`type-chip type-chip--${String(item.type).toLowerCase()}`}>
                  {LABEL[item.type] ?? item.type}
                </span>
                <div className="record__main">
                  <p className="record__title break-all">{detail(item)}</p>
                  <p className="record__meta">{formatDateTime(timestampOf(item))}</p>
                </div>
                <div className="record__figures">
                  <p className="record__amount">{formatUsd(item.amount)}</p>
                  <Status item={item} />
                </div>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {items ? <MoreSentinel more={more} label="Loading more history…" testId="history-more" /> : null}
      <StatementsSection />
    </div>
  );
}
