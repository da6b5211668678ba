/**
 * Short-lived shared state: sessions, login codes, rate limits, device trust.
 * Adapters: Redis (ioredis) and in-memory (only when no REDIS_URL is given).
 * One conformance suite (testing/keyValue.conformance.ts) runs against real Redis and memory.
 * All TTLs are in milliseconds. Keys are namespaced by the adapter's prefix.
 */
export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: { ttlMs?: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  del(...keys: string[]): Promise<number>;
  /** Atomically increments and returns the new value; sets ttl when the key is created. */
  incr(key: string, ttlMs: number): Promise<number>;
  /** Remaining ttl in ms; -1 no ttl; -2 missing. */
  ttl(key: string): Promise<number>;
  /**
   * Atomically, when the key holds exactly `expected` (null: the key is absent), replaces it with `next`
   * (with `ttlMs` when given, else no ttl; null: deletes it). True when it did; nothing changes otherwise.
   * Locks with an owner use it to renew, hand over and release only what they still hold.
   */
  compareAndSet(key: string, expected: string | null, next: string | null, ttlMs?: number): Promise<boolean>;
  sadd(key: string, member: string, ttlMs?: number): Promise<void>;
  srem(key: string, member: string): Promise<void>;
  smembers(key: string): Promise<string[]>;
  close(): Promise<void>;
}
