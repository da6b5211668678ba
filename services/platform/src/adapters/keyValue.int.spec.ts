import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createMemoryKeyValueStore } from './keyValue.memory.js';
import { createRedisKeyValueStore } from './keyValue.redis.js';
import { describeKeyValueConformance } from '../testing/keyValue.conformance.js';
import { waitFor } from '../testing/waitFor.js';
import { freePort } from '../util/freePort.js';

describeKeyValueConformance('memory', async () =>
  createMemoryKeyValueStore({ prefix: `test:${randomUUID()}:` }),
);

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefixes: string[] = [];
afterAll(async () => {
  // remove whatever the tests left behind under their prefixes
  for (const p of prefixes) {
    const keys = await client.keys(`${p}*`);
    if (keys.length) await client.del(...keys);
  }
  client.disconnect();
});

describeKeyValueConformance(`redis (${url})`, async () => {
  const prefix = `test:${randomUUID()}:`;
  prefixes.push(prefix);
  return createRedisKeyValueStore({ client, prefix });
});

describe('redis away', () => {
  it("reports the connection's errors to onError (never an unhandled error event) and fails each command", async () => {
    // a port that was free a moment ago: nothing listens there
    const port = await freePort();
    const errors: Error[] = [];
    const kv = createRedisKeyValueStore({ url: `redis://127.0.0.1:${port}`, onError: (e) => errors.push(e) });
    try {
      await waitFor(() => errors.length > 0, 'a connection error reported');
      expect(errors[0]!.message).toContain('ECONNREFUSED');
      await expect(kv.get('k')).rejects.toThrow();
    } finally {
      await kv.close();
    }
  });
});
