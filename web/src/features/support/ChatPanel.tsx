import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useAppSelector } from '../../app/hooks';
import { EmailField, FormError, NameField, TextAreaField } from '../../ui/Field';
import { LoadingBlock } from '../../ui/Spinner';
import { isValidEmail, MESSAGES } from '../auth/validation';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { serverMessage } from '../queues/lists';
import { Composer, COMPOSER_TEXT } from './Composer';
import { MessageList, mergeMessages } from './MessageList';
import { isKnownVisitor, markSeen, rememberVisitor } from './seen';
import { supportApi } from './supportApi';
import {
  MAX_MESSAGE_LENGTH,
  SUPPORT_EVENTS,
  type Conversation,
  type SupportConfig,
  type SupportMessage,
} from './supportTypes';
import './support.css';

export const CHAT_TEXT = {
  title: 'Support',
  intro: 'Ask us anything, including a wallet address for your deposit. We usually answer within minutes.',
  online: 'Support is online now.',
  nextAvailable: (when: string) => `Support is away. Back ${when}.`,
  preChat: 'Tell us who you are and what you need: we answer here, and by email when you are away.',
  nameRequired: 'Please enter your name.',
  messageRequired: 'Please write your question.',
  start: 'Start chat',
  typing: 'Support is typing…',
  sendFailed: 'Your message was not sent. Please try again.',
  loadFailed: 'The chat could not be loaded. Please try again later.',
  empty: 'No messages yet. Write the first one below.',
} as const;

/** How long "Support is typing…" stays after the last typing push without a new one. */
export const TYPING_SHOWN_MS = 6000;
/** How often an open panel of a visitor (no live socket) asks for new messages. */
export const VISITOR_PANEL_POLL_MS = 5000;

const weekdayTime = new Intl.DateTimeFormat('en-US', { weekday: 'long', hour: 'numeric', minute: '2-digit' });

/** "Support is online now." / "Support is away. Back Monday 9:00 AM." / nothing when the server says neither. */
export function availabilityText(config: SupportConfig | null): string {
  if (!config) return '';
  if (config.online === true) return CHAT_TEXT.online;
  const at = config.nextAvailableAt ? new Date(config.nextAvailableAt) : null;
  return at && !Number.isNaN(at.getTime()) ? CHAT_TEXT.nextAvailable(weekdayTime.format(at)) : '';
}

type State =
  | { kind: 'loading' }
  | { kind: 'failed' }
  | { kind: 'preChat' }
  | { kind: 'ready'; conversation: Conversation | null; messages: SupportMessage[] };

function PreChatForm({ onStarted }: { onStarted: (c: Conversation | null, m: SupportMessage[]) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return setError(CHAT_TEXT.nameRequired);
    if (!isValidEmail(email)) return setError(MESSAGES.invalidEmail);
    if (!text.trim()) return setError(CHAT_TEXT.messageRequired);
    if (text.length > MAX_MESSAGE_LENGTH) return setError(COMPOSER_TEXT.tooLong);
    setError('');
    setBusy(true);
    try {
      const view = await supportApi.startAsVisitor({
        name: name.trim(),
        email: email.trim(),
        text: text.trim(),
      });
      onStarted(view.conversation, view.messages);
    } catch (e) {
      setError(serverMessage(e) || CHAT_TEXT.loadFailed);
      setBusy(false);
    }
  }

  return (
    <form className="form chat-prechat" noValidate onSubmit={onSubmit} aria-label="Start a chat">
      <p className="muted small">{CHAT_TEXT.preChat}</p>
      <FormError message={error} />
      <NameField value={name} onValue={setName} />
      <EmailField value={email} onValue={setEmail} />
      <TextAreaField
        label="Message"
        name="text"
        rows={3}
        maxLength={MAX_MESSAGE_LENGTH}
        value={text}
        onValue={setText}
      />
      <button type="submit" className="btn btn--primary btn--md btn--block" disabled={busy} aria-busy={busy}>
        {CHAT_TEXT.start}
      </button>
    </form>
  );
}

interface ChatPanelProps {
  config: SupportConfig | null;
  onClose: () => void;
  /** The investor has now seen every message (the launcher clears its badge). */
  onRead: () => void;
  /** A visitor's conversation exists now. */
  onStarted: () => void;
}

/**
 * The chat panel (a non-modal dialog above the launcher): the conversation, support's typing indicator,
 * when support is next available, and a composer. A visitor who is not signed in gives name and email first.
 * Escape closes it and focus returns to the launcher.
 */
