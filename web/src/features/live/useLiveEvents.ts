import { useEffect, useRef } from 'react';
import { useStore } from 'react-redux';
import { useAppSelector } from '../../app/hooks';
import type { RootState } from '../../app/store';
import type { SequencedLiveEvent } from './liveSlice';

/**
 * Calls `handler` once for every push received after the calling screen mounted, in order, even when
 * several arrive within one render batch (it walks `live.recent` by sequence number).
 */
export function useLiveEvents(handler: (event: SequencedLiveEvent) => void): void {
  const store = useStore<RootState>();
  const seen = useRef<number>(store.getState().live.seq);
  const latest = useRef(handler);
  latest.current = handler;
  const recent = useAppSelector((s) => s.live.recent);
  useEffect(() => {
    for (const e of recent) {
      if (e.seq <= seen.current) continue;
      seen.current = e.seq;
      latest.current(e);
    }
  }, [recent]);
}

/** Bumps when the gateway asks clients to fetch again (it could not replay from our last position). */
export function useResyncs(): number {
  return useAppSelector((s) => s.live.resyncs);
}
