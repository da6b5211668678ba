/**
 * Which support integration event becomes which email (pure). The support service decides when one is
 * due (one per burst of replies to someone not connected; the link to a conversation a visitor opened)
 * and carries the recipient's email, name and link sealed with their key (a visitor's: their own id's).
 *
 *   SupportReplyEmailRequested reason reply   → supportReply to the person
 *   SupportReplyEmailRequested reason started → supportStarted to the visitor
 */
import type { SupportReplyEmailRequested } from '@meridian/proto/meridian/support/v1/events';
import { eventGuard, type EmailRequest } from './email.js';

export type SupportEmailEvent = { type: 'SupportReplyEmailRequested'; data: SupportReplyEmailRequested };

export const supportEmailEventTypes: ReadonlySet<string> = new Set<SupportEmailEvent['type']>([
  'SupportReplyEmailRequested',
]);

export const isSupportEmailEvent = eventGuard<SupportEmailEvent>(supportEmailEventTypes);

export function emailForSupportEvent(event: SupportEmailEvent): EmailRequest | null {
  const d = event.data;
  const owner = d.party?.userId || d.party?.visitorId || '';
  if (!d.email || !owner) return null;
  return {
    to: d.email,
    userId: owner,
    template: d.reason === 'started' ? 'supportStarted' : 'supportReply',
    data: { name: d.name, link: d.link },
  };
}
