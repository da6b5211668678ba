import { describe, expect, it } from 'vitest';
import { makeStore } from '../../app/store';
import { aUser, authState } from '../../test/render';
import { loginSubmitted, logoutRequested, sessionExpired, userRequested } from '../auth/authSlice';
import type { LiveSocket } from './live.saga';
import { sendRequested } from './liveSlice';

class FakeSocket implements LiveSocket {
  listeners: Record<string, Array<() => void>> = {};
  any: Array<(event: string, ...args: unknown[]) => void> = [];
  disconnected = false;
  emitted: Array<[string, unknown]> = [];
  on(event: 'connect' | 'disconnect', listener: () => void) {
    (this.listeners[event] ??= []).push(listener);
  }
  onAny(listener: (event: string, ...args: unknown[]) => void) {
    this.any.push(listener);
  }
  emit(event: string, payload: unknown) {
    this.emitted.push([event, payload]);
  }
  disconnect() {
    this.disconnected = true;
  }
  serverConnects() {
    this.listeners.connect?.forEach((l) => l());
  }
  serverDrops() {
    this.listeners.disconnect?.forEach((l) => l());
  }
  serverPushes(event: string, payload: unknown) {
    this.any.forEach((l) => l(event, payload));
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const store = makeStore({
    preloadedState: { auth: authState() },
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
  });
  return { store, sockets };
}

const creds = { email: 'a@b.io', password: 'x' };

describe('live connection saga', () => {
  it('opens no socket while logged out', () => {
    const { sockets } = setup();
    expect(sockets).toHaveLength(0);
  });

  it('connects on login and dispatches server pushes as live/eventReceived', () => {
    const { store, sockets } = setup();
    store.dispatch(loginSubmitted.fulfilled(aUser({ _id: 'u1' }), 'r', creds));
    expect(sockets).toHaveLength(1);
    sockets[0]!.serverConnects();
    expect(store.getState().live.status).toBe('connected');
    sockets[0]!.serverPushes('balance.updated', { balance: 10 });
    expect(store.getState().live.lastEvent).toEqual({ event: 'balance.updated', payload: { balance: 10 } });
    sockets[0]!.serverDrops();
    expect(store.getState().live.status).toBe('disconnected');
  });

  it('closes the socket on logout and on session expiry', () => {
    const { store, sockets } = setup();
    store.dispatch(loginSubmitted.fulfilled(aUser({ _id: 'u1' }), 'r', creds));
    store.dispatch(logoutRequested.fulfilled('bye', 'r'));
    expect(sockets[0]!.disconnected).toBe(true);
    expect(store.getState().live.status).toBe('idle');
    store.dispatch(loginSubmitted.fulfilled(aUser({ _id: 'u1' }), 'r', creds));
    expect(sockets).toHaveLength(2);
    store.dispatch(sessionExpired());
    expect(sockets[1]!.disconnected).toBe(true);
  });

  it('reconnects when the session identity changes (impersonation), not on a refresh of the same user', () => {
    const { store, sockets } = setup();
    const admin = aUser({ _id: 'admin' });
    store.dispatch(loginSubmitted.fulfilled(admin, 'r', creds));
    store.dispatch(userRequested.fulfilled({ ...admin, balance: 5 }, 'r'));
    expect(sockets).toHaveLength(1);
    store.dispatch(userRequested.fulfilled(aUser({ _id: 'someone-else', isImpersonated: true }), 'r'));
    expect(sockets).toHaveLength(2);
    expect(sockets[0]!.disconnected).toBe(true);
    expect(sockets[1]!.disconnected).toBe(false);
  });

  it('sends what a screen asks over the socket while connected, and drops it otherwise', () => {
    const { store, sockets } = setup();
    const typing = { event: 'support/typing', payload: { conversationId: 'c1', typing: true } };
    store.dispatch(sendRequested(typing));
    expect(sockets).toHaveLength(0); // logged out: nowhere to send, nothing opened for it

    store.dispatch(loginSubmitted.fulfilled(aUser({ _id: 'u1' }), 'r', creds));
    store.dispatch(sendRequested(typing));
    expect(sockets[0]!.emitted).toEqual([]); // not connected yet: dropped, not queued
    sockets[0]!.serverConnects();
    store.dispatch(sendRequested(typing));
    expect(sockets[0]!.emitted).toEqual([['support/typing', { conversationId: 'c1', typing: true }]]);
    sockets[0]!.serverPushes('ready', { userId: 'u1' });
    store.dispatch(
      sendRequested({ event: 'support/typing', payload: { conversationId: 'c1', typing: false } }),
    );
    expect(sockets[0]!.emitted).toHaveLength(2);
    sockets[0]!.serverDrops();
    store.dispatch(sendRequested(typing));
    expect(sockets[0]!.emitted).toHaveLength(2);
  });
});
