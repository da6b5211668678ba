import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, EmptyState } from '../../ui/Card';
import { formatDateTime } from '../../ui/dates';
import { FormError } from '../../ui/Field';
import { Modal } from '../../ui/Modal';
import { LoadingBlock } from '../../ui/Spinner';
import { StatusBadge } from '../../ui/StatusBadge';
import { toast } from '../../ui/toast';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { serverMessage } from '../queues/lists';
import { Composer } from './Composer';
import { MessageList, mergeMessages } from './MessageList';
import { PersonPanel } from './PersonPanel';
import { SupportAdminHeader } from './SupportAdminHeader';
import { conversationOf, messageOf, supportApi, type CannedReply } from './supportApi';
import { useTypingSignal } from './useTypingSignal';
import {
  networkOf,
  SUPPORT_EVENTS,
  type Conversation,
  type DepositAddress,
  type InboxFilter,
  type SupportMessage,
} from './supportTypes';
import './support.css';
import { NoticeCard, Radio } from '../../ui/ScreenParts';

export const INBOX_FILTERS: Array<{ value: InboxFilter; label: string }> = [
  { value: 'unassigned', label: 'Unassigned' },
  { value: 'mine', label: 'Mine' },
  { value: 'all', label: 'All open' },
  { value: 'closed', label: 'Closed' },
];

/** How long after the last search keystroke the list is asked again. */
export const SEARCH_DEBOUNCE_MS = 300;

const matchesFilter = (c: Conversation, filter: InboxFilter, meId: string) =>
  filter === 'closed'
    ? c.status === 'closed'
    : c.status === 'open' &&
      (filter === 'all' || (filter === 'mine' ? c.assigneeId === meId : !c.assigneeId));

/**
 * A support push: `support/message` `{ conversationId, message }`, `support/conversation`
 * `{ conversationId, conversation }` where `conversation` holds `_id` and the fields that changed.
 */
function pushOf(payload: unknown): {
  conversationId: string;
  message: SupportMessage | null;
  changes: Partial<Conversation> | null;
} {
  const p = (payload ?? {}) as { conversationId?: unknown; message?: unknown; conversation?: unknown };
  const message = messageOf(p.message);
  const changes = conversationOf(p.conversation);
  const conversationId =
    typeof p.conversationId === 'string' ? p.conversationId : (message?.conversationId ?? changes?._id ?? '');
  return { conversationId, message, changes };
}

/** A conversation after a message: its preview and time, and how many of the person's wait for an answer. */
function withMessage(c: Conversation, m: SupportMessage): Conversation {
  if (m.internal) return c;
  return {
    ...c,
    lastMessageAt: m.createdAt,
    lastMessageText: m.text || c.lastMessageText,
    unread: m.from === 'investor' ? (c.unread ?? 0) + 1 : 0,
  };
}

const byActivity = (a: Conversation, b: Conversation) =>
  Date.parse(b.lastMessageAt ?? '') - Date.parse(a.lastMessageAt ?? '');

function AddressPicker({
  onPick,
  onClose,
}: {
  onPick: (address: DepositAddress) => Promise<void>;
  onClose: () => void;
}) {
  const [addresses, setAddresses] = useState<DepositAddress[] | null>(null);
  const [error, setError] = useState('');
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    supportApi.addresses().then(
      (all) => setAddresses(all.filter((a) => a.status === 'active')),
      (e: unknown) => setError(serverMessage(e) || 'The address book could not be loaded.'),
    );
  }, []);

  async function send() {
    const address = addresses?.find((a) => a._id === chosen);
    if (!address) return setError('Choose an address.');
    setBusy(true);
    try {
      await onPick(address);
    } catch (e) {
      setError(serverMessage(e) || 'The address was not sent.');
      setBusy(false);
    }
  }

  return (
    <Modal
      title="Send deposit address"
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void send()} busy={busy} busyLabel="Sending…" disabled={!chosen}>
            Send address
          </Button>
        </>
      }
    >
      <FormError message={error} />
      {addresses === null && !error ? <LoadingBlock label="Loading addresses…" /> : null}
      {addresses?.length === 0 ? (
        <p>
          No active address. <Link to="/admin-deposit-addresses">Add one to the address book</Link>.
        </p>
      ) : null}
      {addresses && addresses.length > 0 ? (
        <ul className="bare-list address-picker" aria-label="Active addresses">
          {addresses.map((a) => (
            <li key={a._id}>
              <label>
                <Radio name="address" value={a._id} chosen={chosen} onChoose={setChosen} />
                <span>
                  <strong>{a.label}</strong> · {networkOf(a.network).label}
                  <br />
                  <code className="break-all small">{a.address}</code>
                </span>
              </label>
            </li>
          ))}
        </ul>
      ) : null}
    </Modal>
  );
}

