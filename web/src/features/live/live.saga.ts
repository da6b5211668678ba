import { eventChannel, type EventChannel, type Task } from 'redux-saga';
import { call, cancel, cancelled, fork, put, select, take, takeEvery } from 'redux-saga/effects';
import type { AuthState } from '../auth/authSlice';
import { positionOf } from './liveEvents';
import {
  connected,
  connectionClosed,
  connectionOpened,
  disconnected,
  eventReceived,
  sendRequested,
  type LiveEvent,
} from './liveSlice';

/** The part of a socket.io client the saga uses (a fake in tests). */
export interface LiveSocket {
  on(event: 'connect' | 'disconnect', listener: () => void): unknown;
  onAny(listener: (event: string, ...args: unknown[]) => void): unknown;
  emit(event: string, payload: unknown): unknown;
  disconnect(): unknown;
}

export interface SocketOptions {
  /** The position of the last push seen on this connection, sent on every (re)connect so the gateway replays what was missed. */
  lastPosition: () => string | null;
}

export type SocketFactory = (options?: SocketOptions) => LiveSocket | Promise<LiveSocket>;

/**
 * Same origin, path /socket.io, cookies sent; socket.io-client reconnects on its own. The handshake
 * carries `auth.lastPosition` (null on the first connect): see README.md, "Catching up".
 * socket.io-client is its own chunk, loaded when a session first needs the socket (not on the first route).
 */
export const createSocketIo: SocketFactory = async (options) => {
  const { io, WebSocket } = await import('socket.io-client');
  return io({
    path: '/socket.io',
    // the websocket transport alone: a session is one connection to one gateway, so no load balancer
    // needs affinity (and the polling transports stay out of the bundle)
    transports: [WebSocket],
    withCredentials: true,
    reconnection: true,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 10000,
    auth: (cb) => cb({ lastPosition: options?.lastPosition() ?? null }),
  });
};

type SocketMessage = { kind: 'connected' } | { kind: 'disconnected' } | { kind: 'event'; event: LiveEvent };

function socketChannel(socket: LiveSocket): EventChannel<SocketMessage> {
  return eventChannel<SocketMessage>((emit) => {
    socket.on('connect', () => emit({ kind: 'connected' }));
    socket.on('disconnect', () => emit({ kind: 'disconnected' }));
    socket.onAny((event, ...args) => emit({ kind: 'event', event: { event, payload: args[0] ?? null } }));
    return () => {
      socket.disconnect();
    };
  });
}

export function* liveConnection(createSocket: SocketFactory) {
  let lastPosition: string | null = null;
  const made = createSocket({ lastPosition: () => lastPosition });
  let socket: LiveSocket;
  try {
    socket = yield made; // a promise while socket.io-client's chunk loads
  } catch {
    return; // the chunk did not load (offline): no live updates until the session changes
  } finally {
    // cancelled (logout) before the socket existed: close it as soon as it does
    if ((yield cancelled()) as boolean) void Promise.resolve(made).then((s) => s.disconnect());
  }
  const channel: EventChannel<SocketMessage> = yield call(socketChannel, socket);
  yield put(connectionOpened());
  let isConnected = false;
  // what a screen sends to the gateway (live/sendRequested): only while connected, never queued for later
  yield takeEvery(sendRequested, ({ payload }: ReturnType<typeof sendRequested>) => {
    if (isConnected) socket.emit(payload.event, payload.payload);
  });
  try {
    while (true) {
      const message: SocketMessage = yield take(channel);
      isConnected = message.kind === 'event' ? isConnected : message.kind === 'connected';
      if (message.kind === 'connected') yield put(connected());
      else if (message.kind === 'disconnected') yield put(disconnected());
      else {
        lastPosition = positionOf(message.event.payload) ?? lastPosition;
        yield put(eventReceived(message.event));
      }
    }
  } finally {
    if ((yield cancelled()) as boolean) {
      channel.close();
      yield put(connectionClosed());
    }
  }
}

const sessionKey = (s: { auth: AuthState }) => (s.auth.isLoggedIn ? (s.auth.user?._id ?? 'session') : null);

/**
 * Long-running flow: one socket while logged in; a new one when the session's identity changes
 * (impersonation starts or ends), none when logged out.
 */
export function* liveSaga(createSocket: SocketFactory) {
  let task: Task | null = null;
  let current: string | null = null;
  while (true) {
    const key: string | null = yield select(sessionKey);
    const sameSession = key !== null && current !== null && (key === 'session' || current === 'session');
    if (key !== current && sameSession) current = key;
    if (key !== current) {
      if (task) yield cancel(task);
      task = key ? yield fork(liveConnection, createSocket) : null;
      current = key;
    }
    yield take('*');
  }
}
