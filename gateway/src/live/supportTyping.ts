/**
 * Support's typing indicator: an admin's socket sends `support/typing` `{ conversationId, typing }` while
 * writing a reply; the conversation's investor gets `{ conversationId, from: 'support', typing }` on every
 * socket of theirs, on any gateway instance (the socket.io adapter relays it). Not logged and never replayed:
 * it means something only now. A visitor (no socket) and anyone but an admin are ignored.
 */
import type { Server as SocketServer, Socket } from 'socket.io';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import { randomUUID } from 'node:crypto';
import { callUnary, DEFAULT_GRPC_DEADLINE_MS } from '../grpcClients.js';
import type { GatewayLogger } from '../logger.js';
import { ADMINS_ROOM, userRoom } from '../realtime.js';
import { LIVE_EVENTS } from './pushContract.js';

const ID = /^[A-Za-z0-9._:-]{1,100}$/;
const MAX_KNOWN = 10_000;

export function attachSupportTyping(deps: {
  io: SocketServer;
  support: sp.SupportServiceClient;
  logger: GatewayLogger;
  deadlineMs?: number;
}): { stop(): void } {
  const { io, support, logger } = deps;
  /**
   * The investor of each conversation asked about so far: once an account holds a conversation it keeps it. A
   * visitor's conversation is asked about again each time (it joins an account when the visitor signs in).
   */
  const owners = new Map<string, string>();

  const ownerOf = async (socket: Socket, conversationId: string): Promise<string> => {
    const known = owners.get(conversationId);
    if (known) return known;
    const correlationId = randomUUID();
    const found = await callUnary(
      support,
      'getConversation',
      sp.ConversationRequest.fromPartial({
        caller: {
          userId: String(socket.data.userId ?? ''),
          sessionId: '',
          impersonatorId: '',
          correlationId,
        },
        callerRole: 'admin',
        conversationId,
      }),
      { correlationId, deadlineMs: deps.deadlineMs ?? DEFAULT_GRPC_DEADLINE_MS },
    );
    const userId = found.conversation?.userId ?? '';
    if (!userId) return '';
    if (owners.size >= MAX_KNOWN) owners.delete(owners.keys().next().value!);
    owners.set(conversationId, userId);
    return userId;
  };

  const onConnection = (socket: Socket) => {
    socket.on(LIVE_EVENTS.supportTyping, (payload: unknown) => {
      if (!socket.rooms.has(ADMINS_ROOM)) return;
      const p = (payload ?? {}) as { conversationId?: unknown; typing?: unknown };
      if (typeof p.conversationId !== 'string' || !ID.test(p.conversationId)) return;
      const conversationId = p.conversationId;
      const typing = p.typing !== false;
      void ownerOf(socket, conversationId)
        .then((userId) => {
          if (userId)
            io.to(userRoom(userId)).emit(LIVE_EVENTS.supportTyping, {
              conversationId,
              from: 'support',
              typing,
            });
        })
        .catch((err: unknown) => logger.warn({ err }, 'support typing: the conversation could not be read'));
    });
  };
  io.on('connection', onConnection);
  return { stop: () => void io.off('connection', onConnection) };
}
