import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { formatCount } from '../../ui/format';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { supportApi } from './supportApi';
import { SUPPORT_EVENTS } from './supportTypes';

/** How long the figure waits after the last support push before it asks the count again. */
export const SUPPORT_STAT_DEBOUNCE_MS = 400;

/**
 * One line of the admin dashboard's queue figures: open conversations waiting for support's answer
 * (GET api/support/unread), asked again after support pushes and on every resync; links to the inbox.
 */
export function SupportQueueStat() {
  const resyncs = useResyncs();
  const [count, setCount] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const live = useRef(true);

  const load = useCallback(async () => {
    try {
      const n = await supportApi.unreadCount();
      if (live.current) setCount(n);
    } catch {
      if (live.current) setFailed(true);
    }
  }, []);

  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
      clearTimeout(timer.current);
    };
  }, []);

  useEffect(() => {
    void load();
  }, [load, resyncs]);

  useLiveEvents(({ event }) => {
    if (event !== SUPPORT_EVENTS.message && event !== SUPPORT_EVENTS.conversation) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), SUPPORT_STAT_DEBOUNCE_MS);
  });

  const value = count !== null ? formatCount(count) : failed ? '—' : '…';
  return (
    <li className="queue-stat">
      <Link to="/support-inbox" className="queue-stat__link">
        <span className="queue-stat__label">Conversations waiting</span>
        <span className="visually-hidden">:</span>{' '}
        <span className="queue-stat__value" data-testid="queue-support">
          {value}
        </span>
      </Link>
    </li>
  );
}
