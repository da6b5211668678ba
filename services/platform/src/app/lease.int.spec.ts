/**
 * Leases on real SQLite: two store instances on one temp FILE are two replicas sharing a database.
 * Each replica has its own injected monotonic clock, deliberately far apart (skew must not matter).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../eventSourcing/errors.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { sqliteReplicaStores } from '../testing/replicaStores.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import { createLease, LEASES, LeaseLostError, startLeaseKeeper, type LeaseRecord } from './lease.js';

const dir = tempDir('meridian-lease-');
afterAll(() => dir.remove());
let stores: ServiceStore[] = [];
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  stores = [];
});

const TTL = 1_000;

function replicas() {
  stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
  const name = `lease-${randomUUID()}`;
  // two clocks with a huge offset: only each one's own differences may count
  const clocks = { a: 5_000_000, b: 42 };
  const a = createLease({ store: stores[0], name, ttlMs: TTL, owner: 'replica-a', now: () => clocks.a });
  const b = createLease({ store: stores[1], name, ttlMs: TTL, owner: 'replica-b', now: () => clocks.b });
  const advance = (ms: number) => {
    clocks.a += ms;
    clocks.b += ms;
  };
  return { name, a, b, clocks, advance, record: () => stores[0].get<LeaseRecord>(LEASES, name) };
}

describe('lease', () => {
  it('one owner at a time: a free lease is taken, a held one is not', async () => {
    const { a, b, record } = replicas();
    expect(await a.acquire()).toBe(true);
    expect(a.isHeld()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(await b.acquire()).toBe(false);
    expect(b.isHeld()).toBe(false);
    expect(await record()).toMatchObject({ owner: 'replica-a', epoch: 1, ttlMs: TTL });
  });

  it('racing acquirers of a free lease: exactly one wins', async () => {
    stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
    const name = `lease-${randomUUID()}`;
    const leases = Array.from({ length: 8 }, (_, i) =>
      createLease({ store: stores[i % 2], name, ttlMs: TTL }),
    );
    const won = await Promise.all(leases.map((l) => l.acquire()));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(leases.filter((l) => l.isHeld())).toHaveLength(1);
  });

  it('a standby takes over only after seeing the record unchanged for ttl on its own clock', async () => {
    const { a, b, advance, record } = replicas();
    await a.acquire();
    expect(await b.acquire()).toBe(false); // starts observing
    advance(TTL - 1);
    expect(await b.acquire()).toBe(false);
    expect(await a.renew()).toBe(true); // a heartbeat: b starts counting again
    advance(1);
    expect(await b.acquire()).toBe(false); // b sees the new beat 1 ms after a renewed
    advance(TTL - 2);
    expect(await b.acquire()).toBe(false);
    expect(a.isHeld()).toBe(true);
    // a stops renewing (killed): its own validity runs out first, then b may take over
    advance(1);
    expect(a.isHeld()).toBe(false);
    expect(await b.acquire()).toBe(false);
    advance(1);
    expect(await b.acquire()).toBe(true);
    expect(b.isHeld()).toBe(true);
    expect(await record()).toMatchObject({ owner: 'replica-b', epoch: 2 });
    expect(await a.renew()).toBe(false);
    expect(await a.acquire()).toBe(false);
  });

  it('the holder counts its validity from the start of its last renewal', async () => {
    const { a, clocks } = replicas();
    await a.acquire();
    clocks.a += TTL - 1;
    expect(a.isHeld()).toBe(true);
    clocks.a += 1;
    expect(a.isHeld()).toBe(false);
    expect(await a.acquire()).toBe(true); // nobody took it: it renews
    expect(a.isHeld()).toBe(true);
  });

  it('release hands the lease over at once, with a new fencing token', async () => {
    const { a, b, record } = replicas();
    await a.acquire();
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(a.isHeld()).toBe(false);
    expect(await b.acquire()).toBe(true);
    expect(b.epoch()).toBe(2);
    expect(await record()).toMatchObject({ owner: 'replica-b', epoch: 2 });
  });

  it('fencing: a holder whose lease was taken over cannot write in the fenced transaction', async () => {
    const { a, b, advance, name } = replicas();
    await a.acquire();
    // a's write while it holds: allowed
    await stores[0].transaction(async (tx) => {
      await a.fence(tx);
      await tx.setCheckpoint(name, 5);
    });
    // a pauses (GC, network) past its ttl; b takes over and moves on
    await b.acquire();
    advance(TTL);
    expect(await b.acquire()).toBe(true);
    await stores[1].transaction(async (tx) => {
      await b.fence(tx);
      await tx.setCheckpoint(name, 9);
    });
    // a wakes up and writes its (older) checkpoint: refused, nothing written
    const late = stores[0].transaction(async (tx) => {
      await a.fence(tx);
      await tx.setCheckpoint(name, 7);
    });
    await expect(late).rejects.toBeInstanceOf(LeaseLostError);
    expect(await stores[0].getCheckpoint(name)).toBe(9);
    expect(a.isHeld()).toBe(false);
  });

  it('refuses a lease without a name or with a ttl that is not a positive number of ms', () => {
    stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`), 1);
    expect(() => createLease({ store: stores[0], name: '' })).toThrow(DomainError);
    expect(() => createLease({ store: stores[0], name: 'x', ttlMs: 0 })).toThrow(
      'lease ttlMs must be a positive number of ms',
    );
    expect(() => createLease({ store: stores[0], name: 'x', ttlMs: Number.NaN })).toThrow(DomainError);
  });
});

describe('lease keeper', () => {
  it('keeps the lease by renewing; a standby takes over after the holder dies, at once after a release', async () => {
    stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
    const name = `keeper-${randomUUID()}`;
    const ttlMs = 300;
    const a = startLeaseKeeper({ store: stores[0], name, ttlMs, pollMs: 20 });
    await a.ready;
    expect(a.isHeld()).toBe(true);
    const b = startLeaseKeeper({ store: stores[1], name, ttlMs, pollMs: 20 });
    const changes: boolean[] = [];
    b.onChange((held) => changes.push(held));
    await b.ready;
    // a renews every ttl/3: across several ttls b never gets it
    const record = () => stores[0].get<LeaseRecord>(LEASES, name);
    const beat = (await record())!.beat;
    await waitFor(async () => (await record())!.beat >= beat + 6, 'a renewed over two ttls');
    expect(b.isHeld()).toBe(false);
    expect(a.isHeld()).toBe(true);

    // a is killed (no release): b takes over about one ttl after a's last renewal
    await a.stop({ release: false });
    const killedAt = Date.now();
    await waitFor(() => b.isHeld(), { timeoutMs: 5_000, message: 'b took over' });
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(ttlMs / 3); // not at its 20 ms poll: it waited for the expiry
    expect(changes).toEqual([true]);
    expect(await record()).toMatchObject({ epoch: 2, owner: b.lease.owner });

    // a clean stop releases: a standby gets it at its next poll, long before a ttl
    const c = startLeaseKeeper({ store: stores[0], name, ttlMs: 60_000, pollMs: 20 });
    await c.ready;
    expect(c.isHeld()).toBe(false);
    await b.stop();
    expect(changes).toEqual([true, false]);
    await waitFor(() => c.isHeld(), { timeoutMs: 2_000, message: 'c took the released lease' });
    expect(await record()).toMatchObject({ epoch: 3, owner: c.lease.owner });
    await c.stop();
    expect(await record()).toMatchObject({ owner: null, epoch: 3 });
  });
});
