import { useCallback, useEffect, useRef } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { sendRequested } from '../live/liveSlice';
import { SUPPORT_EVENTS } from './supportTypes';

/** While an admin keeps typing, `support/typing` is sent again this often (the panel shows it for 6 s). */
export const TYPING_REPEAT_MS = 2000;

/**
 * Support's side of the typing indicator: `typing()` as the admin types a reply sends
 * `support/typing { conversationId, typing: true }` over the live socket, at most once per TYPING_REPEAT_MS;
 * `stopped()` (the reply was sent or the field emptied) sends `typing: false` once. Leaving the conversation
 * while typing counts as stopping.
 */
export function useTypingSignal(conversationId: string): { typing(): void; stopped(): void } {
  const dispatch = useAppDispatch();
  const lastSent = useRef(0);

  const send = useCallback(
    (typing: boolean) =>
      dispatch(sendRequested({ event: SUPPORT_EVENTS.typing, payload: { conversationId, typing } })),
    [dispatch, conversationId],
  );

  const typing = useCallback(() => {
    const now = Date.now();
    if (now - lastSent.current < TYPING_REPEAT_MS) return;
    lastSent.current = now;
    send(true);
  }, [send]);

  const stopped = useCallback(() => {
    if (!lastSent.current) return;
    lastSent.current = 0;
    send(false);
  }, [send]);

  useEffect(() => stopped, [stopped]);

  return { typing, stopped };
}
