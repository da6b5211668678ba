/**
 * Live pushes from integration events to sockets, in the SPA's contract (web/src/features/live/liveEvents.ts):
 * the socket.io event NAME is the type, its one argument the payload, and every payload carries the
 * event's `position` ("<service>:<position in that service's log>", opaque to the SPA).
 *
 *   KycSubmitted → admins  'queue/itemAdded'   { queue: 'kyc', item: <one element of GET kyc/pending>, position }
 *                  owner   'status/changed'    { kind: 'kyc', id: userId, status: 'Pending', position }
 *   KycApproved  → admins  'queue/itemDecided' { queue: 'kyc', id: userId, status: 'Approved', position }
 *   KycRejected    owner   'status/changed'    { kind: 'kyc', id: userId, status: 'Approved' | 'Rejected', position }
 *
 * Pushes are best effort and not replayed: each gateway instance listens in its own consumer group
 * from the end of the topic; a socket that reconnects with a lastPosition gets 'live/resync' (see
 * realtime.ts) and its screens fetch again.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf, type EventBus, type Subscription } from '@meridian/platform/ports/eventBus';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';
import { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import type { GatewayLogger } from './logger.js';
import type { Realtime } from './realtime.js';
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

const str = (d: Record<string, unknown>, k: string): string => (typeof d[k] === 'string' ? (d[k] as string) : '');

/** The pushes one kyc event causes (pure). */
export function pushesForKycEvent(event: Pick<StoredEvent, 'type' | 'data' | 'position'>): Push[] {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const userId = str(d, 'userId');
  if (!userId) return [];
  const position = `kyc:${event.position}`;
  const status = (s: string): Push => ({
    to: { userId },
    event: LIVE.statusChanged,
    payload: { kind: 'kyc', id: userId, status, position },
  });
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
            position,
          },
        },
        status('Pending'),
      ];
    case 'KycApproved':
    case 'KycRejected': {
      const decided = event.type === 'KycApproved' ? 'Approved' : 'Rejected';
      return [
        { to: 'admins', event: LIVE.queueItemDecided, payload: { queue: 'kyc', id: userId, status: decided, position } },
        status(decided),
      ];
    }
    default:
      return [];
  }
}

/** Subscribes this gateway instance to the topics it pushes from. */
export async function startLivePushes(deps: {
  bus: EventBus;
  realtime: Pick<Realtime, 'pushToAdmins' | 'pushToUser'>;
  group: string;
  logger: GatewayLogger;
}): Promise<Subscription> {
  const deliver = (pushes: Push[]) => {
    for (const p of pushes) {
      if (p.to === 'admins') deps.realtime.pushToAdmins(p.event, p.payload);
      else deps.realtime.pushToUser(p.to.userId, p.event, p.payload);
    }
  };
  const kyc = await deps.bus.subscribe({
    topic: topicOf('kyc'),
    group: deps.group,
    fromBeginning: false,
    handler: async (event) => {
      try {
        deliver(pushesForKycEvent(event));
      } catch (err) {
        deps.logger.warn({ err, type: event.type }, 'live push failed');
      }
    },
  });
  return kyc;
}
