import { useEffect, useRef } from 'react';

/** Fetches once when the component mounts; an answer that comes after it unmounts is dropped. */
export function useMountFetch<T>(
  fetch: () => Promise<T>,
  onValue: (value: T) => void,
  onError: (error: unknown) => void = () => undefined,
) {
  const handlers = useRef({ fetch, onValue, onError });
  useEffect(() => {
    handlers.current = { fetch, onValue, onError };
  });
  useEffect(() => {
    let live = true;
    handlers.current.fetch().then(
      (value) => {
        if (live) handlers.current.onValue(value);
      },
      (error: unknown) => {
        if (live) handlers.current.onError(error);
      },
    );
    return () => {
      live = false;
    };
  }, []);
}