export function ChatPanel({ config, onClose, onRead, onStarted }: ChatPanelProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const isLoggedIn = useAppSelector((s) => s.auth.isLoggedIn);
  const resyncs = useResyncs();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [sendError, setSendError] = useState('');
  const [typingUntil, setTypingUntil] = useState(0);
  const conversationId = state.kind === 'ready' ? (state.conversation?._id ?? null) : null;

  const load = useCallback(async () => {
    if (!isLoggedIn && !isKnownVisitor()) {
      setState((s) => (s.kind === 'ready' ? s : { kind: 'preChat' }));
      return;
    }
    try {
      const view = await supportApi.mine();
      setState((s) =>
        s.kind === 'ready'
          ? { ...s, conversation: view.conversation, messages: mergeMessages(s.messages, view.messages) }
          : view.conversation === null && !isLoggedIn
            ? { kind: 'preChat' }
            : { kind: 'ready', conversation: view.conversation, messages: view.messages },
      );
    } catch (e) {
      const status = (e as { response?: { status?: number } }).response?.status;
      if (!isLoggedIn && status === 401) rememberVisitor(false);
      // a visitor without a conversation yet: the server does not know them
      setState((s) =>
        s.kind === 'ready'
          ? s
          : !isLoggedIn && (status === 401 || status === 404)
            ? { kind: 'preChat' }
            : { kind: 'failed' },
      );
    }
  }, [isLoggedIn]);

  useEffect(() => {
    void load();
  }, [load, resyncs]);

  // a visitor has no live socket: ask for new messages while the panel is open
  const polling = !isLoggedIn && state.kind === 'ready' && conversationId !== null;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void load(), VISITOR_PANEL_POLL_MS);
    return () => clearInterval(timer);
  }, [polling, load]);

  // everything shown is seen
  const shown = state.kind === 'ready' ? state.messages : null;
  useEffect(() => {
    if (!shown) return;
    markSeen(shown);
    onRead();
  }, [shown, onRead]);

  useLiveEvents(({ event, payload }) => {
    if (event === SUPPORT_EVENTS.message) {
      const message = (payload as { message?: SupportMessage } | null)?.message;
      if (!message || message.internal) return;
      setState((s) => {
        if (s.kind !== 'ready') return s;
        if (s.conversation && message.conversationId !== s.conversation._id) return s;
        return { ...s, messages: mergeMessages(s.messages, [message]) };
      });
      if (message.from === 'support') setTypingUntil(0);
      if (!conversationId) void load();
    } else if (event === SUPPORT_EVENTS.typing) {
      const t = payload as { conversationId?: string; from?: string; typing?: boolean } | null;
      if (!t || t.from === 'investor' || (conversationId && t.conversationId !== conversationId)) return;
      setTypingUntil(t.typing === false ? 0 : Date.now() + TYPING_SHOWN_MS);
    }
  });

  const typing = typingUntil > 0;
  useEffect(() => {
    if (!typingUntil) return;
    const timer = setTimeout(() => setTypingUntil(0), Math.max(0, typingUntil - Date.now()));
    return () => clearTimeout(timer);
  }, [typingUntil]);

  // focus: the first field of the panel when it opens and when the pre-chat form gives way to the composer
  useEffect(() => {
    if (state.kind === 'loading') return;
    const first = panel.current?.querySelector<HTMLElement>('input, textarea');
    (first ?? panel.current)?.focus();
  }, [state.kind]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  /** Sends one message (`post`): shown at once when the server answers with it, else the list reloads. */
  async function deliver(post: () => ReturnType<typeof supportApi.send>): Promise<boolean> {
    setSendError('');
    try {
      const message = await post();
      if (message) {
        setState((s) => (s.kind === 'ready' ? { ...s, messages: mergeMessages(s.messages, [message]) } : s));
        if (!conversationId) void load();
      } else void load();
      return true;
    } catch (e) {
      setSendError(serverMessage(e) || CHAT_TEXT.sendFailed);
      return false;
    }
  }

  const send = (text: string) => deliver(() => supportApi.send(text));
  /** A screenshot or PDF, with the text typed so far. */
  const sendFile = (file: File, text: string) => deliver(() => supportApi.sendFile(file, text));

  const availability = availabilityText(config);
  return (
    <div
      ref={panel}
      className="chat-panel"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      tabIndex={-1}
    >
      <div className="chat-panel__header">
        <div>
          <h2 id={titleId} className="chat-panel__title">
            {CHAT_TEXT.title}
          </h2>
          {availability ? <p className="chat-panel__availability">{availability}</p> : null}
        </div>
        <button
          type="button"
          className="icon-btn chat-panel__close"
          aria-label="Close chat"
          onClick={onClose}
        >
          <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
            <path d="M5 5l10 10M15 5L5 15" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
      </div>
      <div className="chat-panel__body">
        {state.kind === 'loading' ? <LoadingBlock label="Loading the chat…" /> : null}
        {state.kind === 'failed' ? <FormError message={CHAT_TEXT.loadFailed} /> : null}
        {state.kind === 'preChat' ? (
          <PreChatForm
            onStarted={(conversation, messages) => {
              rememberVisitor(true);
              setState({ kind: 'ready', conversation, messages });
              onStarted();
            }}
          />
        ) : null}
        {state.kind === 'ready' ? (
          <>
            {state.messages.length === 0 ? <p className="muted small">{CHAT_TEXT.intro}</p> : null}
            <MessageList messages={state.messages} viewer="investor" />
          </>
        ) : null}
        <p className="chat-typing" aria-live="polite">
          {typing && state.kind === 'ready' ? CHAT_TEXT.typing : ''}
        </p>
      </div>
      {state.kind === 'ready' ? (
        <div className="chat-panel__footer">
          <FormError message={sendError} />
          <Composer
            label="Message to support"
            placeholder="Write a message…"
            onSend={send}
            onAttach={sendFile}
          />
        </div>
      ) : null}
    </div>
  );
}
