import type { Server as HttpServer, IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Server as SocketServer, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import {
  AuthenticateRequest,
  type IdentityServiceClient,
} from '@meridian/proto/meridian/identity/v1/identity';
import { callUnary } from './grpcClients.js';
import { SESSION_COOKIE } from './http/cookies.js';
import { createOriginPolicy, originOf, type OriginPolicy } from './http/origins.js';
import type { GatewayLogger } from './logger.js';

export interface Realtime {
  io: SocketServer;
  /** Emits `event` to every socket of the user (room `user:<id>`). */
  pushToUser(userId: string, event: string, payload: unknown): void;
  /** Emits `event` to every admin socket (room `admins`). */
  pushToAdmins(event: string, payload: unknown): void;
  close(): Promise<void>;
}

export const userRoom = (userId: string) => `user:${userId}`;
/** Session checks of open sockets in flight at once (see revalidateAll). */
const REVALIDATE_IN_FLIGHT = 16;
export const ADMINS_ROOM = 'admins';

export interface RealtimeDeps {
  server: HttpServer;
  identity: IdentityServiceClient;
  logger: GatewayLogger;
  appUrl: string;
  /** CORS_ORIGINS: other origins whose pages may connect (a separately hosted SPA). */
  corsOrigins?: string[];
  redisUrl?: string;
  deadlineMs?: number;
  /** Every this many ms each socket's session is checked again; refused sockets are disconnected (default 60 000). */
  revalidateMs?: number;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * Browsers must come from our own origin (APP_URL's, or the host the handshake was sent to) or from
 * one of CORS_ORIGINS (a separately hosted SPA); requests without an Origin (non-browser clients) pass.
 */
function allowedOrigin(req: IncomingMessage, origins: OriginPolicy): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  const o = originOf(origin);
  if (!o) return false;
  return new URL(o).host === req.headers.host || origins.isOwn(o);
}

/** socket.io on the gateway's HTTP server: handshake authenticated by the session cookie. */
export function attachRealtime(deps: RealtimeDeps): Realtime {
  const { identity, logger } = deps;
  const origins = createOriginPolicy(deps);
  const io = new SocketServer(deps.server, {
    path: '/socket.io',
    serveClient: false,
    // Pinned, measured at 10,000 sockets (bench/liveScale.ts): no per-message deflate (a zlib context per
    // socket, hundreds of KB each, for pushes of a few hundred bytes); the heartbeat stays at socket.io's
    // 25 s / 20 s: 10,000 idle sockets (400 pings/s) add at most ~2 % of one core to the event loop (the
    // bench's "no decisions" windows), nothing worth noticing a dead peer later than within 45 s for.
    perMessageDeflate: false,
    pingInterval: 25_000,
    pingTimeout: 20_000,
    allowRequest: (req, cb) => cb(null, allowedOrigin(req, origins)),
    // long-polling from a separately hosted SPA reads answers cross-origin, with its cookies
    ...(origins.corsOrigins.length > 0
      ? { cors: { origin: [...origins.corsOrigins], credentials: true } }
      : {}),
  });
  let pub: Redis | undefined;
  let sub: Redis | undefined;
  if (deps.redisUrl) {
    pub = new Redis(deps.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
    sub = pub.duplicate();
    pub.on('error', (err) => logger.warn({ err }, 'socket.io redis publisher error'));
    sub.on('error', (err) => logger.warn({ err }, 'socket.io redis subscriber error'));
    io.adapter(createAdapter(pub, sub, { key: 'meridian:socket.io' }));
  }

  io.use(async (socket, next) => {
    const fromCookie = cookieValue(socket.request.headers.cookie, SESSION_COOKIE);
    const fromAuth =
      typeof socket.handshake.auth?.token === 'string' ? (socket.handshake.auth.token as string) : undefined;
    const token = fromCookie || fromAuth;
    if (!token) return next(new Error('Not authorized, please login'));
    try {
      const principal = await callUnary(
        identity,
        'authenticate',
        AuthenticateRequest.fromPartial({ sessionToken: token }),
        {
          correlationId: randomUUID(),
          deadlineMs: deps.deadlineMs,
        },
      );
      socket.data.userId = principal.userId;
      socket.data.role = principal.role;
      socket.data.token = principal.refreshedSessionToken || token;
      next();
    } catch {
      next(new Error('Not authorized, please login'));
    }
  });

  io.on('connection', (socket) => {
    const userId = socket.data.userId as string;
    void socket.join(userRoom(userId));
    if (socket.data.role === 'admin') void socket.join(ADMINS_ROOM);
    socket.emit('ready', { userId });
    // Catch-up from auth.lastPosition (replay or 'live/resync'): the live hub's own 'connection'
    // listener (gateway/src/live/hub.ts), registered after this one, once the rooms are joined.
  });

  // Logout, suspension and deletion revoke sessions: open sockets learn it at the next check.
  const checkSession = async (token: string, sockets: Socket[]) => {
    try {
      const p = await callUnary(
        identity,
        'authenticate',
        AuthenticateRequest.fromPartial({ sessionToken: token }),
        {
          correlationId: randomUUID(),
          deadlineMs: deps.deadlineMs,
        },
      );
      for (const socket of sockets) {
        if (p.refreshedSessionToken) socket.data.token = p.refreshedSessionToken;
        if (p.role !== socket.data.role) {
          socket.data.role = p.role;
          if (p.role === 'admin') void socket.join(ADMINS_ROOM);
          else void socket.leave(ADMINS_ROOM);
        }
      }
    } catch (err) {
      const code = (err as { code?: number })?.code;
      if (code === GrpcStatus.UNAUTHENTICATED || code === GrpcStatus.NOT_FOUND) {
        for (const socket of sockets) {
          socket.emit('session:ended', { message: 'Not authorized, please login' });
          socket.disconnect(true);
        }
      }
    }
  };
  /**
   * One Authenticate per session (the tabs of a browser share theirs), at most REVALIDATE_IN_FLIGHT at
   * once: 10,000 sockets never become 10,000 calls in one tick of the event loop, which held every live
   * push behind them (bench/liveScale.ts). The checks of a round are also paced over the first half of
   * the interval (the k-th starts no earlier than k × interval ÷ 2 ÷ sessions after the round began), so
   * 10,000 sessions cost a steady trickle of calls, not a burst once a minute that the live pushes of that
   * second queue behind. A round still running when the next is due is not doubled.
   */
  const revalidateMs = deps.revalidateMs ?? 60_000;
  let closed = false;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, ms).unref();
    });
  let revalidating = false;
  const revalidateAll = async () => {
    const bySession = new Map<string, Socket[]>();
    for (const socket of io.of('/').sockets.values()) {
      const token = socket.data.token as string;
      const list = bySession.get(token);
      if (list) list.push(socket);
      else bySession.set(token, [socket]);
    }
    const sessions = [...bySession];
    const spacingMs = revalidateMs / 2 / Math.max(1, sessions.length);
    const began = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < sessions.length && !closed) {
        const k = next++;
        const wait = began + k * spacingMs - Date.now();
        if (wait >= 1) await pause(wait);
        if (closed) return;
        const [token, sockets] = sessions[k];
        await checkSession(token, sockets);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REVALIDATE_IN_FLIGHT, sessions.length) }, worker));
  };
  const revalidate = setInterval(() => {
    if (revalidating) return;
    revalidating = true;
    void revalidateAll().finally(() => (revalidating = false));
  }, revalidateMs);
  revalidate.unref();

  return {
    io,
    pushToUser: (userId, event, payload) => {
      io.to(userRoom(userId)).emit(event, payload);
    },
    pushToAdmins: (event, payload) => {
      io.to(ADMINS_ROOM).emit(event, payload);
    },
    close: async () => {
      closed = true;
      clearInterval(revalidate);
      await new Promise<void>((resolve) => {
        io.close(() => resolve());
      }).catch(() => undefined);
      await Promise.all([pub?.quit().catch(() => undefined), sub?.quit().catch(() => undefined)]);
    },
  };
}
