import { useEffect, useRef } from 'react';
import { formatDateTime } from '../../ui/dates';
import { DepositAddressCard } from './DepositAddressCard';
import { MessageText } from './MessageText';
import type { AttachmentPart, SupportMessage } from './supportTypes';

/** Kinds a browser shows as an image (HEIC mostly not: a link only). */
const SHOWN_AS_IMAGE = new Set(['jpeg', 'png', 'gif', 'webp', 'bmp']);

const sizeText = (bytes: number) =>
  bytes >= 1_048_576
    ? `${(bytes / 1_048_576).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KB`;

/**
 * A message's file: a download link (the server sends it as an attachment), with a thumbnail for an image
 * (the same authenticated URL; never shown as a page).
 */
function AttachmentLink({ part }: { part: AttachmentPart }) {
  // the name is the visible text: "Download <name> <size>" (the kind is in the name's extension)
  return (
    <a className="chat-file" href={part.url} download={part.name}>
      {SHOWN_AS_IMAGE.has(part.kind) ? (
        <img className="chat-file__thumb" src={part.url} alt="" loading="lazy" />
      ) : (
        <span className="chat-file__icon" aria-hidden="true">
          {part.kind.toUpperCase()}
        </span>
      )}
      <span className="chat-file__name">
        <span className="visually-hidden">Download</span> {part.name}
      </span>{' '}
      <span className="chat-file__size muted">{sizeText(part.size)}</span>
    </a>
  );
}

/** Adds `incoming` to `list` once (by id), in time order: pushes and answers may bring the same message. */
export function mergeMessages(list: SupportMessage[], incoming: SupportMessage[]): SupportMessage[] {
  const known = new Set(list.map((m) => m._id));
  const added = incoming.filter((m) => !known.has(m._id));
  if (added.length === 0) return list;
  return [...list, ...added].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}

function authorOf(message: SupportMessage, viewer: 'investor' | 'admin', investorName: string, meId: string) {
  if (message.from === 'system') return 'Meridian';
  if (message.from === 'investor') return viewer === 'investor' ? 'You' : investorName || 'Investor';
  return viewer === 'admin' && meId && message.authorId === meId ? 'You' : 'Support';
}

/**
 * A conversation's messages, oldest first, kept scrolled to the newest. The investor's own messages sit on
 * the right; internal notes (admins only: the server never sends them to the investor) are marked as such.
 */
export function MessageList({
  messages,
  viewer,
  investorName = '',
  meId = '',
  empty,
}: {
  messages: SupportMessage[];
  viewer: 'investor' | 'admin';
  investorName?: string;
  /** The admin reading (their own replies read "You"). */
  meId?: string;
  empty?: string;
}) {
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length]);

  if (messages.length === 0) return empty ? <p className="chat-empty muted">{empty}</p> : null;
  return (
    <ol className="bare-list chat-messages" aria-label="Messages">
      {messages.map((m) => {
        const mine = viewer === 'investor' ? m.from === 'investor' : m.from === 'support';
        const kind = m.internal ? 'note' : m.from;
        return (
          <li
            key={m._id}
            className={`chat-msg chat-msg--${kind} ${mine ? 'chat-msg--mine' : ''}`}
            data-testid="chat-message"
          >
            <p className="chat-msg__meta">
              <span className="chat-msg__author">{authorOf(m, viewer, investorName, meId)}</span>
              {m.internal ? <span className="badge badge--warning">Internal note</span> : null}
              <time dateTime={m.createdAt}>{formatDateTime(m.createdAt)}</time>
            </p>
            {m.text ? (
              <p className="chat-msg__body">
                <MessageText text={m.text} />
              </p>
            ) : null}
            {m.depositAddress ? <DepositAddressCard part={m.depositAddress} /> : null}
            {m.attachment ? <AttachmentLink part={m.attachment} /> : null}
          </li>
        );
      })}
      <li ref={end} aria-hidden="true" className="chat-messages__end" />
    </ol>
  );
}
