import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useResyncs } from '../live/useLiveEvents';
import type { QueueName } from '../live/liveEvents';
import { queueFetched, type QueueItem } from './queuesSlice';

export type QueueLoad = 'loading' | 'ready' | 'failed';

/**
 * An admin queue: fetched when the screen opens (and again when the gateway asks for a resync);
 * live `queue/itemAdded` and `queue/itemDecided` pushes keep it current in between.
 */
export function useQueue<T extends object>(
  queue: QueueName,
  fetch: () => Promise<T[]>,
  onFetched?: (ok: boolean, error?: unknown) => void,
) {
  const dispatch = useAppDispatch();
  const items = useAppSelector((s) => s.queues[queue].items) as unknown as T[];
  const resyncs = useResyncs();
  const [load, setLoad] = useState<QueueLoad>('loading');
  const fetchRef = useRef(fetch);
  const notify = useRef(onFetched);
  useEffect(() => {
    fetchRef.current = fetch;
    notify.current = onFetched;
  });

  const reload = useCallback(async () => {
    try {
      const list = await fetchRef.current();
      dispatch(queueFetched({ queue, items: list as unknown as QueueItem[] }));
      setLoad('ready');
      notify.current?.(true);
    } catch (error) {
      setLoad((l) => (l === 'ready' ? l : 'failed'));
      notify.current?.(false, error);
    }
  }, [dispatch, queue]);

  useEffect(() => {
    void reload();
  }, [reload, resyncs]);

  return { items: load === 'loading' ? [] : items, load, reload };
}
