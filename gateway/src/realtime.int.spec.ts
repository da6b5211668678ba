/** socket.io on the gateway: handshake by the session cookie, rooms user:<id> and admins, pushes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import {
  adminBrowser,
  registerUser,
  startTestComposition,
  type TestComposition,
} from './testing/composition.js';

let t: TestComposition;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await startTestComposition({ gateway: { socketRevalidateMs: 100 } });
});

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t?.stop();
});

/** Connects with a cookie header; resolves with the socket once 'ready' arrives, rejects on connect_error. */
function open(cookie: string | undefined): Promise<Socket> {
  const socket = connect(t.url, {
    path: '/socket.io',
    transports: ['websocket'],
    extraHeaders: cookie ? { cookie } : {},
    reconnection: false,
  });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.on('ready', () => resolve(socket));
    socket.on('connect_error', (err) => reject(err));
  });
}

const nextEvent = <T>(socket: Socket, event: string) =>
  new Promise<T>((resolve) => socket.once(event, resolve));

describe('socket.io', () => {
  it('refuses a handshake without a valid session', async () => {
    await expect(open(undefined)).rejects.toThrow(/Not authorized/);
    await expect(open('meridian_session=forged.token.here')).rejects.toThrow(/Not authorized/);
  });

  it('pushToUser reaches only that user; pushToAdmins only admins', async () => {
    const alice = await registerUser(t.url);
    const bob = await registerUser(t.url);
    const admin = await adminBrowser(t.url);
    const [aliceSocket, bobSocket, adminSocket] = await Promise.all([
      open(alice.browser.cookieHeader()),
      open(bob.browser.cookieHeader()),
      open(admin.cookieHeader()),
    ]);
    const bobGot: unknown[] = [];
    bobSocket.on('balance:changed', (p) => bobGot.push(p));
    const aliceAdminEvents: unknown[] = [];
    aliceSocket.on('queue:changed', (p) => aliceAdminEvents.push(p));

    const toAlice = nextEvent<{ balance: number }>(aliceSocket, 'balance:changed');
    t.app.gateway.pushToUser(alice.id, 'balance:changed', { balance: 12.5 });
    expect(await toAlice).toEqual({ balance: 12.5 });

    const toAdmins = nextEvent<{ queue: string }>(adminSocket, 'queue:changed');
    t.app.gateway.pushToAdmins('queue:changed', { queue: 'deposits' });
    expect(await toAdmins).toEqual({ queue: 'deposits' });

    // a marker sent to bob after the others proves, in order, that bob saw nothing of alice's or the admins'
    const marker = nextEvent(bobSocket, 'marker');
    t.app.gateway.pushToUser(bob.id, 'marker', {});
    await marker;
    expect(bobGot).toEqual([]);
    const aliceMarker = nextEvent(aliceSocket, 'marker');
    t.app.gateway.pushToUser(alice.id, 'marker', {});
    await aliceMarker;
    expect(aliceAdminEvents).toEqual([]);
  });

  it('disconnects every open socket of a session once it is revoked (suspension; two tabs, one check)', async () => {
    const victim = await registerUser(t.url);
    const admin = await adminBrowser(t.url);
    const tabs = await Promise.all([
      open(victim.browser.cookieHeader()),
      open(victim.browser.cookieHeader()),
    ]);
    const ended = tabs.map((s) => nextEvent<{ message: string }>(s, 'session:ended'));
    const disconnected = tabs.map((s) => nextEvent<string>(s, 'disconnect'));
    expect((await admin.post('/api/users/upgradeUser', { role: 'suspended', id: victim.id })).status).toBe(
      200,
    );
    for (const e of await Promise.all(ended)) expect(e).toEqual({ message: 'Not authorized, please login' });
    for (const d of await Promise.all(disconnected)) expect(d).toBe('io server disconnect');
  });

  it('refuses a browser from another origin', async () => {
    const alice = await registerUser(t.url);
    const socket = connect(t.url, {
      path: '/socket.io',
      transports: ['websocket'],
      extraHeaders: { cookie: alice.browser.cookieHeader(), origin: 'https://evil.example.com' },
      reconnection: false,
    });
    sockets.push(socket);
    const err = await new Promise<Error>((resolve) => socket.on('connect_error', resolve));
    expect(err).toBeInstanceOf(Error);
  });
});
