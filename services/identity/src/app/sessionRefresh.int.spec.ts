/**
 * The sliding refresh of Authenticate never brings a revoked session back.
 *
 * Deterministic interleaving: a KeyValueStore wrapper pauses Authenticate exactly when it rewrites the
 * session record (after it has read it), a logout or a password change runs to the end meanwhile, then
 * the rewrite goes on. Against real Redis (database 14, used by no other suite; skipped with a printed
 * reason when no Redis answers) and the in-memory store.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { probeRedis, startHarness, type Harness } from '../testing/harness.js';

const { status } = grpc;
const HOUR = 60 * 60 * 1000;
const RACE_REDIS_URL = 'redis://127.0.0.1:6379/14';

/** A store whose next write of a session record (`session:<sid>`) waits until `release()`. */
function pausingKv(inner: KeyValueStore) {
  let armed = false;
  let paused = false;
  let release: () => void = () => undefined;
  const kv: KeyValueStore = {
    get: (key) => inner.get(key),
    async set(key, value, options) {
      if (armed && key.startsWith('session:')) {
        armed = false;
        paused = true;
        await new Promise<void>((resolve) => (release = resolve));
        paused = false;
      }
      return inner.set(key, value, options);
    },
    del: (...keys) => inner.del(...keys),
    incr: (key, ttlMs) => inner.incr(key, ttlMs),
    compareAndSet: (key, expected, next, ttlMs) => inner.compareAndSet(key, expected, next, ttlMs),
    ttl: (key) => inner.ttl(key),
    sadd: (key, member, ttlMs) => inner.sadd(key, member, ttlMs),
    srem: (key, member) => inner.srem(key, member),
    smembers: (key) => inner.smembers(key),
    close: () => inner.close(),
  };
  return {
    kv,
    /** The next session-record write pauses. */
    arm() {
      armed = true;
    },
    async whenPaused() {
      await waitFor(() => paused, { message: 'Authenticate reached its rewrite of the session record' });
    },
    release: () => release(),
  };
}

/** A started harness over a store whose next session-record write pauses. */
interface Race {
  h: Harness;
  pause: ReturnType<typeof pausingKv>;
}

interface RaceStore {
  kv: KeyValueStore;
  /** Removes what the test left under its prefix and closes the store. */
  dispose(): Promise<void>;
}

const stores: Array<{ name: string; create(prefix: string): Promise<RaceStore | null> }> = [
  {
    name: 'memory',
    create: async (prefix) => {
      const kv = createMemoryKeyValueStore({ prefix });
      return { kv, dispose: () => kv.close() };
    },
  },
  {
    name: `redis (${RACE_REDIS_URL})`,
    create: async (prefix) => {
      if (!(await probeRedis(RACE_REDIS_URL))) return null;
      const kv = createRedisKeyValueStore({ url: RACE_REDIS_URL, prefix });
      return {
        kv,
        async dispose() {
          const keys = await kv.client.keys(`${prefix}*`);
          if (keys.length) await kv.client.del(...keys);
          await kv.close();
        },
      };
    },
  },
];

describe.each(stores)('session refresh racing a revocation: $name', ({ create }) => {
  let h: Harness | undefined;
  let store: RaceStore | null = null;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await store?.dispose();
    store = null;
  });

  async function setup(): Promise<Race | null> {
    store = await create(`test:identity-race:${randomUUID()}:`);
    if (!store) {
      process.stdout.write(`skipped: no Redis at ${RACE_REDIS_URL}\n`);
      return null;
    }
    const pause = pausingKv(store.kv);
    h = await startHarness({ deps: { kv: pause.kv } });
    return { h, pause };
  }

  /**
   * Authenticate on `sessionToken` runs up to its rewrite of the session record, `revoke` runs to the end
   * meanwhile, then the rewrite goes on: the racing call is refused and the session stays revoked.
   */
  async function expectRevocationToWin(
    s: Race,
    sessionToken: string,
    revoke: () => Promise<void>,
  ): Promise<void> {
    s.pause.arm();
    const outcome = s.h.call('authenticate', { sessionToken }).then(
      (p) => ({ refreshed: p.refreshedSessionToken }),
      (err: grpc.ServiceError) => ({ code: err.code }),
    );
    await s.pause.whenPaused();
    await revoke();
    s.pause.release();

    expect(await outcome).toEqual({ code: status.UNAUTHENTICATED });
    await expectStatus(
      s.h.call('authenticate', { sessionToken }),
      status.UNAUTHENTICATED,
      'Not authorized, please login',
    );
  }

  it('a logout between the read and the rewrite stays a logout', async (test) => {
    const s = await setup();
    if (!s) return test.skip(`no Redis at ${RACE_REDIS_URL}`);
    const user = await s.h.register();
    const caller = await s.h.callerOf(user.sessionToken);
    s.h.advance(2 * HOUR); // the next Authenticate slides the session forward

    await expectRevocationToWin(s, user.sessionToken, async () => {
      expect((await s.h.call('logout', { caller })).message).toBe('Logout successful');
    });
    await expectStatus(s.h.call('getUser', { caller }), status.UNAUTHENTICATED);
  });

  it('a password change between the read and the rewrite still ends the other session', async (test) => {
    const s = await setup();
    if (!s) return test.skip(`no Redis at ${RACE_REDIS_URL}`);
    const user = await s.h.register();
    const other = await s.h.loginTrusted(user);
    const changer = await s.h.callerOf(user.sessionToken);
    s.h.advance(2 * HOUR);

    await expectRevocationToWin(s, other.sessionToken, async () => {
      await s.h.call('changePassword', {
        caller: changer,
        oldPassword: user.password,
        password: 'New-pass-2',
      });
    });
    // the session that changed the password lives on
    expect((await s.h.call('authenticate', { sessionToken: user.sessionToken })).userId).toBe(user.user!.id);
  });
});
