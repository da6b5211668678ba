import type { PageRequest, Page } from '../../app/pages';
import type { QueueName } from '../live/liveEvents';
import type { ClaimKind } from '../claims/claimsApi';
import { useOthersClaims } from '../claims/useClaims';
import { fetchToasts } from './QueueParts';
import { useQueue } from './useQueue';

/** What an admin queue's screen says: toasts of its fetch and the texts of its body (QueueBody). */
export interface AdminQueueTexts {
  fetched?: string;
  failed: string;
  empty: string;
  loading: string;
}

/**
 * The setup every admin queue screen shares: the queue (useQueue) with its fetch toasts, who reviews which
 * item now (features/claims), and the props of QueuePage's body but its label and children.
 */
export function useAdminQueue<T extends object>(spec: {
  queue: QueueName;
  claim: ClaimKind;
  fetchPage: (page: PageRequest) => Promise<Page<T> | T[]>;
  texts: AdminQueueTexts;
  /** Names the fetch toasts, so a refetch does not stack them. */
  toastId: string;
}) {
  const reviewedByOther = useOthersClaims(spec.claim);
  const { items, load, reload, more } = useQueue<T>(
    spec.queue,
    spec.fetchPage,
    fetchToasts(spec.texts, spec.toastId),
  );
  const body = {
    more,
    load,
    count: items.length,
    loadingText: spec.texts.loading,
    emptyText: spec.texts.empty,
    failedText: spec.texts.failed,
  };
  return { items, reload, reviewedByOther, body };
}
