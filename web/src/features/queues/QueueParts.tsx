import type { ReactNode } from 'react';
import { toast } from '../../ui/toast';
import { EmptyState, PageHeader } from '../../ui/Card';
import { LoadingBlock } from '../../ui/Spinner';
import { MoreSentinel, type ListMore } from '../../ui/MoreSentinel';
import { formatUsd } from '../../ui/format';
import { initiatorText, personOf, serverMessage } from './lists';
import { Avatar } from '../../ui/Avatar';
import { Facts } from '../../ui/ScreenParts';

export type QueueLoad = 'loading' | 'ready' | 'failed';

/** The queue's paging for the screen: whether more pages exist, and the call that loads the next one. */
export type QueueMore = ListMore;

/** The 'Initiated by' fact of a queue item that its owner did not initiate (none otherwise). */
function initiatedByFacts(initiatedBy: unknown): Array<{ term: string; value: ReactNode }> {
  const who = initiatorText(initiatedBy);
  return who ? [{ term: 'Initiated by', value: who }] : [];
}

/**
 * An admin decision that failed: the screen's own text and, when the server said why (e.g. that another
 * admin must review the admin's own request), its reason under it.
 */
export function toastDecisionFailed(text: string, error: unknown): void {
  const reason = serverMessage(error);
  toast.error(
    reason && reason !== text ? (
      <div>
        <p>{text}</p>
        <p>{reason}</p>
      </div>
    ) : (
      text
    ),
  );
}

/** The two decisions on a pending item, as the queue screens' buttons show them. */
export const DECISION_BUTTONS = [
  { decision: 'approve', label: 'Approve', variant: 'primary' },
  { decision: 'reject', label: 'Reject', variant: 'danger' },
] as const;

/** A pending item of an admin queue: who, how much, the facts, and what the admin can do. */
export function QueueCard({
  name,
  email,
  amount,
  status,
  facts,
  children,
  label,
}: {
  name: string;
  email: string;
  amount?: ReactNode;
  status: ReactNode;
  facts: Array<{ term: string; value: ReactNode }>;
  children?: ReactNode;
  label: string;
}) {
  return (
    <li className="queue-card" aria-label={label}>
      <div className="queue-card__head">
        <Avatar size="sm" name={name} />
        <div className="queue-card__who">
          <p className="queue-card__name">{name || 'Unknown user'}</p>
          <p className="queue-card__email">{email}</p>
        </div>
        {status}
      </div>
      {amount !== undefined ? <p className="queue-card__amount">{amount}</p> : null}
      <Facts className="queue-card__facts" rows={facts} />
      {children ? <div className="queue-card__actions">{children}</div> : null}
    </li>
  );
}

/**
 * A pending money request of an admin queue, labelled "`subject` of $amount by name": its user, amount, status
 * and facts, then who initiated it when its user did not.
 */
export function MoneyQueueCard({
  subject,
  user,
  amount,
  initiatedBy,
  facts,
  ...rest
}: {
  subject: string;
  user: unknown;
  amount: number | string | null | undefined;
  initiatedBy: unknown;
  status: ReactNode;
  facts: Array<{ term: string; value: ReactNode }>;
  children?: ReactNode;
}) {
  const who = personOf(user);
  return (
    <QueueCard
      label={`${subject} of ${formatUsd(amount)} by ${who.name}`}
      name={who.name}
      email={who.email}
      amount={formatUsd(amount)}
      facts={[...facts, ...initiatedByFacts(initiatedBy)]}
      {...rest}
    />
  );
}

/**
 * The toasts of a queue's first-page fetch: `fetched` (when given) on success, the server's reason or `failed`
 * on failure; `toastId` names them so a refetch does not stack them.
 */
export function fetchToasts(texts: { fetched?: string; failed: string }, toastId: string) {
  return (ok: boolean, error?: unknown) => {
    if (ok) {
      if (texts.fetched) toast.success(texts.fetched, { toastId: `${toastId}-fetched` });
    } else toast.error(serverMessage(error) || texts.failed, { toastId: `${toastId}-failed` });
  };
}

/** An admin queue's screen: its header, the live hint and the queue's body (QueueBody). */
export function QueuePage({
  title,
  subtitle,
  ...body
}: { title: string; subtitle: string } & Parameters<typeof QueueBody>[0]) {
  return (
    <div className="container section">
      <PageHeader eyebrow="Administration" title={title} subtitle={subtitle} />
      <LiveHint />
      <QueueBody {...body} />
    </div>
  );
}

/** Loading text, failure, empty state or the list, with a live indicator. */
export function QueueBody({
  load,
  count,
  loadingText,
  emptyText,
  failedText,
  label,
  more,
  children,
}: {
  load: QueueLoad;
  count: number;
  loadingText: string;
  emptyText: string;
  failedText: string;
  label: string;
  /** The queue's next pages (useAdminQueue): loaded as the admin scrolls to the end of the list. */
  more?: QueueMore;
  children: ReactNode;
}) {
  if (load === 'loading') return <LoadingBlock label={loadingText} />;
  if (load === 'failed') return <EmptyState title={failedText} />;
  if (count === 0 && !more?.hasMore) return <EmptyState title={emptyText} />;
  return (
    <>
      <ul className="bare-list queue-list" aria-label={label}>
        {children}
      </ul>
      {more ? <MoreSentinel more={more} label={`${label}: loading more…`} testId="queue-more" /> : null}
    </>
  );
}

export function LiveHint() {
  return (
    <p className="live-hint">
      <span className="live-hint__dot" aria-hidden="true" /> Updates live: new requests appear and decided
      ones leave without a reload.
    </p>
  );
}
