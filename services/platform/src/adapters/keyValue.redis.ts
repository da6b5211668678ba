import { Redis } from 'ioredis';
import type { KeyValueStore } from '../ports/keyValue.js';

export interface RedisKeyValueOptions {
  /** redis://… connection string (ignored when `client` is given). */
  url?: string;
  /** An existing ioredis client to share; it is NOT closed by close(). */
  client?: Redis;
  /** Namespace for every key, e.g. 'meridian:identity:'. */
  prefix?: string;
  /**
   * The connection's errors (Redis away: ioredis reconnects; each command fails on its own). Without a
   * listener ioredis prints them as unhandled error events.
   */
  onError?: (err: Error) => void;
}

/**
 * compareAndSet as one script (atomic on the server): KEYS[1]; ARGV = expected present (1/0), expected,
 * next present (1/0), next, ttl ms (0: none). GET on a set raises WRONGTYPE, as the memory adapter does.
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[3] == '1' then
  if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
  else redis.call('SET', KEYS[1], ARGV[4]) end
elseif current then
  redis.call('DEL', KEYS[1])
end
return 1`;

/** KeyValueStore on Redis (ioredis). Keys are `${prefix}${key}`; TTLs in ms (PX / PEXPIRE / PTTL). */
export function createRedisKeyValueStore(options: RedisKeyValueOptions): KeyValueStore & { client: Redis } {
  const owned = !options.client;
  const client =
    options.client ??
    new Redis(options.url ?? 'redis://127.0.0.1:6379', {
      maxRetriesPerRequest: 3,
      enableOfflineQueue: true,
      lazyConnect: false,
    });
  if (owned) client.on('error', (err: Error) => options.onError?.(err));
  const prefix = options.prefix ?? '';
  const k = (key: string) => prefix + key;

  return {
    client,
    async get(key) {
      return client.get(k(key));
    },
    async set(key, value, opts = {}) {
      const ttl = opts.ttlMs !== undefined && opts.ttlMs > 0 ? Math.ceil(opts.ttlMs) : undefined;
      let res: string | null;
      if (ttl !== undefined && opts.onlyIfAbsent) res = await client.set(k(key), value, 'PX', ttl, 'NX');
      else if (ttl !== undefined) res = await client.set(k(key), value, 'PX', ttl);
      else if (opts.onlyIfAbsent) res = await client.set(k(key), value, 'NX');
      else res = await client.set(k(key), value);
      return res === 'OK';
    },
    async del(...keys) {
      if (keys.length === 0) return 0;
      return client.del(...keys.map(k));
    },
    async incr(key, ttlMs) {
      const multi = client.multi();
      if (ttlMs > 0) multi.set(k(key), '0', 'PX', Math.ceil(ttlMs), 'NX');
      multi.incr(k(key));
      const results = await multi.exec();
      if (!results) throw new Error('redis: incr transaction aborted');
      const [err, value] = results[results.length - 1];
      if (err) throw err;
      return Number(value);
    },
    async ttl(key) {
      return client.pttl(k(key));
    },
    async compareAndSet(key, expected, next, ttlMs) {
      const ttl = ttlMs !== undefined && ttlMs > 0 ? Math.ceil(ttlMs) : 0;
      const done = await client.eval(
        COMPARE_AND_SET,
        1,
        k(key),
        expected === null ? '0' : '1',
        expected ?? '',
        next === null ? '0' : '1',
        next ?? '',
        String(ttl),
      );
      return done === 1;
    },
    async sadd(key, member, ttlMs) {
      const multi = client.multi().sadd(k(key), member);
      if (ttlMs !== undefined && ttlMs > 0) multi.pexpire(k(key), Math.ceil(ttlMs));
      const results = await multi.exec();
      const failed = results?.find(([e]) => e);
      if (failed) throw failed[0];
    },
    async srem(key, member) {
      await client.srem(k(key), member);
    },
    async smembers(key) {
      return client.smembers(k(key));
    },
    async close() {
      if (owned) await client.quit().catch(() => client.disconnect());
    },
  };
}
