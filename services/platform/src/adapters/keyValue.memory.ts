import type { KeyValueStore } from '../ports/keyValue.js';

interface Entry {
  value: string | Set<string>;
  expiresAt: number | null;
}

/**
 * In-memory KeyValueStore (single process; only when no REDIS_URL is given). Same semantics as the
 * Redis adapter: TTLs in ms, expired keys vanish (lazily, plus a periodic sweep), string ops on a set
 * key throw WRONGTYPE.
 */
export function createMemoryKeyValueStore(
  options: { prefix?: string; now?: () => number; sweepMs?: number } = {},
): KeyValueStore {
  const prefix = options.prefix ?? '';
  const now = options.now ?? Date.now;
  const data = new Map<string, Entry>();
  let closed = false;

  const sweep = setInterval(() => {
    const t = now();
    for (const [k, e] of data) if (e.expiresAt !== null && e.expiresAt <= t) data.delete(k);
  }, options.sweepMs ?? 30_000);
  sweep.unref();

  const live = (key: string): Entry | undefined => {
    if (closed) throw new Error('KeyValueStore is closed');
    const k = prefix + key;
    const e = data.get(k);
    if (e && e.expiresAt !== null && e.expiresAt <= now()) {
      data.delete(k);
      return undefined;
    }
    return e;
  };
  const wrongType = () => new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
  const expiry = (ttlMs: number | undefined) => (ttlMs !== undefined && ttlMs > 0 ? now() + ttlMs : null);

  return {
    async get(key) {
      const e = live(key);
      if (!e) return null;
      if (typeof e.value !== 'string') throw wrongType();
      return e.value;
    },
    async set(key, value, opts = {}) {
      const e = live(key);
      if (opts.onlyIfAbsent && e) return false;
      data.set(prefix + key, { value, expiresAt: expiry(opts.ttlMs) });
      return true;
    },
    async del(...keys) {
      let n = 0;
      for (const key of keys) if (live(key) && data.delete(prefix + key)) n++;
      return n;
    },
    async incr(key, ttlMs) {
      const e = live(key);
      if (!e) {
        data.set(prefix + key, { value: '1', expiresAt: expiry(ttlMs) });
        return 1;
      }
      if (typeof e.value !== 'string') throw wrongType();
      const n = Number(e.value);
      if (!Number.isInteger(n)) throw new Error('ERR value is not an integer or out of range');
      e.value = String(n + 1);
      return n + 1;
    },
    async ttl(key) {
      const e = live(key);
      if (!e) return -2;
      if (e.expiresAt === null) return -1;
      return Math.max(0, e.expiresAt - now());
    },
    async compareAndSet(key, expected, next, ttlMs) {
      const e = live(key);
      if (e && typeof e.value !== 'string') throw wrongType();
      if ((e?.value ?? null) !== expected) return false;
      if (next === null) data.delete(prefix + key);
      else data.set(prefix + key, { value: next, expiresAt: expiry(ttlMs) });
      return true;
    },
    async sadd(key, member, ttlMs) {
      let e = live(key);
      if (!e) {
        e = { value: new Set<string>(), expiresAt: null };
        data.set(prefix + key, e);
      }
      if (typeof e.value === 'string') throw wrongType();
      e.value.add(member);
      if (ttlMs !== undefined && ttlMs > 0) e.expiresAt = now() + ttlMs;
    },
    async srem(key, member) {
      const e = live(key);
      if (!e) return;
      if (typeof e.value === 'string') throw wrongType();
      e.value.delete(member);
      if (e.value.size === 0) data.delete(prefix + key);
    },
    async smembers(key) {
      const e = live(key);
      if (!e) return [];
      if (typeof e.value === 'string') throw wrongType();
      return [...e.value];
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      data.clear();
    },
  };
}
