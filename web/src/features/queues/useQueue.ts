import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { LIST_PAGE_SIZE, type Page, type PageRequest } from '../../app/pages';
import { useResyncs } from '../live/useLiveEvents';
import type { QueueName } from '../live/liveEvents';
import { queueFetched, queuePageAppended, type QueueItem } from './queuesSlice';

const asPage = <T>(answer: Page<T> | T[]): Page<T> =>
  Array.isArray(answer) ? { items: answer, nextCursor: '' } : answer;

export type QueueLoad = 'loading' | 'ready' | 'failed';

/** The queue's paging for the screen: whether more pages exist, and the call that loads the next one. */
export interface QueueMore {
  hasMore: boolean;
  loading: boolean;
  loadMore(): void;
}

/**
 * An admin queue: its first page fetched when the screen opens (and again when the gateway asks for a
 * resync), the next ones as the admin scrolls to the end (`more`, for QueueBody's sentinel); live
 * `queue/itemAdded` and `queue/itemDecided` pushes keep it current in between.
 */
export function useQueue<T extends object>(
  queue: QueueName,
  /** A page of the queue (or the whole queue as a bare list). */
  fetchPage: (page: PageRequest) => Promise<Page<T> | T[]>,
  onFetched?: (ok: boolean, error?: unknown) => void,
) {
  const dispatch = useAppDispatch();
  const items = useAppSelector((s) => s.queues[queue].items) as unknown as T[];
  const resyncs = useResyncs();
  const [load, setLoad] = useState<QueueLoad>('loading');
  const [nextCursor, setNextCursor] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const fetchRef = useRef(async (page: PageRequest): Promise<Page<T>> => asPage(await fetchPage(page)));
  const notify = useRef(onFetched);
  /** Bumped by every first-page load: a later page of an older load is dropped. */
  const generation = useRef(0);
  useEffect(() => {
    fetchRef.current = async (page) => asPage(await fetchPage(page));
    notify.current = onFetched;
  });

  const reload = useCallback(async () => {
    const gen = ++generation.current;
    try {
      const page = await fetchRef.current({ limit: LIST_PAGE_SIZE });
      if (gen !== generation.current) return;
      dispatch(queueFetched({ queue, items: page.items as unknown as QueueItem[] }));
      setNextCursor(page.nextCursor);
      setLoad('ready');
      notify.current?.(true);
    } catch (error) {
      setLoad((l) => (l === 'ready' ? l : 'failed'));
      notify.current?.(false, error);
    }
  }, [dispatch, queue]);

  const loadMore = useCallback(() => {
    if (!nextCursor || loadingMore) return;
    const gen = generation.current;
    setLoadingMore(true);
    fetchRef
      .current({ limit: LIST_PAGE_SIZE, cursor: nextCursor })
      .then(
        (page) => {
          if (gen !== generation.current) return;
          dispatch(queuePageAppended({ queue, items: page.items as unknown as QueueItem[] }));
          setNextCursor(page.nextCursor);
        },
        () => undefined, // the sentinel is still there: scrolling again retries
      )
      .finally(() => setLoadingMore(false));
  }, [dispatch, queue, nextCursor, loadingMore]);

  useEffect(() => {
    void reload();
  }, [reload, resyncs]);

  const more: QueueMore = { hasMore: nextCursor !== '', loading: loadingMore, loadMore };
  return { items: load === 'loading' ? [] : items, load, reload, more };
}
