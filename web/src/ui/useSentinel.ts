import { useEffect, useRef } from 'react';

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
