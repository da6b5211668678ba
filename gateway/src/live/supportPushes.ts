/**
 * Support chat live pushes, in the SPA's contract (pushContract.ts, web/src/features/support/supportTypes.ts):
 * the live hub (hub.ts) subscribes to meridian.support.events and turns each event into these pushes,
 * logged with a position and replayed after a reconnect like every other push.
 *
 *   SupportMessageSent   → admins                      'support/message'      { conversationId, message }
 *                          the investor (not a note)   'support/message'      { conversationId, message }
 *   ConversationStarted, ConversationAssigned, ConversationClosed, ConversationReopened, ConversationJoined
 *                        → admins                      'support/conversation' { conversationId, conversation: the fields that changed }
 *
 * `message` has the shape of one element of GET api/support/conversations/{id}'s messages. The text is
 * sealed in the event and opened by the hub just before it leaves for a socket.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { SupportMessage } from '@meridian/proto/meridian/support/v1/events';
import { supportMessageJson } from '../http/supportViews.js';
import type { LivePush } from './moneyPushes.js';
import { LIVE_EVENTS } from './pushContract.js';

type Data = Record<string, unknown>;
const str = (d: Data, k: string): string => (typeof d[k] === 'string' ? (d[k] as string) : '');
const partyOf = (d: Data) => (d.party ?? {}) as { userId?: string; visitorId?: string };

/** The pushes one support event causes (pure). */
export function pushesForSupportEvent(event: Pick<StoredEvent, 'type' | 'data'>): LivePush[] {
  const d = (event.data ?? {}) as Data;
  const conversation = (fields: Data): LivePush[] => [
    {
      to: 'admins',
      event: LIVE_EVENTS.supportConversation,
      payload: {
        conversationId: str(d, 'conversationId'),
        conversation: { _id: str(d, 'conversationId'), ...fields },
      },
    },
  ];
  switch (event.type) {
    case 'SupportMessageSent': {
      const raw = d.message as SupportMessage | undefined;
      if (!raw?.conversationId) return [];
      const message = supportMessageJson({
        ...raw,
        internal: raw.internal ?? false,
        authorId: raw.authorId ?? '',
      });
      const payload = { conversationId: raw.conversationId, message };
      const userId = partyOf(d).userId;
      return [
        { to: 'admins', event: LIVE_EVENTS.supportMessage, payload },
        ...(userId && !message.internal
          ? [{ to: { userId }, event: LIVE_EVENTS.supportMessage, payload } satisfies LivePush]
          : []),
      ];
    }
    case 'ConversationStarted':
      return conversation({
        userId: partyOf(d).userId || null,
        name: str(d, 'name'),
        email: str(d, 'email'),
        status: 'open',
        startedAt: str(d, 'startedAt'),
      });
    case 'ConversationAssigned':
      return conversation({ assigneeId: str(d, 'assigneeId') || null });
    case 'ConversationClosed':
      return conversation({ status: 'closed' });
    case 'ConversationReopened':
      return conversation({ status: 'open' });
    case 'ConversationJoined':
      return conversation({ userId: str(d, 'userId') });
    default:
      return [];
  }
}
