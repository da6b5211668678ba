/**
 * Use cases of support conversations: the investor's own conversation, a visitor's (pre-chat name and
 * email, an access token), the addresses a person was given, and what support's side (inbox.ts) shares.
 * Each command runs decide() on the conversation's stream and writes events, outbox and read models in one
 * transaction. Texts, names and emails are sealed with the person's key before they reach the command;
 * answers leave opened (the gRPC adapter's openingAnswers).
 */
import { timingSafeEqual } from 'node:crypto';
import { forbidden, notFound, unauthenticated } from '@meridian/platform/eventSourcing/errors';
import { eventMeta, requireActor } from '@meridian/platform/app/requestContext';
import type { Actor, EventMeta } from '@meridian/platform/eventSourcing/types';
import type { AttachmentData } from '../domain/attachment.js';
import {
  type ConversationCommand,
  type EmailReason,
  type MessageData,
  type Party,
  type SharedAddress,
  SUPPORT_MESSAGES,
  checkTextLength,
  checkVisitorEmail,
  checkVisitorName,
  normaliseText,
} from '../domain/conversation.js';
import {
  COLLECTIONS,
  type ConversationDoc,
  type MessageDoc,
  sharedAddressOf,
} from '../projections/supportViews.js';
import {
  type SupportContext,
  emailIndexOf,
  executeConversation,
  investorConversationId,
  ownerOf,
  tokenHashOf,
  visitorTokenOf,
} from './context.js';
import {
  type AttachmentContent,
  type AttachmentUpload,
  type AttachmentView,
  attachmentView,
  readAttachment,
  withAttachment,
} from './attachments.js';

/** A caller as the gateway established it, with the correlation id of the request. */
export interface SupportCaller extends Actor {
  correlationId: string;
}

/** A conversation as the API answers it (values still sealed; opened on the way out). */
export interface ConversationView {
  conversationId: string;
  userId: string;
  visitorId: string;
  name: string;
  email: string;
  status: string;
  assigneeId: string;
  startedAt: string;
  lastMessageAt: string;
  lastMessageText: string;
  unread: number;
  blocked: boolean;
}

/** A message as answered: its text opened, the shared address and the attachment only when it has one. */
export interface MessageView extends Omit<MessageData, 'depositAddress' | 'attachment'> {
  depositAddress?: SharedAddress;
  attachment?: AttachmentView;
}

export interface ConversationWithMessages {
  conversation?: ConversationView;
  messages: MessageView[];
}

export const VISITOR_MESSAGES = {
  badToken: 'This conversation link is not valid',
} as const;

export const conversationView = (doc: ConversationDoc): ConversationView => ({
  conversationId: doc.conversationId,
  userId: doc.userId,
  visitorId: doc.visitorId,
  name: doc.name,
  email: doc.email,
  status: doc.status,
  assigneeId: doc.assigneeId,
  startedAt: doc.startedAt,
  lastMessageAt: doc.lastMessageAt,
  lastMessageText: doc.lastMessageText,
  unread: doc.unread,
  blocked: doc.blocked,
});

export const messageView = (doc: MessageDoc): MessageView => ({
  messageId: doc.messageId,
  conversationId: doc.conversationId,
  from: doc.from,
  text: doc.text,
  createdAt: doc.createdAt,
  internal: doc.internal,
  authorId: doc.authorId,
  ...(doc.depositAddress ? { depositAddress: doc.depositAddress } : {}),
  ...(doc.attachment ? { attachment: attachmentView(doc.attachment) } : {}),
});

export const meta = (caller: SupportCaller) => eventMeta(caller.correlationId, caller);

export async function messagesOf(
  ctx: SupportContext,
  conversationId: string,
  withInternal: boolean,
): Promise<MessageView[]> {
  const docs = await ctx.store.find<MessageDoc>(COLLECTIONS.messages, {
    where: { conversationId },
    orderBy: { field: 'createdAt', direction: 'asc' },
  });
  return docs.filter((m) => withInternal || !m.internal).map(messageView);
}

export async function withMessages(
  ctx: SupportContext,
  doc: ConversationDoc | null,
  withInternal: boolean,
): Promise<ConversationWithMessages> {
  if (!doc) return { messages: [] };
  return {
    conversation: conversationView(doc),
    messages: await messagesOf(ctx, doc.conversationId, withInternal),
  };
}

/**
 * The plain text of a message, checked (1..2,000 characters; none needed beside a file) and sealed with
 * the owner's key.
 */
