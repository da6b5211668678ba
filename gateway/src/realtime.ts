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
import { createOriginPolicy, localPortOf, originOf, type OriginPolicy } from './http/origins.js';
import type { GatewayLogger } from './logger.js';
import type { RevocationFeed } from './sessionRevocations.js';

export interface Realtime {
  io: SocketServer;
  /** Emits `event` to every socket of the user (room `user:<id>`). */
  pushToUser(userId: string, event: string, payload: unknown): void;
  /** Emits `event` to every admin socket (room `admins`). */
  pushToAdmins(event: string, payload: unknown): void;
  close(): Promise<void>;
}

/** The commands socket.io's Redis adapter sends without awaiting their answer. */
const UNAWAITED_COMMANDS: ReadonlySet<string> = new Set([
  'publish',
  'subscribe',
  'psubscribe',
  'unsubscribe',
  'punsubscribe',
]);

/**
 * The Redis client of socket.io's adapter. A command the adapter does not await that fails (Redis away past its
 * retries, or a quit that reaches the server before the commands queued while connecting) would be a rejection
 * nobody handles, which ends the process. Such a failure is handed to `onFailure` instead; a caller that awaits
 * the command still gets it.
 */
class AdapterRedis extends Redis {
  private readonly onFailure: (err: unknown, command: string) => void;

  constructor(url: string, onFailure: (err: unknown, command: string) => void) {
    super(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.onFailure = onFailure;
  }

  override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
    const [command] = args;
    if (UNAWAITED_COMMANDS.has(command.name)) {
      command.promise.catch((err: unknown) => this.onFailure(err, command.name));
    }
    return super.sendCommand(...args);
  }
}

export const userRoom = (userId: string) => `user:${userId}`;

/**
 * How many sockets a user has open on every instance (the socket.io adapter asks them all). An instance that
 * went away after the adapter counted it leaves the question unanswered (the adapter gives up after its
 * requestsTimeout); asked again, the count no longer includes it.
 */
export async function socketsOfUser(io: SocketServer, userId: string): Promise<number> {
  const ask = () => io.in(userRoom(userId)).fetchSockets();
  return (await ask().catch(() => ask())).length;
}

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
  /** ALLOWED_HOSTS and NODE_ENV: the hosts a handshake may name besides APP_URL's (origins.ts). */
  allowedHosts?: string[];
  nodeEnv?: 'development' | 'test' | 'production';
  redisUrl?: string;
  /** Channel prefix of the socket.io Redis adapter (default 'meridian:socket.io'). */
  socketChannel?: string;
  deadlineMs?: number;
  /** Every this many ms each socket's session is checked again; refused sockets are disconnected (default 60 000). */
  revalidateMs?: number;
  /**
   * Identity's session revocations (sessionRevocations.ts): a revoked session's sockets are cut at once,
   * and a user's sockets are checked again at once when the user changes (suspension, deletion, role).
   */
  revocations?: RevocationFeed;
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
 * The handshake must name a host we answer for (origins.ts), and a browser must come from one of our
 * own origins or from one of CORS_ORIGINS (a separately hosted SPA); requests without an Origin
 * (non-browser clients) pass that second check.
 */
