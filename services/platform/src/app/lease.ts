/**
 * Leases: among any number of replicas of a service sharing one ServiceStore, one at a time may act
 * (publish the outbox, send pending emails, run a scheduler). Built on the ServiceStore port only
 * (documents in the `_leases` collection, read and written in store transactions), so it behaves the
 * same on the SQLite and MongoDB adapters.
 *
 * The record `{ owner, epoch, beat }`: `owner` holds it (null once released), `epoch` is the fencing
 * token (+1 at every change of holder), `beat` grows at every renewal. A holder renews every ttl/3.
 *
 * Time. Replicas never compare each other's clocks. Each one measures time only with its own monotonic
 * clock (`now`, default performance.now(): immune to wall-clock jumps), the way Kubernetes' leader
 * election does:
 * - the holder counts its lease valid until (start of its last successful renewal) + ttl;
 * - a standby takes the lease over once it has seen the same `(owner, epoch, beat)` for ttl on its own
 *   clock (so a holder that died without releasing loses it about one ttl after its last renewal).
 * Since the standby starts counting after it read the renewal, which committed after the holder
 * started it, the holder's validity ends before a standby can take over, whatever the clocks' offsets.
 * The one assumption: clocks run at about the same RATE (drift over one ttl is negligible; NTP-disciplined
 * or not, quartz drift is ~1e-5). No assumption is made on skew between the replicas' wall clocks;
 * `at` in the record is the writer's wall clock for humans and is never used in a decision.
 *
 * Fencing. A holder can be paused (GC, a lost network) past its validity while a standby takes over.
 * Whatever it then writes as the holder must be checked: `fence(tx)` re-reads the record inside the
 * caller's transaction and throws LeaseLostError unless this owner still holds the same epoch, and it
 * also bumps `beat` (a write), so that on MongoDB (snapshot isolation) a concurrent takeover is a
 * write-write conflict rather than an unnoticed write skew.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { invalid } from '../eventSourcing/errors.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { Signal } from '../util/async.js';

/** The read-model collection holding one document per lease (id = lease name). */
export const LEASES = '_leases';

export const DEFAULT_LEASE_TTL_MS = 10_000;

export interface LeaseRecord {
  name: string;
  /** The holder, or null once released. */
  owner: string | null;
  /** Fencing token: +1 at every change of holder. */
  epoch: number;
  /** +1 at every renewal (and fenced write) by the holder: what standbys watch. */
  beat: number;
  /** The ttl the holder runs with (standbys wait this long). */
  ttlMs: number;
  /** The writer's wall clock (ISO): diagnostics only, never compared. */
  at: string;
}

export class LeaseLostError extends Error {
  constructor(
    readonly lease: string,
    readonly owner: string,
  ) {
    super(`lease ${lease}: ${owner} no longer holds it`);
    this.name = 'LeaseLostError';
  }
}

/** What every lease user may tune; the defaults suit production. */
export interface LeaseSettings {
  /** How long a holder that stops renewing keeps the lease (default 10 s). */
  ttlMs?: number;
  /** The holder renews this often (default ttl/3). */
  renewEveryMs?: number;
  /** A standby re-reads the lease this often (default min(ttl/3, 1 s): a released lease is taken at once). */
  pollMs?: number;
  /**
   * Owner id (default: host, pid and a random part, unique per lease object). A given one must be
   * unique among the contenders: two objects with one owner id would both count as the holder.
   */
  owner?: string;
  /** This process's monotonic clock in ms (tests inject one). Only ever compared with itself. */
  now?: () => number;
}

export interface LeaseOptions extends Pick<LeaseSettings, 'ttlMs' | 'owner' | 'now'> {
  store: ServiceStore;
  name: string;
}

export interface Lease {
  readonly name: string;
  readonly owner: string;
  readonly ttlMs: number;
  /** True while this owner holds the lease and its local validity has not run out. */
  isHeld(): boolean;
  /** The fencing token of the current (or last) tenure; 0 before the first. */
  epoch(): number;
  /**
   * Takes the lease when it is free, released, already ours (then it renews), or when its holder has
   * not renewed for ttl as observed by this process (call it periodically: the first call on a held
   * lease only starts observing). Resolves true when this owner holds it.
   */
  acquire(): Promise<boolean>;
  /** Extends the lease when this owner still holds it; false (and not held) otherwise. */
  renew(): Promise<boolean>;
  /** Gives the lease up at once (a standby takes it at its next poll). No-op when not ours. */
  release(): Promise<void>;
  /** Inside the caller's transaction: throws LeaseLostError unless this tenure still holds the lease. */
  fence(tx: StoreTx): Promise<void>;
}

const PROCESS_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
let ownerSeq = 0;

/** A fresh owner id: random per process, unique per call. */
export function newLeaseOwner(): string {
  return `${PROCESS_ID}#${++ownerSeq}`;
}

const keyOf = (r: LeaseRecord | null) => (r ? `${r.owner ?? ''}|${r.epoch}|${r.beat}` : '');

function checkMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw invalid(`lease ${name} must be a positive number of ms (got ${value})`);
  return value;
}

