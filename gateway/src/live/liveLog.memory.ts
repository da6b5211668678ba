/**
 * The live log in this process (one gateway instance, no REDIS_URL: `make start`). Its epoch is random
 * per start, so after a restart every old position gets `live/resync`. Semantics: liveLog.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  LIVE_LOG_DEFAULTS,
  type FanOutListener,
  type LiveBatch,
  type LiveLog,
  type LiveLogOptions,
  type LoggedPush,
} from './liveLog.js';

interface Ring {
  entries: LoggedPush[];
  /** The seq of the newest push this room lost to the bound (0 = none lost). */
  floor: number;
}

export function createMemoryLiveLog(options: LiveLogOptions & { epoch?: string } = {}): LiveLog {
  const ringSize = Math.max(1, options.ringSize ?? LIVE_LOG_DEFAULTS.ringSize);
  const maxRooms = Math.max(1, options.maxRooms ?? LIVE_LOG_DEFAULTS.maxRooms);
  const seenTtlMs = options.seenTtlMs ?? LIVE_LOG_DEFAULTS.seenTtlMs;
  const epoch = options.epoch ?? randomBytes(6).toString('base64url');
  /** Least recently pushed first. */
  const rings = new Map<string, Ring>();
  /** The newest seq lost with a whole room dropped (a room not in `rings` may have lost up to here). */
  let evictedFloor = 0;
  let seq = 0;
  /** Event id → when it may be forgotten; insertion order = expiry order. */
  const seen = new Map<string, number>();
  let listener: FanOutListener | undefined;

  const ringOf = (room: string): Ring => {
    let ring = rings.get(room);
    if (ring) rings.delete(room);
    else ring = { entries: [], floor: evictedFloor };
    rings.set(room, ring);
    while (rings.size > maxRooms) {
      const [oldest, dropped] = rings.entries().next().value as [string, Ring];
      rings.delete(oldest);
      evictedFloor = Math.max(evictedFloor, dropped.entries.at(-1)?.seq ?? dropped.floor);
    }
    return ring;
  };

  const firstSight = (eventId: string): boolean => {
    const now = Date.now();
    for (const [id, until] of seen) {
      if (until > now) break;
      seen.delete(id);
    }
    if (seen.has(eventId)) return false;
    seen.set(eventId, now + seenTtlMs);
    return true;
  };

  return {
    async append(eventId, pushes) {
      if (pushes.length === 0) return null;
      if (eventId !== null && !firstSight(eventId)) return null;
      const batch: LiveBatch = { epoch, pushes: [] };
      for (const p of pushes) {
        const logged: LoggedPush = { seq: ++seq, room: p.room, event: p.event, payload: p.payload };
        const ring = ringOf(p.room);
        ring.entries.push(logged);
        if (ring.entries.length > ringSize) ring.floor = ring.entries.shift()!.seq;
        batch.pushes.push(logged);
      }
      listener?.batch(batch);
      return batch;
    },

    async read(rooms, after) {
      if (after.epoch !== epoch || after.seq > seq) return { kind: 'resync' };
      const pushes: LoggedPush[] = [];
      for (const room of new Set(rooms)) {
        const ring = rings.get(room);
        if ((ring?.floor ?? evictedFloor) > after.seq) return { kind: 'resync' };
        for (const e of ring?.entries ?? []) if (e.seq > after.seq) pushes.push(e);
      }
      pushes.sort((a, b) => a.seq - b.seq);
      return { kind: 'pushes', epoch, head: seq, pushes };
    },

    async head() {
      return { epoch, seq };
    },

    onFanOut(l) {
      listener = l;
    },

    async close() {
      listener = undefined;
    },
  };
}
