/** The LiveLog port against both adapters: memory and a real Redis under a random prefix. */
import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';
import { describeLiveLogConformance } from './liveLog.conformance.js';
import { createMemoryLiveLog } from './liveLog.memory.js';
import { createRedisLiveLog } from './liveLog.redis.js';
import { deleteRedisKeys } from '../testing/redisKeys.js';

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

afterAll(() => deleteRedisKeys(url, root));