export async function sealedText(ctx: SupportContext, owner: string, text: unknown, withFile = false) {
  const plain = normaliseText(text);
  checkTextLength(plain.length, withFile);
  // no text beside a file: nothing to seal (the inbox list then shows the file's name)
  const sealed = plain ? await ctx.personalData.seal(owner, plain) : '';
  return { text: sealed, textLength: plain.length };
}

// ---------- investors ----------

export interface InvestorInput {
  caller: SupportCaller;
  /** From identity's user view (the gateway's session). */
  name: string;
  email: string;
  verified: boolean;
}

/**
 * The investor's conversation: the newest one joined to their account. Visitor conversations opened with
 * the investor's verified email join the account first (the visitor signed in).
 */
async function findMine(ctx: SupportContext, input: InvestorInput): Promise<ConversationDoc | null> {
  const caller = requireActor(input.caller);
  if (input.verified && input.email) await joinVisitorConversations(ctx, input.caller, input.email);
  const mine = await ctx.store.find<ConversationDoc>(COLLECTIONS.conversations, {
    where: { userId: caller.userId },
    orderBy: { field: 'lastMessageAt', direction: 'desc' },
    limit: 1,
  });
  return mine[0] ?? null;
}

/** Joins every visitor conversation opened with this (verified) email to the account. */
async function joinVisitorConversations(ctx: SupportContext, caller: SupportCaller, email: string) {
  const index = emailIndexOf(ctx, email);
  const waiting = await ctx.store.find<ConversationDoc>(COLLECTIONS.conversations, {
    where: { emailIndex: index },
  });
  for (const doc of waiting) {
    await executeConversation(
      ctx,
      doc.conversationId,
      { type: 'JoinAccount', conversationId: doc.conversationId, userId: caller.userId, now: ctx.clock() },
      meta(caller),
    );
  }
}

export async function getMine(ctx: SupportContext, input: InvestorInput): Promise<ConversationWithMessages> {
  return withMessages(ctx, await findMine(ctx, input), false);
}

export interface SendResult {
  conversation: ConversationView;
  message: MessageView;
}

export async function sent(
  ctx: SupportContext,
  conversationId: string,
  messageId: string,
): Promise<SendResult> {
  const [doc, message] = await Promise.all([
    ctx.store.get<ConversationDoc>(COLLECTIONS.conversations, conversationId),
    ctx.store.get<MessageDoc>(COLLECTIONS.messages, messageId),
  ]);
  if (!doc || !message) throw notFound(SUPPORT_MESSAGES.notFound);
  return { conversation: conversationView(doc), message: messageView(message) };
}

/** The investor writes: into their conversation, opened by this first message when they have none. */
export async function sendMine(
  ctx: SupportContext,
  input: InvestorInput & { text: unknown; attachment?: AttachmentUpload },
): Promise<SendResult> {
  const caller = requireActor(input.caller);
  // the person's own words: an admin viewing as them cannot put words (or files) in their mouth
  if (caller.impersonatorId) throw forbidden(SUPPORT_MESSAGES.impersonating);
  const existing = await findMine(ctx, input);
  const conversationId = existing?.conversationId ?? investorConversationId(caller.userId);
  const party: Party = { userId: caller.userId, visitorId: existing?.visitorId ?? '' };
  const { text, textLength } = await sealedText(ctx, caller.userId, input.text, !!input.attachment);
  const [name, email] = await Promise.all([
    ctx.personalData.seal(caller.userId, input.name || ''),
    ctx.personalData.seal(caller.userId, input.email || ''),
  ]);
  const messageId = ctx.newId();
  return sendWith(
    ctx,
    caller.userId,
    input.attachment,
    conversationId,
    messageId,
    (attachment) => ({
      type: 'SendMessage',
      conversationId,
      messageId,
      from: 'investor',
      text,
      textLength,
      internal: false,
      senderId: caller.userId,
      senderRole: caller.role,
      opening: { party, name, email, tokenHash: '' },
      ...(attachment ? { attachment } : {}),
      now: ctx.clock(),
    }),
    meta(input.caller),
  );
}

type SendMessage = Extract<ConversationCommand, { type: 'SendMessage' }>;

/**
 * Sends a message built by `command` on the conversation, with the upload (if any) checked and stored
 * for `owner` first and removed again when the message is refused; answers the message as recorded.
 */