function ConversationPane({
  id,
  onChanged,
}: {
  id: string;
  onChanged: (conversation: Conversation) => void;
}) {
  const meId = useAppSelector((s) => s.auth.user?._id ?? '');
  const resyncs = useResyncs();
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<SupportMessage[]>([]);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [draft, setDraft] = useState('');
  const [internal, setInternal] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState('');
  const [picking, setPicking] = useState(false);
  const [canned, setCanned] = useState<CannedReply[]>([]);
  const typingSignal = useTypingSignal(id);

  useEffect(() => {
    let live = true;
    setState('loading');
    supportApi.conversation(id).then(
      (view) => {
        if (!live) return;
        setConversation(view.conversation);
        setMessages(view.messages);
        setState('ready');
      },
      () => live && setState('failed'),
    );
    return () => {
      live = false;
    };
  }, [id, resyncs]);

  useEffect(() => {
    supportApi.cannedReplies().then(setCanned, () => undefined);
  }, []);

  useLiveEvents(({ event, payload }) => {
    if (event !== SUPPORT_EVENTS.message && event !== SUPPORT_EVENTS.conversation) return;
    const push = pushOf(payload);
    if (push.conversationId !== id) return;
    if (push.message) setMessages((list) => mergeMessages(list, [push.message!]));
    if (push.changes) setConversation((c) => (c ? { ...c, ...push.changes } : c));
  });

  const changed = (next: Conversation | null) => {
    if (!next) return;
    setConversation(next);
    onChanged(next);
  };

  async function act(label: string, run: () => Promise<Conversation | null>) {
    setError('');
    setBusy(label);
    try {
      changed(await run());
    } catch (e) {
      setError(serverMessage(e) || 'That did not work. Please try again.');
    } finally {
      setBusy('');
    }
  }

  /** Sends a reply (or an internal note) through `send`; on failure shows the server's reason, else `failed`. */
  async function replyWith(
    send: () => ReturnType<typeof supportApi.reply>,
    failed: string,
  ): Promise<boolean> {
    setError('');
    try {
      const sent = await send();
      if (sent.message) setMessages((list) => mergeMessages(list, [sent.message!]));
      if (sent.conversation) changed(sent.conversation);
      setInternal(false);
      return true;
    } catch (e) {
      setError(serverMessage(e) || failed);
      return false;
    }
  }
  const reply = (text: string) =>
    replyWith(() => supportApi.reply(id, text, internal), 'The message was not sent.');
  const replyWithFile = (file: File, text: string) =>
    replyWith(() => supportApi.replyWithFile(id, file, text, internal), 'The file was not sent.');

  if (state === 'loading') return <LoadingBlock label="Loading the conversation…" />;
  if (state === 'failed' || !conversation)
    return <NoticeCard title="This conversation could not be loaded." />;

  const mine = conversation.assigneeId === meId;
  const closed = conversation.status === 'closed';
  return (
    <>
      <Card className="inbox__thread" aria-labelledby="thread-title">
        <div className="inbox__thread-head">
          <div>
            <h2 className="inbox__thread-title" id="thread-title">
              {conversation.name || 'Unknown person'}
            </h2>
            <p className="muted small">
              <span>
                {conversation.assigneeId
                  ? mine
                    ? 'Assigned to you'
                    : 'Assigned to another admin'
                  : 'Unassigned'}
              </span>{' '}
              <StatusBadge
                status={conversation.status}
                tone={closed ? 'neutral' : 'success'}
                label={closed ? 'Closed' : 'Open'}
              />
            </p>
          </div>
          <div className="cluster inbox__thread-actions">
            {mine ? (
              <Button
                size="sm"
                variant="secondary"
                busy={busy === 'assign'}
                onClick={() => void act('assign', () => supportApi.assign(id, ''))}
              >
                Unassign
              </Button>
            ) : (
              <Button
                size="sm"
                variant="secondary"
                busy={busy === 'assign'}
                onClick={() => void act('assign', () => supportApi.assign(id, meId))}
              >
                Assign to me
              </Button>
            )}
            <Button
              size="sm"
              variant="secondary"
              busy={busy === 'status'}
              onClick={() => void act('status', () => supportApi.decide(id, closed ? 'reopen' : 'close'))}
            >
              {closed ? 'Reopen' : 'Close'}
            </Button>
            {!conversation.userId && !conversation.blocked ? (
              <Button
                size="sm"
                variant="danger"
                busy={busy === 'block'}
                onClick={() => void act('block', () => supportApi.decide(id, 'block'))}
              >
                Block visitor
              </Button>
            ) : null}
            <Button size="sm" onClick={() => setPicking(true)} disabled={closed}>
              Send deposit address
            </Button>
          </div>
        </div>
        <div className="inbox__messages">
          <MessageList
            messages={messages}
            viewer="admin"
            investorName={conversation.name}
            meId={meId}
            empty="No messages yet."
          />
        </div>
        <div className="inbox__composer">
          <FormError message={error} />
          <Composer
            label={internal ? 'Internal note' : 'Reply'}
            placeholder={internal ? 'A note for admins only…' : 'Write a reply…'}
            submitLabel={internal ? 'Add note' : 'Send reply'}
            value={draft}
            onChange={(next) => {
              setDraft(next);
              // the investor sees "Support is typing…" for a reply, never for an internal note
              if (next.trim() && !internal) typingSignal.typing();
              else typingSignal.stopped();
            }}
            onSend={reply}
            onAttach={replyWithFile}
            tools={
              <>
                <label className="inbox__note-switch">
                  <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} />
                  Internal note
                </label>
                <select
                  className="input select input--sm"
                  aria-label="Canned reply"
                  value=""
                  onChange={(e) => {
                    const reply = canned.find((c) => c.id === e.target.value);
                    if (reply) setDraft(reply.text);
                  }}
                >
                  <option value="">Canned reply…</option>
                  {canned.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.title}
                    </option>
                  ))}
                </select>
              </>
            }
          />
        </div>
      </Card>
      <PersonPanel conversation={conversation} />
      {picking ? (
        <AddressPicker
          onClose={() => setPicking(false)}
          onPick={async (address) => {
            const message = await supportApi.sendDepositAddress(id, address._id);
            if (message) setMessages((list) => mergeMessages(list, [message]));
            setPicking(false);
            toast.success(`Address "${address.label}" sent`);
          }}
        />
      ) : null}
    </>
  );
}

