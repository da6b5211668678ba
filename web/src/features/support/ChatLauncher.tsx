import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { useLiveEvents } from '../live/useLiveEvents';
import { supportApi } from './supportApi';
import { SUPPORT_EVENTS, type SupportConfig, type SupportMessage } from './supportTypes';
import { isKnownVisitor, rememberVisitor, unreadOf } from './seen';
import './launcher.css';

const ChatPanel = lazy(() => import('./ChatPanel').then((m) => ({ default: m.ChatPanel })));

/** How often a visitor's launcher (no live socket before sign-in) asks whether support answered. */
export const VISITOR_POLL_MS = 15_000;

let configOnce: Promise<SupportConfig> | undefined;
/** GET api/support/config once per page load; an unreachable config is an empty one (the launcher shows). */
function loadConfig(): Promise<SupportConfig> {
  return (configOnce ??= supportApi.config().catch(() => ({})));
}
/** Tests: forget the config read so each spec's fake server answers it. */
export function resetSupportConfig(): void {
  configOnce = undefined;
}

/** Loads the third-party widget's script once (LIVE_CHAT_SCRIPT_URL); http(s) only. */
function loadWidgetScript(src: string): void {
  if (!/^https?:\/\//i.test(src) || document.querySelector('script[data-live-chat]')) return;
  const script = document.createElement('script');
  script.src = src;
  script.async = true;
  script.dataset.liveChat = 'true';
  document.head.appendChild(script);
}

/** A support push the investor has not seen: from support or the system, never an internal note. */
export function isUnreadForInvestor(payload: unknown): boolean {
  const message = (payload as { message?: SupportMessage } | null)?.message;
  return Boolean(message && message.from !== 'investor' && !message.internal);
}

/**
 * The support chat's launcher, on every page (bottom right): a button with the count of unread replies that
 * opens the chat panel, loaded on demand (its own chunk with the QR code library). When the server names a
 * third-party widget (LIVE_CHAT_SCRIPT_URL), a visitor who is not signed in gets that widget's script
 * instead. Admins answer from the Support inbox and have no launcher. The reply email's link
 * (`?support=open`, or a visitor's `?support=<token>`) opens the panel.
 */
export function ChatLauncher() {
  const isLoggedIn = useAppSelector((s) => s.auth.isLoggedIn);
  const sessionKnown = useAppSelector((s) => s.auth.sessionStatus === 'checked');
  const userId = useAppSelector((s) => s.auth.user?._id ?? null);
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  const [config, setConfig] = useState<SupportConfig | null>(null);
  const [params, setParams] = useSearchParams();
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(0);
  const [hasConversation, setHasConversation] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const openRef = useRef(open);
  openRef.current = open;

  useEffect(() => {
    let live = true;
    void loadConfig().then((c) => live && setConfig(c));
    return () => {
      live = false;
    };
  }, []);

  const widget = !isLoggedIn && config?.liveChatScriptUrl ? config.liveChatScriptUrl : null;
  useEffect(() => {
    if (widget) loadWidgetScript(widget);
  }, [widget]);

  const active = sessionKnown && config !== null && !widget && !isAdmin;

  const refreshUnread = useCallback(async () => {
    if (!isLoggedIn && !isKnownVisitor()) return; // a visitor who has not started a chat here
    try {
      const { conversation, messages } = await supportApi.mine();
      setHasConversation(conversation !== null);
      if (!openRef.current) setUnread(unreadOf(messages));
    } catch (e) {
      // the server no longer knows this visitor (401), or the chat is unreachable: no badge
      if (!isLoggedIn && (e as { response?: { status?: number } }).response?.status === 401)
        rememberVisitor(false);
    }
  }, [isLoggedIn]);

  // the count on load and whenever the session's person changes
  useEffect(() => {
    if (active) void refreshUnread();
  }, [active, refreshUnread, userId]);

  // a visitor has no live socket: ask again now and then while they have a conversation
  useEffect(() => {
    if (!active || isLoggedIn || !hasConversation) return;
    const timer = setInterval(() => void refreshUnread(), VISITOR_POLL_MS);
    return () => clearInterval(timer);
  }, [active, isLoggedIn, hasConversation, refreshUnread]);

  useLiveEvents(({ event, payload }) => {
    if (event === SUPPORT_EVENTS.message && !openRef.current && isUnreadForInvestor(payload))
      setUnread((n) => n + 1);
  });

  // the reply email's link opens the panel: `?support=open`, or a visitor's `?support=<token>`, which first
  // makes this browser the visitor's (POST …/visitor/resume sets the visitor cookie)
  const asked = params.get('support');
  useEffect(() => {
    if (!active || !asked) return;
    setParams(
      (p) => {
        p.delete('support');
        return p;
      },
      { replace: true },
    );
    if (asked === 'open' || isLoggedIn) {
      setOpen(true);
      return;
    }
    void supportApi
      .resumeAsVisitor(asked)
      .then(() => {
        rememberVisitor(true);
        setHasConversation(true);
      })
      .catch(() => undefined) // an old or wrong link: the panel offers the pre-chat form
      .finally(() => setOpen(true));
  }, [active, asked, isLoggedIn, setParams]);

  const close = useCallback(() => {
    setOpen(false);
    button.current?.focus();
  }, []);

  const onRead = useCallback(() => setUnread(0), []);
  const onStarted = useCallback(() => setHasConversation(true), []);

  if (!active) return null;
  const label = unread > 0 ? `Chat with support, ${unread} unread` : 'Chat with support';
  return (
    <div className="chat-launcher">
      {open ? (
        <Suspense fallback={null}>
          <ChatPanel config={config} onClose={close} onRead={onRead} onStarted={onStarted} />
        </Suspense>
      ) : null}
      <button
        ref={button}
        type="button"
        className="chat-launcher__button"
        aria-label={label}
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => (open ? close() : setOpen(true))}
      >
        <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true">
          {open ? (
            <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
          ) : (
            <path
              d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.2 3.6c-.5.4-1.3.1-1.3-.6V16A2.5 2.5 0 0 1 4 13.5v-8Z"
              fill="currentColor"
            />
          )}
        </svg>
        {unread > 0 ? (
          <span className="count-pill chat-launcher__badge" data-testid="chat-unread" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        ) : null}
      </button>
    </div>
  );
}