/** One lease object per (store, name, owner). See the module comment for the time model. */
export function createLease(options: LeaseOptions): Lease {
  const { store, name } = options;
  if (!name) throw invalid('a lease needs a name');
  const ttlMs = checkMs('ttlMs', options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
  const owner = options.owner ?? newLeaseOwner();
  const now = options.now ?? (() => performance.now());
  let held = false;
  let validUntil = 0;
  let myEpoch = 0;
  /** The other holder's record as last seen, and when (our clock) it was first seen unchanged. */
  let observed: { key: string; since: number } | null = null;

  const record = (epoch: number, beat: number, who: string | null): LeaseRecord => ({
    name,
    owner: who,
    epoch,
    beat,
    ttlMs,
    at: new Date().toISOString(),
  });

  const lose = () => {
    held = false;
    validUntil = 0;
  };

  /**
   * Puts the record `next` makes of the current one, in one transaction (null: not ours to write);
   * written, this owner holds the lease for ttl from the start of the attempt.
   */
  const write = async (next: (cur: LeaseRecord | null) => LeaseRecord | null): Promise<boolean> => {
    const startedAt = now();
    const written = await store.transaction(async (tx) => {
      const r = next(await tx.get<LeaseRecord>(LEASES, name));
      if (r) await tx.put(LEASES, name, r);
      return r;
    });
    observed = null;
    if (!written) {
      lose();
      return false;
    }
    held = true;
    myEpoch = written.epoch;
    validUntil = startedAt + ttlMs;
    return true;
  };

  const renew = () => write((cur) => (cur?.owner === owner ? record(cur.epoch, cur.beat + 1, owner) : null));

  const acquire = async (): Promise<boolean> => {
    const seen = await store.get<LeaseRecord>(LEASES, name);
    if (seen?.owner === owner) return renew();
    if (seen?.owner) {
      // held by another: only a record left unchanged for its ttl (on our clock) may be taken
      const key = keyOf(seen);
      const t = now();
      if (!observed || observed.key !== key) {
        observed = { key, since: t };
        lose();
        return false;
      }
      if (t - observed.since < checkMs('ttlMs', seen.ttlMs)) {
        lose();
        return false;
      }
    }
    // someone moved first: not written, and observing starts again
    return write((cur) => (keyOf(cur) === keyOf(seen) ? record((cur?.epoch ?? 0) + 1, 0, owner) : null));
  };

  return {
    name,
    owner,
    ttlMs,
    isHeld: () => held && now() < validUntil,
    epoch: () => myEpoch,
    acquire,
    renew,
    async release() {
      lose();
      await store.transaction(async (tx) => {
        const cur = await tx.get<LeaseRecord>(LEASES, name);
        if (!cur || cur.owner !== owner) return;
        await tx.put(LEASES, name, record(cur.epoch, cur.beat + 1, null));
      });
    },
    async fence(tx) {
      const cur = await tx.get<LeaseRecord>(LEASES, name);
      if (!cur || cur.owner !== owner || cur.epoch !== myEpoch || myEpoch === 0) {
        lose();
        throw new LeaseLostError(name, owner);
      }
      await tx.put(LEASES, name, record(cur.epoch, cur.beat + 1, owner));
    },
  };
}

export interface LeaseKeeper {
  readonly lease: Lease;
  /** Whether this process may act now (see Lease.isHeld). */
  isHeld(): boolean;
  /** See Lease.fence. */
  fence(tx: StoreTx): Promise<void>;
  /** Resolves after the first attempt to acquire, held or not (so a lone replica acts from its first pass). */
  readonly ready: Promise<void>;
  /** Called with true when this process becomes the holder, false when it stops being it. */
  onChange(listener: (held: boolean) => void): () => void;
  /** Stops renewing; releases the lease unless `release: false` (what a killed process does). */
  stop(options?: { release?: boolean }): Promise<void>;
}

export interface LeaseKeeperOptions extends LeaseSettings {
  store: ServiceStore;
  name: string;
  /** A failed acquire/renew/release (the store was unreachable); the keeper retries at its next tick. */
  onError?: (error: unknown) => void;
}

/**
 * Keeps trying: renews every renewEveryMs while holding, polls every pollMs while standing by. The
 * holder's validity decays by itself when renewals stop getting through (isHeld turns false).
 */
/** A keeper of `options.name`, or null when leases are switched off (`lease: false`: a single replica by construction). */
export function startLeaseKeeperUnless(
  lease: LeaseSettings | false | undefined,
  options: Pick<LeaseKeeperOptions, 'store' | 'name' | 'onError'>,
): LeaseKeeper | null {
  return lease === false ? null : startLeaseKeeper({ ...lease, ...options });
}

export function startLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const lease = createLease(options);
  const renewEveryMs = checkMs('renewEveryMs', options.renewEveryMs ?? lease.ttlMs / 3);
  const pollMs = checkMs('pollMs', options.pollMs ?? Math.min(lease.ttlMs / 3, 1_000));
  const listeners = new Set<(held: boolean) => void>();
  const wake = new Signal();
  let stopped = false;
  let reported = false;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const report = () => {
    const held = lease.isHeld();
    if (held === reported) return;
    reported = held;
    for (const l of [...listeners]) {
      try {
        l(held);
      } catch (err) {
        options.onError?.(err);
      }
    }
  };

  const loop = async () => {
    while (!stopped) {
      try {
        await lease.acquire();
      } catch (err) {
        options.onError?.(err);
      }
      if (stopped) break;
      report();
      markReady();
      await wake.wait(lease.isHeld() ? renewEveryMs : pollMs);
      report(); // validity may have run out while waiting
    }
    markReady();
  };
  const running = loop();

  return {
    lease,
    isHeld: () => !stopped && lease.isHeld(),
    fence: (tx) => lease.fence(tx),
    ready,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop(stopOptions = {}) {
      if (stopped) return running;
      stopped = true;
      wake.notify();
      await running;
      if (stopOptions.release !== false) {
        try {
          await lease.release();
        } catch (err) {
          options.onError?.(err);
        }
      }
      if (reported) {
        reported = false;
        for (const l of [...listeners]) l(false);
      }
    },
  };
}