/**
 * /support-inbox (admins): conversations by filter (unassigned, mine, all open, closed) and search by name
 * or email, live; the selected conversation (?c=<id>) with its messages, internal notes, a composer with
 * canned replies, assignment, close / reopen, "Send deposit address", and the person's side panel.
 */
export function SupportInboxPage() {
  const meId = useAppSelector((s) => s.auth.user?._id ?? '');
  const resyncs = useResyncs();
  const [params, setParams] = useSearchParams();
  const selected = params.get('c') ?? '';
  const [filter, setFilter] = useState<InboxFilter>('unassigned');
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [list, setList] = useState<Conversation[] | null>(null);
  const [failed, setFailed] = useState(false);
  const reloadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const timer = setTimeout(() => setSearch(query), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  const load = useCallback(async () => {
    try {
      setList(await supportApi.inbox(filter, search));
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [filter, search]);

  useEffect(() => {
    setList(null);
    void load();
  }, [load, resyncs]);

  useEffect(() => () => clearTimeout(reloadTimer.current), []);

  const upsert = useCallback(
    (c: Conversation) =>
      setList((current) => {
        if (!current) return current;
        const rest = current.filter((x) => x._id !== c._id);
        if (!matchesFilter(c, filter, meId)) return rest;
        return [c, ...rest].sort(byActivity);
      }),
    [filter, meId],
  );

  const reload = useCallback(() => {
    clearTimeout(reloadTimer.current);
    reloadTimer.current = setTimeout(() => void load(), SEARCH_DEBOUNCE_MS);
  }, [load]);

  useLiveEvents(({ event, payload }) => {
    if (event !== SUPPORT_EVENTS.message && event !== SUPPORT_EVENTS.conversation) return;
    const push = pushOf(payload);
    const known = list?.find((c) => c._id === push.conversationId);
    if (!known || search) {
      // a conversation this list does not hold (it may belong here now) or a search is on: ask the list
      // again, once for a burst of pushes
      reload();
      return;
    }
    let next: Conversation = { ...known, ...push.changes };
    if (push.message) next = withMessage(next, push.message);
    upsert(next);
  });

  const open = (id: string) =>
    setParams((p) => {
      p.set('c', id);
      return p;
    });

  return (
    <div className="container section">
      <SupportAdminHeader page="inbox" />
      <div className={`inbox ${selected ? 'inbox--reading' : ''}`}>
        <Card className="inbox__list" aria-labelledby="inbox-list-title">
          <h2 className="visually-hidden" id="inbox-list-title">
            Conversations
          </h2>
          <div className="inbox__filters">
            <div className="inbox__tabs" role="group" aria-label="Filter">
              {INBOX_FILTERS.map((f) => (
                <button
                  key={f.value}
                  type="button"
                  className="inbox__tab"
                  aria-pressed={filter === f.value}
                  onClick={() => setFilter(f.value)}
                >
                  {f.label}
                </button>
              ))}
            </div>
            <input
              className="input"
              type="search"
              aria-label="Search by name or email"
              placeholder="Search by name or email"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          </div>
          {failed ? <FormError message="The conversations could not be loaded." /> : null}
          {list === null && !failed ? <LoadingBlock label="Loading conversations…" /> : null}
          {list?.length === 0 ? <EmptyState title="No conversations here." /> : null}
          {list && list.length > 0 ? (
            <ul className="bare-list inbox__items" aria-label="Conversations">
              {list.map((c) => (
                <li key={c._id}>
                  <button
                    type="button"
                    className="inbox__item"
                    aria-current={c._id === selected || undefined}
                    onClick={() => open(c._id)}
                  >
                    <span className="inbox__item-head">
                      <span>{c.name || 'Unknown person'}</span>
                      {c.unread ? (
                        <span className="count-pill" aria-label={`${c.unread} unread`}>
                          {c.unread}
                        </span>
                      ) : null}
                    </span>
                    <span className="inbox__item-email">{c.email}</span>
                    <span className="inbox__item-preview">{c.lastMessageText || '—'}</span>
                    <span className="inbox__item-email">{formatDateTime(c.lastMessageAt)}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </Card>
        {selected ? (
          <>
            <button
              type="button"
              className="btn btn--secondary btn--sm inbox__back"
              onClick={() =>
                setParams((p) => {
                  p.delete('c');
                  return p;
                })
              }
            >
              Back to conversations
            </button>
            <ConversationPane key={selected} id={selected} onChanged={upsert} />
          </>
        ) : (
          <NoticeCard title="Choose a conversation to read and answer it." />
        )}
      </div>
    </div>
  );
}
