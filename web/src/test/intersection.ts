import { vi } from 'vitest';

/**
 * jsdom has no layout: a stand-in IntersectionObserver the test scrolls by hand. `scrollToEnd()` tells
 * every observed element (the lists' sentinels, ui/useSentinel) that it came into view.
 */
export function stubIntersectionObserver(): { scrollToEnd(): void; observed(): number } {
  const observed = new Set<{ cb: IntersectionObserverCallback; el: Element }>();
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      private entries: Array<{ cb: IntersectionObserverCallback; el: Element }> = [];
      constructor(private cb: IntersectionObserverCallback) {}
      observe(el: Element) {
        const e = { cb: this.cb, el };
        this.entries.push(e);
        observed.add(e);
      }
      disconnect() {
        for (const e of this.entries) observed.delete(e);
      }
    },
  );
  return {
    scrollToEnd() {
      for (const { cb, el } of [...observed])
        cb([{ isIntersecting: true, target: el } as unknown as IntersectionObserverEntry], {} as never);
    },
    observed: () => observed.size,
  };
}
