import { LoadingBlock } from './Spinner';
import { useSentinel } from './useSentinel';

/** A paged list's state for its sentinel: more pages exist, one is loading, and the call loading the next. */
export interface ListMore {
  hasMore: boolean;
  loading: boolean;
  loadMore(): void;
}

/**
 * Put after a paged list's last item: while more pages exist, scrolling it into view loads the next one
 * (an IntersectionObserver sentinel, ui/useSentinel); `label` shows while it loads.
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
