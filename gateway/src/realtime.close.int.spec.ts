/** socket.io's Redis adapter on a closing gateway: pushes during and after close() publish nothing. */
import { createServer } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { listenOn } from '@meridian/platform/util/freePort';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { silentLogger } from './logger.js';
import { attachRealtime } from './realtime.js';
import { REDIS_URL } from './testing/composition.js';

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
afterEach(() => {
  process.off('unhandledRejection', onRejection);
});

/** Resolves once Node has had every chance to report a rejection left unhandled so far. */
const settled = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

it('a push while the gateway closes, or after, leaves no unhandled rejection (the adapter does not catch a publish)', async () => {
  process.on('unhandledRejection', onRejection);
  const server = createServer();
  const port = await listenOn(server, 0, '127.0.0.1');
  const realtime = attachRealtime({
    server,
    identity: {} as IdentityServiceClient,
    logger: silentLogger,
    appUrl: `http://127.0.0.1:${port}`,
    redisUrl: REDIS_URL,
  });
  realtime.pushToUser('u1', 'balance:changed', { ok: true });
  const closing = realtime.close();
  realtime.pushToUser('u1', 'balance:changed', { during: true });
  realtime.pushToAdmins('queue:changed', { during: true });
  await closing;
  realtime.pushToUser('u1', 'balance:changed', { after: true });
  realtime.pushToAdmins('queue:changed', { after: true });
  await settled();
  server.close();
  expect(rejections.map(String)).toEqual([]);
});
