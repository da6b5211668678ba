/**
 * Read models of the support service, written in the same transaction as the events they come from.
 * Pure: each `project...` turns the current document and one event into the next document.
 *
 * | collection       | id             | from                                                           |
 * |------------------|----------------|----------------------------------------------------------------|
 * | conversations    | conversationId | the conversation's events (inbox fields, sealed name/email)     |
 * | supportMessages  | messageId      | MessageSent (sealed text), dropped with ConversationErased      |
 * | depositAddresses | addressId      | the address book's events                                      |
 *
 * The visitor's access-token digest and the email's blind index are the conversation's (the index is
 * cleared once the conversation joins an account).
 */
import type { ConversationEvent, MessageData, SharedAddress } from '../domain/conversation.js';
import type { AddressEvent, AddressStatus } from '../domain/addressBook.js';

export const COLLECTIONS = {
  conversations: 'conversations',
  messages: 'supportMessages',
  addresses: 'depositAddresses',
} as const;

/** The indexes the queries read (inbox filters, one conversation's messages, an investor's conversations). */
export const SUPPORT_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: COLLECTIONS.conversations, fields: ['userId'] },
  { collection: COLLECTIONS.conversations, fields: ['emailIndex'] },
  { collection: COLLECTIONS.conversations, fields: ['status', 'lastMessageAt'] },
  { collection: COLLECTIONS.messages, fields: ['conversationId', 'createdAt'] },
  { collection: COLLECTIONS.messages, fields: ['attachmentId'] },
];

export interface ConversationDoc {
  id: string;
  conversationId: string;
  userId: string;
  visitorId: string;
  /** Sealed. */
  name: string;
  email: string;
  /** Blind index of a visitor's email while the conversation waits to join an account ('' otherwise). */
  emailIndex: string;
  tokenHash: string;
  status: 'open' | 'closed';
  assigneeId: string;
  blocked: boolean;
  startedAt: string;
  lastMessageAt: string;
  /** Sealed; internal notes left out. */
  lastMessageText: string;
  /** The person's messages since support last answered. */
  unread: number;
  /** 1 while open with unread messages (the dashboard tile counts these). */
  awaitingReply: number;
}

export interface MessageDoc extends MessageData {
  id: string;
  /** The shared address's id ('' when none), for the deposit declaration's check. */
  addressId: string;
  /** The attachment's id ('' when none), for its download. */
  attachmentId?: string;
}

export interface AddressDoc {
  id: string;
  addressId: string;
  network: string;
  label: string;
  address: string;
  status: AddressStatus;
  createdAt: string;
  createdBy: string;
}

const awaiting = (doc: Pick<ConversationDoc, 'status' | 'unread'>) =>
  doc.status === 'open' && doc.unread > 0 ? 1 : 0;

/**
 * The conversation's document after `event` (null: erased). `emailIndex` is given by the caller for
 * ConversationStarted of a visitor (a keyed digest is not the projection's to compute).
 */
export function projectConversation(
  doc: ConversationDoc | null,
  event: ConversationEvent,
  emailIndex = '',
): ConversationDoc | null {
  const next = ((): ConversationDoc | null => {
    switch (event.type) {
      case 'ConversationStarted':
        return {
          id: event.data.conversationId,
          conversationId: event.data.conversationId,
          userId: event.data.party.userId,
          visitorId: event.data.party.visitorId,
          name: event.data.name,
          email: event.data.email,
          emailIndex: event.data.party.userId ? '' : emailIndex,
          tokenHash: event.data.tokenHash,
          status: 'open',
          assigneeId: '',
          blocked: false,
          startedAt: event.data.startedAt,
          lastMessageAt: event.data.startedAt,
          lastMessageText: '',
          unread: 0,
          awaitingReply: 0,
        };
      case 'MessageSent': {
        if (!doc) return null;
        const m = event.data.message;
        if (m.internal) return doc;
        return {
          ...doc,
          lastMessageAt: m.createdAt,
          // a file alone reads as its name in the inbox list
          lastMessageText: m.text || m.attachment?.name || '',
          unread: m.from === 'investor' ? doc.unread + 1 : 0,
        };
      }
      case 'ConversationAssigned':
        return doc && { ...doc, assigneeId: event.data.assigneeId };
      case 'ConversationClosed':
        return doc && { ...doc, status: 'closed' };
      case 'ConversationReopened':
        return doc && { ...doc, status: 'open' };
      case 'VisitorBlocked':
        return doc && { ...doc, blocked: true, status: 'closed' };
      case 'ConversationJoined':
        return doc && { ...doc, userId: event.data.userId, emailIndex: '' };
      case 'ReplyEmailRequested':
        return doc;
      case 'ConversationErased':
        return null;
      default: {
        const _exhaustive: never = event;
        return doc;
      }
    }
  })();
  return next && { ...next, awaitingReply: awaiting(next) };
}

export function messageDocOf(message: MessageData): MessageDoc {
  return {
    ...message,
    id: message.messageId,
    addressId: message.depositAddress?.addressId ?? '',
    attachmentId: message.attachment?.attachmentId ?? '',
  };
}

export function projectAddress(doc: AddressDoc | null, event: AddressEvent): AddressDoc | null {
  switch (event.type) {
    case 'DepositAddressAdded':
      return {
        id: event.data.addressId,
        addressId: event.data.addressId,
        network: event.data.network,
        label: event.data.label,
        address: event.data.address,
        status: 'active',
        createdAt: event.data.createdAt,
        createdBy: event.data.createdBy,
      };
    case 'DepositAddressRetired':
      return doc && { ...doc, status: 'retired' };
    default: {
      const _exhaustive: never = event;
      return doc;
    }
  }
}

export const sharedAddressOf = (doc: AddressDoc): SharedAddress => ({
  addressId: doc.addressId,
  network: doc.network,
  address: doc.address,
  label: doc.label,
});