export async function sendWith(
  ctx: SupportContext,
  owner: string,
  upload: AttachmentUpload | undefined,
  conversationId: string,
  messageId: string,
  command: (attachment?: AttachmentData) => SendMessage,
  eventMeta: EventMeta,
): Promise<SendResult> {
  await withAttachment(ctx, owner, upload, async (attachment) => {
    const { events } = await executeConversation(ctx, conversationId, command(attachment), eventMeta);
    return { result: undefined, recorded: events.length > 0 };
  });
  return sent(ctx, conversationId, messageId);
}

/**
 * Sends `input`'s text (and upload) on an existing conversation as `sender`: sealed with the conversation
 * owner's key, through sendWith.
 */
export async function sendOnConversation(
  ctx: SupportContext,
  doc: ConversationDoc,
  input: { text: unknown; attachment?: AttachmentUpload },
  sender: Pick<SendMessage, 'from' | 'internal' | 'senderId' | 'senderRole'>,
  eventMeta: EventMeta,
): Promise<SendResult> {
  const owner = ownerOf(doc);
  const { text, textLength } = await sealedText(ctx, owner, input.text, !!input.attachment);
  const messageId = ctx.newId();
  return sendWith(
    ctx,
    owner,
    input.attachment,
    doc.conversationId,
    messageId,
    (attachment) => ({
      type: 'SendMessage',
      conversationId: doc.conversationId,
      messageId,
      ...sender,
      text,
      textLength,
      ...(attachment ? { attachment } : {}),
      now: ctx.clock(),
    }),
    eventMeta,
  );
}

// ---------- visitors ----------

export interface StartVisitorResult extends ConversationWithMessages {
  token: string;
}

/** A visitor's token: `<conversationId>.<secret>`; only the secret's digest is kept. */
async function visitorConversation(ctx: SupportContext, token: string): Promise<ConversationDoc> {
  const [conversationId, secret] = String(token ?? '').split('.');
  if (!conversationId || !secret) throw unauthenticated(VISITOR_MESSAGES.badToken);
  const doc = await ctx.store.get<ConversationDoc>(COLLECTIONS.conversations, conversationId);
  const given = Buffer.from(tokenHashOf(secret));
  const kept = Buffer.from(doc?.tokenHash ?? '');
  if (!doc || !doc.visitorId || given.length !== kept.length || !timingSafeEqual(given, kept))
    throw unauthenticated(VISITOR_MESSAGES.badToken);
  return doc;
}

/** A visitor opens a conversation with the pre-chat form: name, email and the first message. */
export async function startVisitor(
  ctx: SupportContext,
  input: { name: unknown; email: unknown; text: unknown; correlationId: string; address?: string },
): Promise<StartVisitorResult> {
  const plainName = checkVisitorName(String(input.name ?? ''));
  const plainEmail = checkVisitorEmail(String(input.email ?? ''));
  const visitorId = `visitor-${ctx.newId()}`;
  const conversationId = ctx.newId();
  const token = visitorTokenOf(ctx, conversationId);
  const secret = token.slice(conversationId.length + 1);
  // the client address is personal data too: kept sealed with the visitor's key, as the gateway seals a user's
  const actor: SupportCaller = {
    userId: visitorId,
    role: 'visitor',
    correlationId: input.correlationId,
    ...(input.address ? { address: await ctx.personalData.seal(visitorId, input.address) } : {}),
  };
  const [name, email] = await Promise.all([
    ctx.personalData.seal(visitorId, plainName),
    ctx.personalData.seal(visitorId, plainEmail),
  ]);
  const { text, textLength } = await sealedText(ctx, visitorId, input.text);
  await executeConversation(
    ctx,
    conversationId,
    {
      type: 'SendMessage',
      conversationId,
      messageId: ctx.newId(),
      from: 'investor',
      text,
      textLength,
      internal: false,
      senderId: visitorId,
      senderRole: 'visitor',
      opening: { party: { userId: '', visitorId }, name, email, tokenHash: tokenHashOf(secret) },
      now: ctx.clock(),
    },
    meta(actor),
    emailIndexOf(ctx, plainEmail),
  );
  // the link to come back to the conversation, by email
  await requestEmail(ctx, conversationId, 'started', input.correlationId);
  const doc = await ctx.store.get<ConversationDoc>(COLLECTIONS.conversations, conversationId);
  return { ...(await withMessages(ctx, doc, false)), token };
}

