/**
 * Reacts to identity's integration events (topic meridian.identity.events, group 'support'): on
 * UserDeleted every conversation joined to the user is erased (its read models dropped) and the keys its
 * values are sealed with are destroyed: the user's (identity destroys it; dropped from this process's
 * cache) and the visitor's of a conversation the user began before signing in. Every copy of their
 * names, emails, texts and attachments (events, topics, backups, stored files) is unreadable from then
 * on, and the stored attachment files are removed (idempotent: a redelivery removes nothing more). Runs inside the
 * transaction that records the event as processed: a redelivered event has no second effect.
 */
import { causedBy } from '@meridian/platform/app/consumer';
import { readIdentityEvent } from '@meridian/platform/domain/identityEvents';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { COLLECTIONS, type ConversationDoc } from '../projections/supportViews.js';
import { type SupportContext, executeConversationIn } from './context.js';

export const IDENTITY_EVENT_TYPES = ['UserDeleted'] as const;

export async function handleIdentityEvent(
  ctx: SupportContext,
  event: StoredEvent,
  tx: StoreTx,
): Promise<void> {
  const userId = readIdentityEvent(event, IDENTITY_EVENT_TYPES)?.data.userId;
  if (!userId) return;
  ctx.personalData.forget(userId);
  const conversations = await tx.find<ConversationDoc>(COLLECTIONS.conversations, { where: { userId } });
  await ctx.attachments.deleteAllOf(userId);
  for (const c of conversations) {
    if (c.visitorId) {
      await ctx.personalData.shred(c.visitorId);
      await ctx.attachments.deleteAllOf(c.visitorId);
    }
    await executeConversationIn(
      tx,
      c.conversationId,
      { type: 'EraseConversation', conversationId: c.conversationId, now: ctx.clock() },
      causedBy(event),
    );
  }
}
