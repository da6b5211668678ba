import { useCallback, useEffect, useRef, useState } from 'react';
import type { ListMore } from '../ui/MoreSentinel';
import { LIST_PAGE_SIZE, type Page, type PageRequest } from './pages';

/**
 * A list the screen loads a page at a time (app/pages.ts): the first page when it opens, the next one as
 * the user scrolls to the end (`more`, for ui/MoreSentinel). `items` is null until the first page answers;
 * `setItems` lets live pushes update what is shown. `onFailed` is told when the first page fails.
 */
export function usePagedList<T>(
  fetchPage: (page: PageRequest) => Promise<Page<T>>,
  onFailed: (error: unknown) => void,
) {
  const [items, setItems] = useState<T[] | null>(null);
  const [nextCursor, setNextCursor] = useState('');
  const [loading, setLoading] = useState(false);
  const fetchRef = useRef(fetchPage);
  const failedRef = useRef(onFailed);
  useEffect(() => {
    fetchRef.current = fetchPage;
    failedRef.current = onFailed;
  });

  useEffect(() => {
    let live = true;
    fetchRef.current({ limit: LIST_PAGE_SIZE }).then(
      (page) => {
        if (!live) return;
        setItems(page.items);
        setNextCursor(page.nextCursor);
      },
      (error) => {
        if (!live) return;
        failedRef.current(error);
        setItems([]);
      },
    );
    return () => {
      live = false;
    };
  }, []);

  const loadMore = useCallback(() => {
    if (!nextCursor || loading) return;
    setLoading(true);
    fetchRef
      .current({ limit: LIST_PAGE_SIZE, cursor: nextCursor })
      .then(
        (page) => {
          setItems((shown) => [...(shown ?? []), ...page.items]);
          setNextCursor(page.nextCursor);
        },
        () => undefined, // the sentinel is still there: scrolling again retries
      )
      .finally(() => setLoading(false));
  }, [nextCursor, loading]);

  const more: ListMore = { hasMore: nextCursor !== '', loading, loadMore };
  return { items, setItems, more };
}
