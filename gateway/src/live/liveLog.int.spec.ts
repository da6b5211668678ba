/** The LiveLog port against both adapters: memory and a real Redis under a random prefix. */
import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { describeLiveLogConformance } from './liveLog.conformance.js';
import { createMemoryLiveLog } from './liveLog.memory.js';
import { createRedisLiveLog } from './liveLog.redis.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const root = `test:${randomUUID()}:live:`;
let last = '';

describeLiveLogConformance('memory', { create: async (options) => createMemoryLiveLog(options) });

describeLiveLogConformance(`redis (${url})`, {
  async create(options) {
    last = `${root}${randomUUID()}:`;
    return createRedisLiveLog({ url, prefix: last, ...options });
  },
  async reopen(options) {
    return createRedisLiveLog({ url, prefix: last, ...options });
  },
});

afterAll(async () => {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${root}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
});
