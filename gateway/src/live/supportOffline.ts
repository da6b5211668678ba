/**
 * The offline reply email: a support reply (not an internal note) to someone with no socket open on any
 * gateway instance (the socket.io adapter asks them all) is emailed by asking the support service's
 * NotifyOffline, which decides one email per burst of replies. A visitor has no socket: their replies are
 * always asked about, and the burst rule keeps it to one email until they write back.
 */
import type { Server as SocketServer } from 'socket.io';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import type { SupportMessage } from '@meridian/proto/meridian/support/v1/events';
import { callUnary, DEFAULT_GRPC_DEADLINE_MS } from '../grpcClients.js';
import { socketsOfUser } from '../realtime.js';

export function emailRepliesToOffline(deps: {
  io: SocketServer;
  support: sp.SupportServiceClient;
  deadlineMs?: number;
}): (event: Pick<StoredEvent, 'id' | 'type' | 'data'>) => Promise<void> {
  return async (event) => {
    if (event.type !== 'SupportMessageSent') return;
    const d = (event.data ?? {}) as { party?: { userId?: string }; message?: SupportMessage };
    const message = d.message;
    if (!message?.conversationId || message.internal || message.from === 'investor') return;
    const userId = d.party?.userId;
    if (userId && (await socketsOfUser(deps.io, userId)) > 0) return;
    await callUnary(
      deps.support,
      'notifyOffline',
      sp.NotifyOfflineRequest.fromPartial({ conversationId: message.conversationId }),
      { correlationId: event.id, deadlineMs: deps.deadlineMs ?? DEFAULT_GRPC_DEADLINE_MS },
    );
  };
}