export async function getVisitor(ctx: SupportContext, token: string): Promise<ConversationWithMessages> {
  return withMessages(ctx, await visitorConversation(ctx, token), false);
}

export async function sendVisitor(
  ctx: SupportContext,
  input: { token: string; text: unknown; correlationId: string; attachment?: AttachmentUpload },
): Promise<SendResult> {
  const doc = await visitorConversation(ctx, input.token);
  // a conversation that joined an account is the investor's now: written to when signed in
  if (doc.userId) throw forbidden(VISITOR_MESSAGES.badToken);
  return sendOnConversation(
    ctx,
    doc,
    input,
    { from: 'investor', internal: false, senderId: doc.visitorId, senderRole: 'visitor' },
    eventMeta(input.correlationId, { userId: doc.visitorId, role: 'visitor' }),
  );
}

/** A conversation by id, or NOT_FOUND. */
export async function requireConversation(
  ctx: SupportContext,
  conversationId: string,
): Promise<ConversationDoc> {
  const doc = conversationId
    ? await ctx.store.get<ConversationDoc>(COLLECTIONS.conversations, conversationId)
    : null;
  if (!doc) throw notFound(SUPPORT_MESSAGES.notFound, 'CONVERSATION_NOT_FOUND');
  return doc;
}

/**
 * Asks for an email to the conversation's person (the decider says whether one is due), linking back to
 * it: an investor's chat, or a visitor's with their access token (sealed with the visitor's key).
 */
export async function requestEmail(
  ctx: SupportContext,
  conversationId: string,
  reason: EmailReason,
  correlationId: string,
): Promise<boolean> {
  const doc = await requireConversation(ctx, conversationId);
  const link = doc.userId
    ? '/dashboard?support=open'
    : `/?support=${encodeURIComponent(visitorTokenOf(ctx, conversationId))}`;
  const sealedLink = await ctx.personalData.seal(ownerOf(doc), link);
  const { events } = await executeConversation(
    ctx,
    conversationId,
    { type: 'RequestReplyEmail', conversationId, reason, link: sealedLink, now: ctx.clock() },
    eventMeta(correlationId),
  );
  return events.length > 0;
}

/** The (active or retired) addresses support gave this user in their conversations, newest first. */
export async function givenAddresses(ctx: SupportContext, userId: string): Promise<SharedAddress[]> {
  if (!userId) throw unauthenticated('Not authenticated');
  const conversations = await ctx.store.find<ConversationDoc>(COLLECTIONS.conversations, {
    where: { userId },
  });
  const seen = new Map<string, SharedAddress>();
  for (const c of conversations) {
    const messages = await ctx.store.find<MessageDoc>(COLLECTIONS.messages, {
      where: { conversationId: c.conversationId },
      orderBy: { field: 'createdAt', direction: 'desc' },
    });
    for (const m of messages)
      if (m.depositAddress && !m.internal && !seen.has(m.addressId)) seen.set(m.addressId, m.depositAddress);
  }
  return [...seen.values()];
}

export const ADDRESS_NOT_GIVEN = 'This deposit address was not given to you in your support conversation';

/** The address `addressId` when support gave it to this user; else NOT_FOUND (the declaration is refused). */
export async function givenAddress(
  ctx: SupportContext,
  input: { userId: string; addressId: string },
): Promise<SharedAddress> {
  const found = (await givenAddresses(ctx, input.userId)).find((a) => a.addressId === input.addressId);
  if (!found) throw notFound(ADDRESS_NOT_GIVEN, 'ADDRESS_NOT_GIVEN');
  const current = await ctx.store.get<Parameters<typeof sharedAddressOf>[0]>(
    COLLECTIONS.addresses,
    input.addressId,
  );
  return current ? sharedAddressOf(current) : found;
}

/**
 * A message's attachment for whoever asks: an admin, the conversation's investor, or its visitor (by
 * their access token); NOT_FOUND for anyone else (never another person's file).
 */
export async function getAttachment(
  ctx: SupportContext,
  input: { caller?: SupportCaller; visitorToken: string; attachmentId: string },
): Promise<AttachmentContent> {
  if (input.caller?.userId)
    return readAttachment(
      ctx,
      { kind: 'user', userId: input.caller.userId, role: input.caller.role },
      input.attachmentId,
    );
  const doc = await visitorConversation(ctx, input.visitorToken);
  return readAttachment(ctx, { kind: 'visitor', conversationId: doc.conversationId }, input.attachmentId);
}
