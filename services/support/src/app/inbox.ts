/**
 * Support's side of the conversations (admins): the inbox, reading and replying (a reply claims an unheld
 * conversation), sending a deposit address from the address book, assignment, close / reopen, blocking a
 * visitor, the unread count and the offline reply email. The investor's and the visitor's side, and what
 * both share, are in conversations.ts.
 */
import { requireAdmin } from '@meridian/platform/app/requestContext';
import { assertSendable } from '../domain/addressBook.js';
import type { ConversationCommand, SharedAddress } from '../domain/conversation.js';
import { COLLECTIONS, type ConversationDoc } from '../projections/supportViews.js';
import type { AttachmentUpload } from './attachments.js';
import {
  type ConversationView,
  type ConversationWithMessages,
  type SendResult,
  type SupportCaller,
  conversationView,
  meta,
  requestEmail,
  requireConversation,
  sendOnConversation,
  sent,
  withMessages,
} from './conversations.js';
import {
  type SupportContext,
  executeConversation,
  executeConversationIn,
  loadAddress,
  ownerOf,
} from './context.js';

/** The admin calling, and the conversation they act on (not found: refused). */
async function adminOn(ctx: SupportContext, caller: SupportCaller, conversationId: string) {
  const admin = requireAdmin(caller);
  return { admin, doc: await requireConversation(ctx, conversationId) };
}

/**
 * An admin's command on a conversation (`command` given its id, the admin and now), then the
 * conversation as it is after it.
 */
async function adminCommand(
  ctx: SupportContext,
  caller: SupportCaller,
  conversationId: string,
  command: (on: {
    conversationId: string;
    adminId: string;
    adminRole: string;
    now: Date;
  }) => ConversationCommand,
): Promise<ConversationView> {
  const { admin, doc } = await adminOn(ctx, caller, conversationId);
  await executeConversation(
    ctx,
    doc.conversationId,
    command({
      conversationId: doc.conversationId,
      adminId: admin.userId,
      adminRole: admin.role,
      now: ctx.clock(),
    }),
    meta(caller),
  );
  return conversationView(await requireConversation(ctx, conversationId));
}

export type StatusFilter = 'open' | 'closed' | '';
export type AssignedFilter = 'me' | 'none' | 'any';

/** Admin: the inbox, newest activity first; `q` matches name or email (opened), case-insensitive. */
export async function listConversations(
  ctx: SupportContext,
  caller: SupportCaller,
  filter: { status: StatusFilter; assigned: AssignedFilter; q?: string },
): Promise<ConversationView[]> {
  const admin = requireAdmin(caller);
  const where: Record<string, string> = {};
  if (filter.status) where.status = filter.status;
  if (filter.assigned === 'me') where.assigneeId = admin.userId;
  if (filter.assigned === 'none') where.assigneeId = '';
  const docs = await ctx.store.find<ConversationDoc>(COLLECTIONS.conversations, {
    where,
    orderBy: { field: 'lastMessageAt', direction: 'desc' },
  });
  const views = docs.map(conversationView);
  const q = (filter.q ?? '').trim().toLowerCase();
  if (!q) return views;
  const opened = await Promise.all(
    views.map(async (v) => ({
      v,
      hay: `${await ctx.personalData.open(v.name)}\n${await ctx.personalData.open(v.email)}`.toLowerCase(),
    })),
  );
  return opened.filter((o) => o.hay.includes(q)).map((o) => o.v);
}

export async function getConversation(
  ctx: SupportContext,
  caller: SupportCaller,
  conversationId: string,
): Promise<ConversationWithMessages> {
  return withMessages(ctx, (await adminOn(ctx, caller, conversationId)).doc, true);
}

/** Admin: a reply (or an internal note, never shown to the person). */
export async function sendSupport(
  ctx: SupportContext,
  caller: SupportCaller,
  input: { conversationId: string; text: unknown; internal: boolean; attachment?: AttachmentUpload },
): Promise<SendResult> {
  const { admin, doc } = await adminOn(ctx, caller, input.conversationId);
  return sendOnConversation(
    ctx,
    doc,
    input,
    { from: 'support', internal: input.internal, senderId: admin.userId, senderRole: admin.role },
    meta(caller),
  );
}

/** The text a deposit-address message reads as (plain text; the structured address travels beside it). */
export const depositAddressText = (address: SharedAddress): string =>
  `Deposit address (${address.label}, ${address.network}): ${address.address}\n` +
  `Send only this asset on this network to this address: anything else is lost.`;

/** Admin: "Send deposit address": a support message carrying an active address of the book. */
export async function sendDepositAddress(
  ctx: SupportContext,
  caller: SupportCaller,
  input: { conversationId: string; addressId: string },
): Promise<SendResult> {
  const { admin, doc } = await adminOn(ctx, caller, input.conversationId);
  const messageId = ctx.newId();
  await ctx.store.transaction(async (tx) => {
    const address = await loadAddress(tx, input.addressId || '-');
    assertSendable(address.state);
    const shared: SharedAddress = {
      addressId: address.state.addressId,
      network: address.state.network,
      address: address.state.address,
      label: address.state.label,
    };
    const plain = depositAddressText(shared);
    await executeConversationIn(
      tx,
      doc.conversationId,
      {
        type: 'SendMessage',
        conversationId: doc.conversationId,
        messageId,
        from: 'support',
        text: await ctx.personalData.seal(ownerOf(doc), plain),
        textLength: plain.length,
        internal: false,
        senderId: admin.userId,
        senderRole: admin.role,
        depositAddress: shared,
        now: ctx.clock(),
      },
      meta(caller),
    );
  });
  return sent(ctx, doc.conversationId, messageId);
}

type AdminCommand = 'CloseConversation' | 'ReopenConversation' | 'BlockVisitor';

export async function decideConversation(
  ctx: SupportContext,
  caller: SupportCaller,
  conversationId: string,
  type: AdminCommand,
): Promise<ConversationView> {
  return adminCommand(ctx, caller, conversationId, (on) => ({ type, ...on }));
}

/** Admin: assigns the conversation to an admin ('' unassigns; the gateway names the caller for "me"). */
export async function assignConversation(
  ctx: SupportContext,
  caller: SupportCaller,
  input: { conversationId: string; assigneeId: string },
): Promise<ConversationView> {
  return adminCommand(ctx, caller, input.conversationId, (on) => ({
    type: 'AssignConversation',
    ...on,
    assigneeId: input.assigneeId,
  }));
}

/** Admin: open conversations waiting for support's answer (the dashboard tile). */
export async function countUnread(ctx: SupportContext, caller: SupportCaller): Promise<{ count: number }> {
  requireAdmin(caller);
  return { count: await ctx.store.count(COLLECTIONS.conversations, { awaitingReply: 1 }) };
}

/**
 * A reply reached nobody's socket: ask for the reply email (one per burst: the decider asks again only
 * after the person wrote back).
 */
export async function notifyOffline(
  ctx: SupportContext,
  input: { conversationId: string; correlationId: string },
): Promise<{ requested: boolean }> {
  const doc = await requireConversation(ctx, input.conversationId);
  return { requested: await requestEmail(ctx, doc.conversationId, 'reply', input.correlationId) };
}
