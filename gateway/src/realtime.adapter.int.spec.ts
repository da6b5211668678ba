/**
 * socket.io's Redis adapter. It joins the instances of one composition by its channel: Redis pub/sub channels
 * span every database of a Redis server, so compositions sharing one Redis keep apart only by their channels.
 * And Redis that cannot take a command, a gateway that closes or a Redis that is away: the adapter does not
 * await its publishes, so each of those cases checks that no rejection is left unhandled.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort, listenOn } from '@meridian/platform/util/freePort';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { silentLogger, type GatewayLogger } from './logger.js';
import { attachRealtime, socketsOfUser, type Realtime } from './realtime.js';
import { REDIS_URL } from './testing/composition.js';

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
/** Closed after each case (a case that closes its own first: close() runs once). */
const started: Array<{ realtime: Realtime; server: ReturnType<typeof createServer> }> = [];
afterEach(async () => {
  process.off('unhandledRejection', onRejection);
  for (const { realtime, server } of started.splice(0)) {
    await realtime.close();
    server.close();
  }
});

/** Resolves once Node has had every chance to report a rejection left unhandled so far. */
const settled = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** socket.io on a new HTTP server, its adapter on `redisUrl` (no identity: nobody connects). */
async function realtimeOn(
  options: { redisUrl?: string; socketChannel?: string; logger?: GatewayLogger } = {},
): Promise<Realtime> {
  const server = createServer();
  const port = await listenOn(server, 0, '127.0.0.1');
  const realtime = attachRealtime({
    server,
    identity: {} as IdentityServiceClient,
    logger: options.logger ?? silentLogger,
    appUrl: `http://127.0.0.1:${port}`,
    redisUrl: options.redisUrl ?? REDIS_URL,
    socketChannel: options.socketChannel,
  });
  started.push({ realtime, server });
  return realtime;
}

it('instances on one channel count and hear each other; another channel on the same Redis is apart', async () => {
  const ours = `test:${randomUUID()}:socket.io`;
  const theirs = `test:${randomUUID()}:socket.io`;
  const [a, b, other, otherToo] = await Promise.all(
    [ours, ours, theirs, theirs].map((socketChannel) => realtimeOn({ socketChannel })),
  );
  const heard: Record<'b' | 'other', unknown[]> = { b: [], other: [] };
  b.io.on('probe', (x: unknown) => heard.b.push(x));
  other.io.on('probe', (x: unknown) => heard.other.push(x));

  // the adapters subscribe after attach: wait until each channel counts its two instances, and no more
  const counted = async (r: Realtime) => r.io.of('/').adapter.serverCount();
  await waitFor(async () => (await counted(a)) === 2 && (await counted(other)) === 2, 'two on each channel');
  expect(await counted(b)).toBe(2);
  expect(await counted(otherToo)).toBe(2);

  a.io.serverSideEmit('probe', 'from a');
  await waitFor(() => heard.b.length === 1, 'b hears a');
  // Redis fans a publish out to every matching subscriber at once, so anything of a's reaching `other` would
  // arrive before this later publish on its own channel
  otherToo.io.serverSideEmit('probe', 'from their own');
  await waitFor(() => heard.other.length > 0, 'the other composition hears its own');
  expect(heard).toEqual({ b: ['from a'], other: ['from their own'] });
  // fetchSockets asks the instances on its own channel only
  expect(await a.io.fetchSockets()).toEqual([]);
});

it('a user’s sockets on every instance: an instance gone after being counted is not waited on twice', async () => {
  const channel = `test:${randomUUID()}:socket.io`;
  const [a, b] = await Promise.all([
    realtimeOn({ socketChannel: channel }),
    realtimeOn({ socketChannel: channel }),
  ]);
  // a third instance: counted by the adapter, gone at the first question it hears
  const requests = `${channel}-request#/#`;
  const doomed = new Redis(REDIS_URL);
  try {
    await doomed.subscribe(requests);
    await waitFor(async () => (await a.io.of('/').adapter.serverCount()) === 3, 'three counted');
    doomed.once('message', () => void doomed.unsubscribe(requests));
    // the first question times out waiting on it; the second is answered by the two left
    expect(await socketsOfUser(a.io, 'u1')).toBe(0);
    expect(await b.io.of('/').adapter.serverCount()).toBe(2);
  } finally {
    doomed.disconnect();
  }
});

it('a push while the gateway closes, or after, leaves no unhandled rejection (the adapter does not catch a publish)', async () => {
  process.on('unhandledRejection', onRejection);
  const realtime = await realtimeOn();
  realtime.pushToUser('u1', 'balance:changed', { ok: true });
  const closing = realtime.close();
  realtime.pushToUser('u1', 'balance:changed', { during: true });
  realtime.pushToAdmins('queue:changed', { during: true });
  await closing;
  realtime.pushToUser('u1', 'balance:changed', { after: true });
  realtime.pushToAdmins('queue:changed', { after: true });
  await settled();
  expect(rejections.map(String)).toEqual([]);
});

it('a push while Redis is away is logged as failed, and leaves no unhandled rejection', async () => {
  process.on('unhandledRejection', onRejection);
  const failures: Array<{ command?: unknown; msg?: string }> = [];
  const logger: GatewayLogger = {
    ...silentLogger,
    warn: (obj, msg) => {
      if ('command' in obj) failures.push({ command: obj.command, msg });
    },
  };
  const realtime = await realtimeOn({ redisUrl: `redis://127.0.0.1:${await freePort()}`, logger });
  realtime.pushToUser('u1', 'balance:changed', { away: true });
  await waitFor(() => failures.some((f) => f.command === 'publish'), 'the publish fails past its retries');
  await settled();
  expect(rejections.map(String)).toEqual([]);
  expect(failures).toContainEqual({ command: 'publish', msg: 'socket.io redis publisher command failed' });
});
