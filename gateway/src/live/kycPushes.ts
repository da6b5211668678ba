/**
 * KYC live pushes, in the SPA's contract (pushContract.ts, web/src/features/live/README.md): the socket.io
 * event NAME is the type, its one argument the payload. The live hub (hub.ts) subscribes to
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
import { pendingUserJson } from '../http/kycRoutes.js';
import type { LivePush } from './moneyPushes.js';
import { LIVE_EVENTS } from './pushContract.js';

/** Codecs of the events the gateway listens to (Kafka bus). */
export const gatewayEventCodecs: EventCodecs = { KycSubmitted, KycApproved, KycRejected };

const str = (d: Record<string, unknown>, k: string): string =>
  typeof d[k] === 'string' ? (d[k] as string) : '';

/** The pushes one kyc event causes (pure). */
export function pushesForKycEvent(event: Pick<StoredEvent, 'type' | 'data'>): LivePush[] {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const userId = str(d, 'userId');
  if (!userId) return [];
  const statusChanged = (status: string): LivePush[] =>
    [{ userId }, 'admins' as const].map((to) => ({
      to,
      event: LIVE_EVENTS.statusChanged,
      payload: { kind: 'kyc', id: userId, status },
    }));
  switch (event.type) {
    case 'KycSubmitted':
      return [
        {
          to: 'admins',
          event: LIVE_EVENTS.queueItemAdded,
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
          event: LIVE_EVENTS.queueItemDecided,
          payload: { queue: 'kyc', id: userId, status: decided },
        },
        ...statusChanged(decided),
      ];
    }
    default:
      return [];
  }
}
