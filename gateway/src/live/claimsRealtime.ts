/**
 * Claims (claims.ts) on the sockets: every change this instance makes is pushed to every admin socket of
 * every instance (`claims/changed`, through the socket.io adapter: Redis between instances), and an admin's
 * claims are released when their last socket, on any instance, disconnects (the tab closed or crashed).
 * Claims are not in the live log: a (re)connected SPA fetches GET api/admin/claims.
 */
import type { Server as SocketServer, Socket } from 'socket.io';
import type { GatewayLogger } from '../logger.js';
import { ADMINS_ROOM, socketsOfUser } from '../realtime.js';
import type { Claims } from './claims.js';
import { LIVE_EVENTS, type ClaimChangedPayload } from './pushContract.js';

export function attachClaimsRealtime(deps: { io: SocketServer; claims: Claims; logger: GatewayLogger }): {
  stop(): void;
} {
  const { io, claims, logger } = deps;
  const offChange = claims.onChange((change) => {
    const payload: ClaimChangedPayload = change;
    io.to(ADMINS_ROOM).emit(LIVE_EVENTS.claimChanged, payload);
  });

  const onConnection = (socket: Socket) => {
    const userId = socket.data.userId as string | undefined;
    if (!userId || socket.data.role !== 'admin') return;
    socket.on('disconnect', () => {
      const at = Date.now();
      void (async () => {
        // the admin's other tabs (any instance) keep their claims; a reload reclaims on open
        if ((await socketsOfUser(io, userId)) > 0) return;
        const released = await claims.releaseAllOf(userId, at);
        if (released > 0) logger.info({ adminId: userId, released }, 'claims released: admin disconnected');
      })().catch((err: unknown) =>
        logger.warn({ err, adminId: userId }, 'claims: release on disconnect failed'),
      );
    });
  };
  io.on('connection', onConnection);

  return {
    stop() {
      offChange();
      io.off('connection', onConnection);
    },
  };
}
