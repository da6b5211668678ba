/**
 * socket.io's Redis adapter when Redis cannot take a command: a gateway that closes, a Redis that is away. The
 * adapter does not await its publishes, so each case checks that no rejection is left unhandled.
 */
import { createServer } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { freePort, listenOn } from '@meridian/platform/util/freePort';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { silentLogger, type GatewayLogger } from './logger.js';
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

it('a push while Redis is away is logged as failed, and leaves no unhandled rejection', async () => {
  process.on('unhandledRejection', onRejection);
  const failures: Array<{ command?: unknown; msg?: string }> = [];
  const logger: GatewayLogger = {
    ...silentLogger,
    warn: (obj, msg) => {
      if ('command' in obj) failures.push({ command: obj.command, msg });
    },
  };
  const server = createServer();
  const port = await listenOn(server, 0, '127.0.0.1');
  const realtime = attachRealtime({
    server,
    identity: {} as IdentityServiceClient,
    logger,
    appUrl: `http://127.0.0.1:${port}`,
    redisUrl: `redis://127.0.0.1:${await freePort()}`,
  });
  try {
    realtime.pushToUser('u1', 'balance:changed', { away: true });
    await waitFor(() => failures.some((f) => f.command === 'publish'), 'the publish fails past its retries');
    await settled();
    expect(rejections.map(String)).toEqual([]);
    expect(failures).toContainEqual({ command: 'publish', msg: 'socket.io redis publisher command failed' });
  } finally {
    await realtime.close();
    server.close();
  }
});
