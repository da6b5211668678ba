/**
 * What the support use cases share: the store, time, ids, sealing, and the two streams (conversation,
 * address) on the platform's one command path (commandHandler.ts) with their read models.
 */
import { createHash, createHmac } from 'node:crypto';
import {
  type CommandResult,
  type CommandStream,
  handleCommand,
  loadStream,
  projectDocument,
} from '@meridian/platform/app/commandHandler';
import { inTransaction } from '@meridian/platform/app/requestContext';
import { domainEventOf, type EventMeta, type StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { PrivateFileStore, StoredFileMeta } from '@meridian/platform/files/privateFiles';
import type { PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore, StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type ConversationCommand,
  type ConversationEvent,
  type ConversationState,
  conversationDecider,
  toConversationStreamId,
} from '../domain/conversation.js';
import {
  type AddressCommand,
  type AddressEvent,
  type AddressState,
  addressBookDecider,
  toAddressStreamId,
} from '../domain/addressBook.js';
import {
  COLLECTIONS,
  type AddressDoc,
  type ConversationDoc,
  messageDocOf,
  projectAddress,
  projectConversation,
} from '../projections/supportViews.js';

export const SERVICE = 'support';

/** Where the service keeps attachments: private files, one folder or bucket (app/attachments.ts names it). */
export type AttachmentStore = PrivateFileStore<StoredFileMeta>;

export interface SupportContext {
  store: ServiceStore;
  clock: () => Date;
  newId: () => string;
  logger?: Logger;
  /** Seals names, emails and texts with the person's key (a visitor's: a key of the visitor's own id). */
  personalData: PersonalData;
  /** Attachments' bytes, sealed with the conversation owner's key (app/attachments.ts). */
  attachments: AttachmentStore;
  /** HMAC key of visitors' access tokens and of the blind index of their emails (a sign-in finds them). */
  secretKey: string;
}

/** The blind index of a canonical email (lower case, trimmed). */
export const emailIndexOf = (ctx: Pick<SupportContext, 'secretKey'>, email: string): string =>
  createHmac('sha256', ctx.secretKey)
    .update(`email:${email.trim().toLowerCase()}`, 'utf8')
    .digest('base64url');

/**
 * A visitor's access token, `<conversationId>.<secret>`: the secret is an HMAC of the conversation id,
 * so the emailed link can carry it again; the conversation keeps only its digest.
 */
export const visitorTokenOf = (ctx: Pick<SupportContext, 'secretKey'>, conversationId: string): string =>
  `${conversationId}.${createHmac('sha256', ctx.secretKey).update(`visitor:${conversationId}`, 'utf8').digest('base64url')}`;

/** The digest a visitor's token is kept as (the token itself is never stored). */
export const tokenHashOf = (secret: string): string =>
  createHash('sha256').update(secret).digest('base64url');

/** The one conversation an investor opens themselves: its id follows from theirs (two first messages at once meet on one stream). */
export const investorConversationId = (userId: string): string =>
  createHash('sha256').update(`support-conversation:${userId}`).digest('hex').slice(0, 32);

/** The key owner of a conversation's personal values. */
export const ownerOf = (party: { userId: string; visitorId: string }): string =>
  party.userId || party.visitorId;

async function projectConversationEvents(
  tx: StoreTx,
  events: readonly StoredEvent<ConversationEvent>[],
  conversationId: string,
  emailIndex: string,
): Promise<void> {
  await projectDocument<ConversationEvent, ConversationDoc>(
    tx,
    COLLECTIONS.conversations,
    conversationId,
    events,
    (doc, e) => projectConversation(doc, domainEventOf(e), emailIndex),
    'delete',
  );
  for (const e of events.map(domainEventOf)) {
    if (e.type === 'MessageSent') {
      const { message } = e.data;
      await tx.put(COLLECTIONS.messages, message.messageId, messageDocOf(message));
    } else if (e.type === 'ConversationErased') {
      const messages = await tx.find<{ id: string }>(COLLECTIONS.messages, { where: { conversationId } });
      for (const m of messages) await tx.delete(COLLECTIONS.messages, m.id);
    }
  }
}

const conversationStream = (
  emailIndex = '',
): CommandStream<ConversationCommand, ConversationEvent, ConversationState> => ({
  decider: conversationDecider,
  streamIdOf: toConversationStreamId,
  project: (tx, events, id) => projectConversationEvents(tx, events, id, emailIndex),
});

const ADDRESS_STREAM: CommandStream<AddressCommand, AddressEvent, AddressState> = {
  decider: addressBookDecider,
  streamIdOf: toAddressStreamId,
  project: async (tx, events, id) => {
    await projectDocument<AddressEvent, AddressDoc>(
      tx,
      COLLECTIONS.addresses,
      id,
      events,
      (doc, e) => projectAddress(doc, domainEventOf(e)),
      'keep',
    );
  },
};

export const loadConversation = (reads: StoreReads, conversationId: string) =>
  loadStream(reads, conversationStream(), conversationId);

export const loadAddress = (reads: StoreReads, addressId: string) =>
  loadStream(reads, ADDRESS_STREAM, addressId);

/** decide -> append -> project on a conversation, in `tx` (the caller's transaction). */
export const executeConversationIn = (
  tx: StoreTx,
  conversationId: string,
  command: ConversationCommand | ((state: ConversationState) => ConversationCommand),
  meta: EventMeta,
  emailIndex = '',
): Promise<CommandResult<ConversationEvent, ConversationState>> =>
  handleCommand(tx, conversationStream(emailIndex), conversationId, command, meta);

/** The same in a transaction of its own, retried on a concurrent append. */
export const executeConversation = (
  ctx: Pick<SupportContext, 'store'>,
  conversationId: string,
  command: ConversationCommand | ((state: ConversationState) => ConversationCommand),
  meta: EventMeta,
  emailIndex = '',
): Promise<CommandResult<ConversationEvent, ConversationState>> =>
  inTransaction(ctx, (tx) => executeConversationIn(tx, conversationId, command, meta, emailIndex));

export const executeAddress = (
  ctx: Pick<SupportContext, 'store'>,
  addressId: string,
  command: AddressCommand,
  meta: EventMeta,
): Promise<CommandResult<AddressEvent, AddressState>> =>
  inTransaction(ctx, (tx) => handleCommand(tx, ADDRESS_STREAM, addressId, command, meta));