function allowedHandshake(req: IncomingMessage, origins: OriginPolicy): boolean {
  const port = localPortOf(req);
  if (!origins.hostAllowed(req.headers.host, port)) return false;
  const origin = req.headers.origin;
  if (!origin) return true;
  const o = originOf(origin);
  return o !== undefined && origins.isOwn(o, port);
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
    allowRequest: (req, cb) => cb(null, allowedHandshake(req, origins)),
    // long-polling from a separately hosted SPA reads answers cross-origin, with its cookies
    ...(origins.corsOrigins.length > 0
      ? { cors: { origin: [...origins.corsOrigins], credentials: true } }
      : {}),
  });
  let pub: Redis | undefined;
  let sub: Redis | undefined;
  if (deps.redisUrl) {
    const failed = (role: string) => (err: unknown, command: string) =>
      logger.warn({ err, command }, `socket.io redis ${role} command failed`);
    pub = new AdapterRedis(deps.redisUrl, failed('publisher'));
    sub = new AdapterRedis(deps.redisUrl, failed('subscriber'));
    pub.on('error', (err) => logger.warn({ err }, 'socket.io redis publisher error'));
    sub.on('error', (err) => logger.warn({ err }, 'socket.io redis subscriber error'));
    io.adapter(createAdapter(pub, sub, { key: deps.socketChannel ?? 'meridian:socket.io' }));
  }

  /** Who a session token is, as identity answers it now (its own correlation id: no request carries one). */
  const authenticate = (token: string) =>
    callUnary(identity, 'authenticate', AuthenticateRequest.fromPartial({ sessionToken: token }), {
      correlationId: randomUUID(),
      deadlineMs: deps.deadlineMs,
    });

  io.use(async (socket, next) => {
    const fromCookie = cookieValue(socket.request.headers.cookie, SESSION_COOKIE);
    const fromAuth =
      typeof socket.handshake.auth?.token === 'string' ? (socket.handshake.auth.token as string) : undefined;
    const token = fromCookie || fromAuth;
    if (!token) return next(new Error('Not authorized, please login'));
    try {
      const principal = await authenticate(token);
      socket.data.userId = principal.userId;
      socket.data.sessionId = principal.sessionId;
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

  const endSockets = (sockets: Iterable<Socket>) => {
    for (const socket of sockets) {
      socket.emit('session:ended', { message: 'Not authorized, please login' });
      socket.disconnect(true);
    }
  };
  // Logout, suspension and deletion revoke sessions: open sockets learn it from the revocation feed at
  // once (below), else at the next check.
  const checkSession = async (token: string, sockets: Socket[]) => {
    try {
      const p = await authenticate(token);
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
      if (code === GrpcStatus.UNAUTHENTICATED || code === GrpcStatus.NOT_FOUND) endSockets(sockets);
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

  /** The sockets of this instance, by session token, that `keep` selects. */
  const bySessionOf = (keep: (socket: Socket) => boolean) => {
    const bySession = new Map<string, Socket[]>();
    for (const socket of io.of('/').sockets.values()) {
      if (!keep(socket)) continue;
      const token = socket.data.token as string;
      const list = bySession.get(token);
      if (list) list.push(socket);
      else bySession.set(token, [socket]);
    }
    return bySession;
  };
  /**
   * A revoked session (logout, and every session of a suspended, deleted or re-passworded user) is over:
   * its sockets on this instance are cut now. A changed user (a role among others) has the sessions of
   * its sockets here checked again now, once per session even when changes come in a burst.
   */
  const rechecking = new Map<string, { again: boolean }>();
  const recheck = (token: string) => {
    const running = rechecking.get(token);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    rechecking.set(token, state);
    void (async () => {
      do {
        state.again = false;
        const sockets = [...io.of('/').sockets.values()].filter((s) => s.data.token === token);
        if (sockets.length === 0 || closed) break;
        await checkSession(token, sockets);
      } while (state.again);
    })().finally(() => rechecking.delete(token));
  };
  const offRevocations = deps.revocations?.subscribe({
    revoked: (r) => {
      if ('sid' in r) endSockets([...io.of('/').sockets.values()].filter((s) => s.data.sessionId === r.sid));
      else for (const token of bySessionOf((s) => s.data.userId === r.uid).keys()) recheck(token);
    },
    lost: () => undefined,
  });

  return {
    io,
    // after close, a push would publish on a Redis connection that is quitting
    pushToUser: (userId, event, payload) => {
      if (!closed) io.to(userRoom(userId)).emit(event, payload);
    },
    pushToAdmins: (event, payload) => {
      if (!closed) io.to(ADMINS_ROOM).emit(event, payload);
    },
    close: async () => {
      closed = true;
      offRevocations?.();
      clearInterval(revalidate);
      await new Promise<void>((resolve) => {
        io.close(() => resolve());
      }).catch(() => undefined);
      // the subscriber first: the adapter answers other gateways' requests by publishing, uncaught, so no
      // request may arrive once the publisher is quitting
      await sub?.quit().catch(() => sub?.disconnect());
      await pub?.quit().catch(() => pub?.disconnect());
    },
  };
}
