import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { createMemoryKeyValueStore } from './keyValue.memory.js';
import { createRedisKeyValueStore } from './keyValue.redis.js';
import { describeKeyValueConformance } from '../testing/keyValue.conformance.js';

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
