import { act, waitFor } from '@testing-library/react';
import { vi } from 'vitest';

/**
 * jsdom has no layout: a stand-in IntersectionObserver the test scrolls by hand. `scrollToEnd()` waits
 * until a sentinel in the document is observed (useSentinel in ui/MoreSentinel observes in an effect, which
 * React may run after the list is already on screen, later still on a loaded machine), then tells every
 * observed element in the document that it came into view.
 */
export function stubIntersectionObserver(): { scrollToEnd(): Promise<void>; observed(): number } {
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
  const inDocument = () => [...observed].filter(({ el }) => el.isConnected);
  return {
    async scrollToEnd() {
      await waitFor(() => {
        if (inDocument().length === 0) throw new Error('no list end is observed: nothing to scroll to');
      });
      act(() => {
        for (const { cb, el } of inDocument())
          cb([{ isIntersecting: true, target: el } as unknown as IntersectionObserverEntry], {} as never);
      });
    },
    observed: () => observed.size,
  };
}
