/**
 * socket.io's Redis adapter joins the instances of one deployment by its channel. Redis pub/sub channels span
 * every database of a Redis server, so deployments (and test compositions) sharing one Redis keep apart only by
 * their channels: an instance counts, asks and tells the instances on its own channel alone.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { listenOn } from '@meridian/platform/util/freePort';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { silentLogger } from './logger.js';
import { attachRealtime, type Realtime } from './realtime.js';
import { REDIS_URL } from './testing/composition.js';

const started: Array<{ realtime: Realtime; close(): void }> = [];
afterEach(async () => {
  for (const s of started.splice(0)) {
    await s.realtime.close();
    s.close();
  }
});

async function instance(socketChannel: string): Promise<Realtime> {
  const server = createServer();
  const port = await listenOn(server, 0, '127.0.0.1');
  const realtime = attachRealtime({
    server,
    identity: {} as IdentityServiceClient,
    logger: silentLogger,
    appUrl: `http://127.0.0.1:${port}`,
    redisUrl: REDIS_URL,
    socketChannel,
  });
  started.push({ realtime, close: () => server.close() });
  return realtime;
}

it('instances on one channel count and hear each other; another channel on the same Redis is apart', async () => {
  const ours = `test:${randomUUID()}:socket.io`;
  const theirs = `test:${randomUUID()}:socket.io`;
  const [a, b, other, otherToo] = await Promise.all([
    instance(ours),
    instance(ours),
    instance(theirs),
    instance(theirs),
  ]);
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
  await waitFor(() => heard.other.length > 0, 'the other deployment hears its own');
  expect(heard).toEqual({ b: ['from a'], other: ['from their own'] });
  // fetchSockets asks the instances on its own channel only
  expect(await a.io.fetchSockets()).toEqual([]);
});
