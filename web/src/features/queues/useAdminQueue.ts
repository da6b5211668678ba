import { useEffect, useRef } from 'react';
import { moreOf, type InfinitePaging } from '../../app/api';
import type { ClaimKind } from '../claims/claimsApi';
import { useOthersClaims } from '../claims/useClaims';
import { useResyncs } from '../live/useLiveEvents';
import { fetchToasts, type QueueLoad, type QueueMore } from './QueueParts';
import { queueItemsOf, type QueuePages } from './queueItems';

/** What an admin queue's screen says: toasts of its fetch and the texts of its body (QueueBody). */
export interface AdminQueueTexts {
  fetched?: string;
  failed: string;
  empty: string;
  loading: string;
}

/** The part of a queue's infinite query (features/queues/queueApi.ts) the screen reads. */
export interface QueueQuery<T> extends InfinitePaging {
  data?: QueuePages<T>;
  error?: unknown;
  isError: boolean;
  refetch(options: { refetchCachedPages: boolean }): PromiseLike<unknown>;
}

/** An admin queue screen's queue: its data, the claims on its items, what the screen says of it. */
export interface AdminQueueSpec<T> {
  /** The queue's infinite query hook (queueApi.ts). */
  useQueue: () => QueueQuery<T>;
  claim: ClaimKind;
  texts: AdminQueueTexts;
  /** Names the fetch toasts, so a refetch does not stack them. */
  toastId: string;
}

/**
 * The setup every admin queue screen shares: the queue's first page when the screen opens, again (alone) when
 * the gateway asks for a resync or the screen for a `reload`, the next ones as the admin scrolls to the end
 * (`more`, for QueueBody's sentinel), with the toasts of each first-page fetch; live queue pushes keep the
 * cached pages current in between (queueApi.ts). Also who reviews which item now (features/claims), and the
 * props of QueuePage's body but its label and children.
 */
export function useAdminQueue<T extends object>(spec: AdminQueueSpec<T>) {
  const reviewedByOther = useOthersClaims(spec.claim);
  const query = spec.useQueue();
  const notify = useRef(fetchToasts(spec.texts, spec.toastId));
  const { refetch, isError, error } = query;

  // the end of every fetch of the first page (not of a next page) is toasted
  const fetchingFirst = query.isFetching && !query.isFetchingNextPage;
  const wasFetchingFirst = useRef(false);
  useEffect(() => {
    if (fetchingFirst) wasFetchingFirst.current = true;
    else if (wasFetchingFirst.current) {
      wasFetchingFirst.current = false;
      notify.current(!isError, error);
    }
  }, [fetchingFirst, isError, error]);

  const reload = () => refetch({ refetchCachedPages: false });
  const resyncs = useResyncs();
  const seenResyncs = useRef(resyncs);
  useEffect(() => {
    if (resyncs === seenResyncs.current) return;
    seenResyncs.current = resyncs;
    void refetch({ refetchCachedPages: false });
  }, [resyncs, refetch]);

  const items = queueItemsOf(query.data);
  const load: QueueLoad = query.data ? 'ready' : isError ? 'failed' : 'loading';
  const more: QueueMore = moreOf(query);
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
