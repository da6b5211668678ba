import { useEffect, useRef } from 'react';
import { LoadingBlock } from './Spinner';

/** A paged list's state for its sentinel: more pages exist, one is loading, and the call loading the next. */
export interface ListMore {
  hasMore: boolean;
  loading: boolean;
  loadMore(): void;
}

/**
 * Put after a paged list's last item: while more pages exist, scrolling it into view loads the next one
 * (an IntersectionObserver sentinel, useSentinel); `label` shows while it loads.
 */
export function MoreSentinel({ more, label, testId }: { more: ListMore; label: string; testId?: string }) {
  const ref = useSentinel(more.loadMore);
  if (!more.hasMore) return null;
  return (
    <div ref={ref} className="list-more" data-testid={testId}>
      {more.loading ? <LoadingBlock label={label} /> : null}
    </div>
  );
}

/**
 * Calls `onVisible` whenever the returned element scrolls into view (an IntersectionObserver sentinel):
 * the lists that load their next page as the user scrolls (the Users tab, the admin queues, the
 * histories) put it after their last item.
 */
export function useSentinel(onVisible: () => void) {
  const ref = useRef<HTMLDivElement | null>(null);
  const latest = useRef(onVisible);
  latest.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) latest.current();
    });
    observer.observe(el);
    return () => observer.disconnect();
  });
  return ref;
}
