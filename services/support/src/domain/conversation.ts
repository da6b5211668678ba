/**
 * Conversation: one support chat (stream `support-conversation-<conversationId>`) between support and
 * an investor (userId) or a visitor who is not signed in (visitorId, with the name and email of the
 * pre-chat form) until the visitor signs in with that verified email and the conversation joins the
 * account.
 *
 *   (none) --the person's first message--> open --Close--> closed --Reopen | the person writes--> open
 *
 * Messages come from the investor (or visitor), from support (an admin; an internal note is seen by
 * admins only) or from the system; a "Send deposit address" is a support message carrying the address.
 * Texts are plain text (never HTML), 1..2,000 characters once trimmed (0..2,000 with an attachment:
 * a file alone is a message); the command carries the text sealed with the person's key and the plain
 * text's length. A message carries at most one attachment (domain/attachment.ts), never beside a deposit
 * address. A message id seen before decides nothing
 * (a retried call). A blocked visitor cannot write. Replies that reach nobody connected ask for one
 * email per burst: asked again only after the person wrote back; a visitor is emailed the link to the
 * conversation they opened, once.
 * Time, ids and the caller come in the command; nothing here touches I/O.
 */
import { conflict, forbidden, invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { type AttachmentData, ATTACHMENT_MESSAGES, assertAttachmentData } from './attachment.js';

export const MAX_TEXT_LENGTH = 2_000;

export const SUPPORT_MESSAGES = {
  emptyText: 'Please write a message',
  textTooLong: `A message must be at most ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters`,
  notFound: 'Conversation not found',
  notAdmin: 'Not authorized as an admin',
  closed: 'This conversation is closed: reopen it to reply',
  alreadyClosed: 'This conversation is already closed',
  alreadyOpen: 'This conversation is already open',
  blocked: 'This conversation is no longer available',
  notVisitor: 'Only a visitor can be blocked',
  internalBySupport: 'Only support can write internal notes',
  nameRequired: 'Please enter your name',
  nameTooLong: 'Your name must be at most 100 characters',
  emailRequired: 'Please enter a valid email',
  impersonating: 'Messages cannot be sent while impersonating a user',
} as const;

export type MessageFrom = 'investor' | 'support' | 'system';
export const MESSAGE_FROM: readonly MessageFrom[] = ['investor', 'support', 'system'];

/** Who the conversation is with: exactly one of userId (an investor) and visitorId (not signed in yet). */
export interface Party {
  userId: string;
  visitorId: string;
}

/** A deposit address as a "Send deposit address" message carries it. */
export interface SharedAddress {
  addressId: string;
  network: string;
  address: string;
  label: string;
}

export interface MessageData {
  messageId: string;
  conversationId: string;
  from: MessageFrom;
  /** Sealed with the person's key. */
  text: string;
  createdAt: string;
  internal: boolean;
  /** The admin who wrote it ('' for the person's own messages). */
  authorId: string;
  depositAddress: SharedAddress | null;
  /** A file sent with the message (stored apart, sealed); absent on messages without one. */
  attachment?: AttachmentData | null;
}

export const toConversationStreamId = (conversationId: string): string =>
  `support-conversation-${conversationId}`;

// ---- events ----
export type ConversationEvent =
  | {
      type: 'ConversationStarted';
      data: {
        conversationId: string;
        party: Party;
        /** Sealed. */
        name: string;
        email: string;
        /** A keyed digest of the visitor's access token ('' for an investor). */
        tokenHash: string;
        startedAt: string;
      };
    }
  | { type: 'MessageSent'; data: { party: Party; message: MessageData } }
  | {
      type: 'ConversationAssigned';
      data: {
        conversationId: string;
        party: Party;
        assigneeId: string;
        assignedBy: string;
        assignedAt: string;
      };
    }
  | {
      type: 'ConversationClosed';
      data: { conversationId: string; party: Party; closedBy: string; closedAt: string };
    }
  | {
      type: 'ConversationReopened';
      data: { conversationId: string; party: Party; reopenedBy: string; reopenedAt: string };
    }
  | {
      type: 'VisitorBlocked';
      data: { conversationId: string; party: Party; blockedBy: string; blockedAt: string };
    }
  | {
      type: 'ConversationJoined';
      data: { conversationId: string; visitorId: string; userId: string; joinedAt: string };
    }
  | {
      type: 'ReplyEmailRequested';
      data: {
        conversationId: string;
        party: Party;
        email: string;
        name: string;
        link: string;
        requestedAt: string;
        reason: EmailReason;
      };
    }
  | { type: 'ConversationErased'; data: { conversationId: string; party: Party; erasedAt: string } };

/** Why the person is emailed: replies they have not seen, or the link to a conversation they just opened. */
export type EmailReason = 'reply' | 'started';

// ---- commands ----
/** How the conversation opens when the command is its first (the person's first message). */
export interface Opening {
  party: Party;
  name: string;
  email: string;
  tokenHash: string;
}

export type ConversationCommand =
  | {
      type: 'SendMessage';
      conversationId: string;
      messageId: string;
      from: MessageFrom;
      /** Sealed text, and the length of the plain text once trimmed. */
      text: string;
      textLength: number;
      internal: boolean;
      /** The person's own id (investor / visitor) or the admin's. */
      senderId: string;
      senderRole: string;
      depositAddress?: SharedAddress;
      /** A file already checked and stored by the use case (removed again when this decides nothing or throws). */
      attachment?: AttachmentData;
      /** Given when the person's first message may open the conversation. */
      opening?: Opening;
      now: Date;
    }
  | {
      type: 'AssignConversation';
      conversationId: string;
      assigneeId: string;
      adminId: string;
      adminRole: string;
      now: Date;
    }
  | { type: 'CloseConversation'; conversationId: string; adminId: string; adminRole: string; now: Date }
  | { type: 'ReopenConversation'; conversationId: string; adminId: string; adminRole: string; now: Date }
  | { type: 'BlockVisitor'; conversationId: string; adminId: string; adminRole: string; now: Date }
  | { type: 'JoinAccount'; conversationId: string; userId: string; now: Date }
  | { type: 'RequestReplyEmail'; conversationId: string; reason: EmailReason; link: string; now: Date }
  | { type: 'EraseConversation'; conversationId: string; now: Date };

// ---- state ----
export interface ConversationState {
  exists: boolean;
  conversationId: string;
  party: Party;
  name: string;
  email: string;
  tokenHash: string;
  status: 'open' | 'closed';
  assigneeId: string;
  blocked: boolean;
  /** Ids of the messages recorded (a retried send decides nothing). */
  messageIds: ReadonlySet<string>;
  /** A reply email was asked for since the person last wrote. */
  emailed: boolean;
  /** Support answered something the person has not seen by email or socket yet. */
  repliesPending: boolean;
  /** The visitor was emailed the link to the conversation they opened. */
  welcomed: boolean;
}

export const initialState = (): ConversationState => ({
  exists: false,
  conversationId: '',
  party: { userId: '', visitorId: '' },
  name: '',
  email: '',
  tokenHash: '',
  status: 'open',
  assigneeId: '',
  blocked: false,
  messageIds: new Set(),
  emailed: false,
  repliesPending: false,
  welcomed: false,
});

export function evolve(state: ConversationState, event: ConversationEvent): ConversationState {
  switch (event.type) {
    case 'ConversationStarted':
      return {
        ...initialState(),
        exists: true,
        conversationId: event.data.conversationId,
        party: event.data.party,
        name: event.data.name,
        email: event.data.email,
        tokenHash: event.data.tokenHash,
      };
    case 'MessageSent': {
      const m = event.data.message;
      const messageIds = new Set(state.messageIds).add(m.messageId);
      if (m.from === 'investor') return { ...state, messageIds, emailed: false, repliesPending: false };
      return { ...state, messageIds, repliesPending: state.repliesPending || !m.internal };
    }
    case 'ConversationAssigned':
      return { ...state, assigneeId: event.data.assigneeId };
    case 'ConversationClosed':
      return { ...state, status: 'closed' };
    case 'ConversationReopened':
      return { ...state, status: 'open' };
    case 'VisitorBlocked':
      return { ...state, blocked: true, status: 'closed' };
    case 'ConversationJoined':
      return { ...state, party: { userId: event.data.userId, visitorId: event.data.visitorId } };
    case 'ReplyEmailRequested':
      return event.data.reason === 'started'
        ? { ...state, welcomed: true }
        : { ...state, emailed: true, repliesPending: false };
    case 'ConversationErased':
      return { ...initialState(), conversationId: state.conversationId };
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * A message's text as stored: 1..MAX_TEXT_LENGTH characters once trimmed, or none at all when a file is
 * attached (the caller trims and seals).
 */
export function checkTextLength(length: number, withAttachment = false): void {
  if (length <= 0 && !withAttachment) throw invalid(SUPPORT_MESSAGES.emptyText, 'EMPTY_MESSAGE');
  if (length > MAX_TEXT_LENGTH) throw invalid(SUPPORT_MESSAGES.textTooLong, 'MESSAGE_TOO_LONG');
}

/** The plain text a message keeps: trimmed; line breaks kept, other control characters dropped. */
export function normaliseText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return (
    text
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .trim()
  );
}

/** The pre-chat form's name: 1..100 characters. */
export function checkVisitorName(name: string): string {
  const text = normaliseText(name).replace(/\s+/g, ' ');
  if (!text) throw invalid(SUPPORT_MESSAGES.nameRequired);
  if (text.length > 100) throw invalid(SUPPORT_MESSAGES.nameTooLong);
  return text;
}

/** The pre-chat form's email, canonicalised to lower case. */
export function checkVisitorEmail(email: string): string {
  const text = normaliseText(email).toLowerCase();
  if (text.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text))
    throw invalid(SUPPORT_MESSAGES.emailRequired);
  return text;
}

const requireAdmin = (role: string) => {
  if (role !== 'admin') throw forbidden(SUPPORT_MESSAGES.notAdmin);
};

const requireExists = (state: ConversationState) => {
  if (!state.exists) throw notFound(SUPPORT_MESSAGES.notFound, 'CONVERSATION_NOT_FOUND');
};

function decideSend(
  command: Extract<ConversationCommand, { type: 'SendMessage' }>,
  state: ConversationState,
): ConversationEvent[] {
  if (state.messageIds.has(command.messageId)) return [];
  checkTextLength(command.textLength, !!command.attachment);
  if (command.attachment) {
    assertAttachmentData(command.attachment);
    if (command.depositAddress) throw invalid(ATTACHMENT_MESSAGES.withAddress);
  }
  const now = command.now.toISOString();
  const events: ConversationEvent[] = [];
  let current = state;
  if (!state.exists) {
    if (command.from !== 'investor' || !command.opening)
      throw notFound(SUPPORT_MESSAGES.notFound, 'CONVERSATION_NOT_FOUND');
    const started: ConversationEvent = {
      type: 'ConversationStarted',
      data: {
        conversationId: command.conversationId,
        party: command.opening.party,
        name: command.opening.name,
        email: command.opening.email,
        tokenHash: command.opening.tokenHash,
        startedAt: now,
      },
    };
    events.push(started);
    current = evolve(current, started);
  }
  if (command.from === 'investor') {
    if (current.blocked) throw forbidden(SUPPORT_MESSAGES.blocked, 'VISITOR_BLOCKED');
    if (command.internal) throw forbidden(SUPPORT_MESSAGES.internalBySupport);
    if (current.status === 'closed')
      events.push({
        type: 'ConversationReopened',
        data: {
          conversationId: command.conversationId,
          party: current.party,
          reopenedBy: command.senderId,
          reopenedAt: now,
        },
      });
  } else {
    requireAdmin(command.senderRole);
    if (current.status === 'closed' && !command.internal)
      throw conflict(SUPPORT_MESSAGES.closed, 'CONVERSATION_CLOSED');
  }
  events.push({
    type: 'MessageSent',
    data: {
      party: current.party,
      message: {
        messageId: command.messageId,
        conversationId: command.conversationId,
        from: command.from,
        text: command.text,
        createdAt: now,
        internal: command.internal,
        authorId: command.from === 'investor' ? '' : command.senderId,
        depositAddress: command.depositAddress ?? null,
        ...(command.attachment ? { attachment: command.attachment } : {}),
      },
    },
  });
  return events;
}

export function decide(command: ConversationCommand, state: ConversationState): ConversationEvent[] {
  const now = command.now.toISOString();
  const ids = { conversationId: command.conversationId, party: state.party };
  switch (command.type) {
    case 'SendMessage':
      return decideSend(command, state);
    case 'AssignConversation':
      requireAdmin(command.adminRole);
      requireExists(state);
      if (state.assigneeId === command.assigneeId) return [];
      return [
        {
          type: 'ConversationAssigned',
          data: { ...ids, assigneeId: command.assigneeId, assignedBy: command.adminId, assignedAt: now },
        },
      ];
    case 'CloseConversation':
      requireAdmin(command.adminRole);
      requireExists(state);
      if (state.status === 'closed') throw conflict(SUPPORT_MESSAGES.alreadyClosed);
      return [{ type: 'ConversationClosed', data: { ...ids, closedBy: command.adminId, closedAt: now } }];
    case 'ReopenConversation':
      requireAdmin(command.adminRole);
      requireExists(state);
      if (state.status === 'open') throw conflict(SUPPORT_MESSAGES.alreadyOpen);
      return [
        { type: 'ConversationReopened', data: { ...ids, reopenedBy: command.adminId, reopenedAt: now } },
      ];
    case 'BlockVisitor':
      requireAdmin(command.adminRole);
      requireExists(state);
      if (!state.party.visitorId || state.party.userId) throw conflict(SUPPORT_MESSAGES.notVisitor);
      if (state.blocked) return [];
      return [{ type: 'VisitorBlocked', data: { ...ids, blockedBy: command.adminId, blockedAt: now } }];
    case 'JoinAccount':
      if (!state.exists || !state.party.visitorId || state.party.userId || state.blocked) return [];
      return [
        {
          type: 'ConversationJoined',
          data: {
            conversationId: command.conversationId,
            visitorId: state.party.visitorId,
            userId: command.userId,
            joinedAt: now,
          },
        },
      ];
    case 'RequestReplyEmail': {
      if (!state.exists || !state.email) return [];
      const due =
        command.reason === 'started'
          ? !!state.party.visitorId && !state.welcomed
          : !state.emailed && state.repliesPending;
      if (!due) return [];
      const data = { ...ids, email: state.email, name: state.name, link: command.link, requestedAt: now };
      return [{ type: 'ReplyEmailRequested', data: { ...data, reason: command.reason } }];
    }
    case 'EraseConversation':
      return state.exists ? [{ type: 'ConversationErased', data: { ...ids, erasedAt: now } }] : [];
    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const conversationDecider: Decider<ConversationCommand, ConversationEvent, ConversationState> = {
  decide,
  evolve,
  initialState,
};
