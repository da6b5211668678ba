/**
 * KYC live pushes, in the SPA's contract (web/src/features/live/liveEvents.ts): the socket.io event
 * NAME is the type, its one argument the payload. The live hub (live/hub.ts) subscribes to
 * meridian.kyc.events, turns each event into these pushes, stamps each with its own `position` and
 * replays them to a socket that reconnects with auth.lastPosition (or sends 'live/resync').
 *
 *   KycSubmitted             → admins          'queue/itemAdded'   { queue: 'kyc', item: <one element of GET kyc/pending> }
 *                              owner + admins  'status/changed'    { kind: 'kyc', id: userId, status: 'Pending' }
 *   KycApproved, KycRejected → admins          'queue/itemDecided' { queue: 'kyc', id: userId, status: 'Approved' | 'Rejected' }
 *                              owner + admins  'status/changed'    { kind: 'kyc', id: userId, status }
 *
 * The SPA sets auth.user.kycStatus from the owner's status/changed (web/src/features/live/README.md), so
 * it does not depend on identity's own consumer having applied the same event yet.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';
import { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import { pendingUserJson } from './http/kycRoutes.js';

export const LIVE = {
  queueItemAdded: 'queue/itemAdded',
  queueItemDecided: 'queue/itemDecided',
  statusChanged: 'status/changed',
  resync: 'live/resync',
} as const;

/** Codecs of the events the gateway listens to (Kafka bus). */
export const gatewayEventCodecs: EventCodecs = { KycSubmitted, KycApproved, KycRejected };

export interface Push {
  to: 'admins' | { userId: string };
  event: string;
  payload: Record<string, unknown>;
}

const str = (d: Record<string, unknown>, k: string): string =>
  typeof d[k] === 'string' ? (d[k] as string) : '';

/** The pushes one kyc event causes (pure). */
export function pushesForKycEvent(event: Pick<StoredEvent, 'type' | 'data'>): Push[] {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const userId = str(d, 'userId');
  if (!userId) return [];
  const statusChanged = (status: string): Push[] =>
    [{ userId }, 'admins' as const].map((to) => ({
      to,
      event: LIVE.statusChanged,
      payload: { kind: 'kyc', id: userId, status },
    }));
  switch (event.type) {
    case 'KycSubmitted':
      return [
        {
          to: 'admins',
          event: LIVE.queueItemAdded,
          payload: {
            queue: 'kyc',
            item: pendingUserJson({
              userId,
              name: str(d, 'name'),
              email: str(d, 'email'),
              frontDoc: str(d, 'frontDoc'),
              backDoc: str(d, 'backDoc'),
              submittedAt: str(d, 'submittedAt'),
            }),
          },
        },
        ...statusChanged('Pending'),
      ];
    case 'KycApproved':
    case 'KycRejected': {
      const decided = event.type === 'KycApproved' ? 'Approved' : 'Rejected';
      return [
        {
          to: 'admins',
          event: LIVE.queueItemDecided,
          payload: { queue: 'kyc', id: userId, status: decided },
        },
        ...statusChanged(decided),
      ];
    }
    default:
      return [];
  }
}
