import { createElement, lazy, type ComponentType } from 'react';

/** A route screen loaded on demand, with `preload()` (tests, and links that know the next screen). */
export interface LazyPage<P extends object> {
  (props: P): ReturnType<typeof createElement>;
  preload(): Promise<void>;
}

/**
 * Route-level code splitting: the screen's module (and what only it imports) is its own chunk, fetched
 * the first time the route renders. Once loaded it renders synchronously (no second suspension).
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  const fetchOnce = () =>
    (pending ??= load().then(
      (component) => (loaded = component),
      (err: unknown) => {
        pending = undefined; // a failed chunk (network) is retried on the next render
        throw err;
      },
    ));
  const Lazy = lazy(async () => ({ default: await fetchOnce() }));
  const Page = (props: P) => createElement((loaded ?? Lazy) as ComponentType<P>, props);
  Page.preload = async () => {
    await fetchOnce();
  };
  return Page;
}
