import type { toast as toastify, ToastContent, ToastOptions } from 'react-toastify';

/**
 * The app's toasts, with react-toastify (and its container) loaded on the first toast rather than with
 * the first route: the first toast mounts the container (Layout) and shows once it has mounted;
 * from then on a toast shows at once, as with a plain react-toastify import.
 */

let wanted = false;
const listeners = new Set<() => void>();
/** react-toastify's `toast`, once the container has mounted; the toasts raised before it, in order. */
let ready: typeof toastify | undefined;
const waiting: Array<(t: typeof toastify) => void> = [];

/** Whether anything has toasted yet (the layout mounts the container from then on). */
export const toastsWanted = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: (): boolean => wanted,
};

/** The container (AppToasts) calls this once mounted: the waiting toasts show, later ones at once. */
export function toastContainerMounted(t: typeof toastify): void {
  ready = t;
  for (const show of waiting.splice(0)) show(t);
}

/** Drops the toasts still waiting for the container (tests: nothing of a finished test toasts into the next). */
export function dropWaitingToasts(): void {
  waiting.length = 0;
}

function withToastify(show: (t: typeof toastify) => void): void {
  if (ready) return show(ready);
  waiting.push(show);
  if (!wanted) {
    wanted = true;
    for (const listener of [...listeners]) listener();
  }
}

export const toast = {
  success: (content: ToastContent, options?: ToastOptions) =>
    withToastify((t) => t.success(content, options)),
  error: (content: ToastContent, options?: ToastOptions) => withToastify((t) => t.error(content, options)),
  info: (content: ToastContent, options?: ToastOptions) => withToastify((t) => t.info(content, options)),
  warning: (content: ToastContent, options?: ToastOptions) =>
    withToastify((t) => t.warning(content, options)),
};
