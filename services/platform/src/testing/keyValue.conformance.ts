import { afterEach, describe, expect, it } from 'vitest';
import type { KeyValueStore } from '../ports/keyValue.js';
import { waitFor } from './waitFor.js';

/** The one conformance suite of the KeyValueStore port. `create` gives a store under a fresh prefix. */
export function describeKeyValueConformance(name: string, create: () => Promise<KeyValueStore>): void {
  describe(`KeyValueStore conformance: ${name}`, () => {
    const stores: KeyValueStore[] = [];
    const fresh = async () => {
      const s = await create();
      stores.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
    });

    it('gets, sets, overwrites and deletes', async () => {
      const kv = await fresh();
      expect(await kv.get('a')).toBeNull();
      expect(await kv.set('a', '1')).toBe(true);
      expect(await kv.get('a')).toBe('1');
      expect(await kv.set('a', '2')).toBe(true);
      expect(await kv.get('a')).toBe('2');
      await kv.set('b', 'x');
      expect(await kv.del('a', 'b', 'missing')).toBe(2);
      expect(await kv.del()).toBe(0);
      expect(await kv.get('a')).toBeNull();
    });

    it('sets only if absent', async () => {
      const kv = await fresh();
      expect(await kv.set('lock', 'one', { onlyIfAbsent: true })).toBe(true);
      expect(await kv.set('lock', 'two', { onlyIfAbsent: true })).toBe(false);
      expect(await kv.get('lock')).toBe('one');
      expect(await kv.set('lock2', 'x', { onlyIfAbsent: true, ttlMs: 60_000 })).toBe(true);
      expect(await kv.set('lock2', 'y', { onlyIfAbsent: true, ttlMs: 60_000 })).toBe(false);
    });

    it('expires keys after their ttl and reports ttl (-1 none, -2 missing)', async () => {
      const kv = await fresh();
      await kv.set('short', 'v', { ttlMs: 60 });
      await kv.set('long', 'v', { ttlMs: 60_000 });
      await kv.set('forever', 'v');
      const ttl = await kv.ttl('long');
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await kv.ttl('forever')).toBe(-1);
      expect(await kv.ttl('missing')).toBe(-2);
      await waitFor(async () => (await kv.get('short')) === null, {
        timeoutMs: 3_000,
        message: 'short key expired',
      });
      expect(await kv.ttl('short')).toBe(-2);
      expect(await kv.get('long')).toBe('v');
      // a plain set clears the ttl, as in Redis
      await kv.set('long', 'w');
      expect(await kv.ttl('long')).toBe(-1);
    });

    it('increments atomically; the ttl starts when the key is created', async () => {
      const kv = await fresh();
      const results = await Promise.all(Array.from({ length: 20 }, () => kv.incr('hits', 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await kv.get('hits')).toBe('20');
      expect(await kv.ttl('hits')).toBeGreaterThan(50_000);

      expect(await kv.incr('window', 80)).toBe(1);
      expect(await kv.incr('window', 80)).toBe(2);
      await waitFor(async () => (await kv.ttl('window')) === -2, {
        timeoutMs: 3_000,
        message: 'window expired',
      });
      expect(await kv.incr('window', 80)).toBe(1);
    });

    it('compares and sets atomically: create, replace and delete only from the expected value', async () => {
      const kv = await fresh();
      // create only while absent
      expect(await kv.compareAndSet('owner', null, 'a', 60_000)).toBe(true);
      expect(await kv.compareAndSet('owner', null, 'b', 60_000)).toBe(false);
      expect(await kv.get('owner')).toBe('a');
      expect(await kv.ttl('owner')).toBeGreaterThan(50_000);
      // replace only from the exact value; the ttl is the new one (none when not given)
      expect(await kv.compareAndSet('owner', 'b', 'c', 60_000)).toBe(false);
      expect(await kv.compareAndSet('owner', 'a', 'c')).toBe(true);
      expect(await kv.get('owner')).toBe('c');
      expect(await kv.ttl('owner')).toBe(-1);
      // delete only from the exact value
      expect(await kv.compareAndSet('owner', 'a', null)).toBe(false);
      expect(await kv.compareAndSet('owner', 'c', null)).toBe(true);
      expect(await kv.ttl('owner')).toBe(-2);
      expect(await kv.compareAndSet('owner', null, null)).toBe(true);
      expect(await kv.compareAndSet('missing', 'x', null)).toBe(false);
      // an expired value is absent
      await kv.compareAndSet('brief', null, 'v', 60);
      await waitFor(async () => (await kv.get('brief')) === null, { timeoutMs: 3_000, message: 'expired' });
      expect(await kv.compareAndSet('brief', 'v', 'w')).toBe(false);
      expect(await kv.compareAndSet('brief', null, 'w')).toBe(true);
      // concurrent claims of one key: exactly one wins
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => kv.compareAndSet('race', null, `c${i}`, 60_000)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await kv.get('race')).toBe(`c${wins.indexOf(true)}`);
      // concurrent swaps from one value: exactly one wins
      const swaps = await Promise.all(
        Array.from({ length: 20 }, (_, i) => kv.compareAndSet('race', `c${wins.indexOf(true)}`, `d${i}`)),
      );
      expect(swaps.filter(Boolean)).toHaveLength(1);
    });

    it('keeps sets (add, remove, members, ttl)', async () => {
      const kv = await fresh();
      expect(await kv.smembers('s')).toEqual([]);
      await kv.sadd('s', 'a');
      await kv.sadd('s', 'b');
      await kv.sadd('s', 'a');
      expect((await kv.smembers('s')).sort()).toEqual(['a', 'b']);
      await kv.srem('s', 'a');
      await kv.srem('s', 'zzz');
      expect(await kv.smembers('s')).toEqual(['b']);
      await kv.srem('s', 'b');
      expect(await kv.ttl('s')).toBe(-2);

      // long enough to read the member back on a loaded machine, short enough to wait for
      await kv.sadd('t', 'x', 1_000);
      expect(await kv.smembers('t')).toEqual(['x']);
      await waitFor(async () => (await kv.smembers('t')).length === 0, {
        timeoutMs: 5_000,
        message: 'set expired',
      });
      expect(await kv.del('s2')).toBe(0);
    });

    it('isolates stores with different prefixes', async () => {
      const one = await fresh();
      const two = await fresh();
      await one.set('k', 'one');
      expect(await two.get('k')).toBeNull();
      await two.set('k', 'two');
      expect(await one.get('k')).toBe('one');
    });
  });
}
