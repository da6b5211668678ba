/**
 * The one conformance suite of the LiveLog port (liveLog.ts), run against both adapters by
 * liveLog.int.spec.ts. `create(options)` opens a log on a FRESH namespace; `reopen()` (shared logs only)
 * opens a second handle on the namespace of the last created one — another gateway instance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { LiveBatch, LiveLog, LiveLogOptions, RoomPush } from './liveLog.js';

export interface LiveLogFactory {
  create(options?: LiveLogOptions): Promise<LiveLog>;
  /** A second instance on the last created namespace; absent for logs that live in one process. */
  reopen?(options?: LiveLogOptions): Promise<LiveLog>;
}

const push = (room: string, n: number | string): RoomPush => ({
  room,
  event: 'status/changed',
  payload: { kind: 'deposit', id: String(n), status: 'Pending' },
});

export function describeLiveLogConformance(name: string, factory: LiveLogFactory): void {
  describe(`LiveLog conformance: ${name}`, () => {
    const opened: LiveLog[] = [];
    const track = async (log: Promise<LiveLog>) => {
      const l = await log;
      opened.push(l);
      return l;
    };
    const fresh = (options?: LiveLogOptions) => track(factory.create(options));
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((l) => l.close()));
    });

    /** Records the fan-out of `log`. */
    const recordFanOut = (log: LiveLog) => {
      const batches: LiveBatch[] = [];
      log.onFanOut({ batch: (b) => batches.push(b), lost: () => undefined });
      return batches;
    };

    it('gives consecutive seqs in one epoch and fans every batch out in order', async () => {
      const log = await fresh();
      const fanned = recordFanOut(log);
      const start = await log.head();
      expect(start.seq).toBe(0);
      const a = await log.append(randomUUID(), [push('user:a', 1), push('admins', 2)]);
      const b = await log.append(randomUUID(), [push('user:a', 3)]);
      expect(a?.pushes.map((p) => p.seq)).toEqual([1, 2]);
      expect(b?.pushes.map((p) => p.seq)).toEqual([3]);
      expect(a?.epoch).toBe(start.epoch);
      expect(a?.pushes[0]).toMatchObject({ room: 'user:a', event: 'status/changed', payload: { id: '1' } });
      expect(await log.head()).toEqual({ epoch: start.epoch, seq: 3 });
      await waitFor(() => fanned.length === 2, 'fan-out of both batches');
      expect(fanned).toEqual([a, b]);
    });

    it('reads the pushes of the given rooms after a position, merged by seq', async () => {
      const log = await fresh();
      const { epoch } = await log.head();
      await log.append(null, [push('user:a', 1), push('user:b', 2), push('admins', 3)]);
      await log.append(null, [push('admins', 4), push('user:a', 5)]);
      const all = await log.read(['user:a', 'admins'], { epoch, seq: 0 });
      expect(all).toMatchObject({ kind: 'pushes', epoch, head: 5 });
      expect(all.kind === 'pushes' && all.pushes.map((p) => [p.seq, p.room, p.payload.id])).toEqual([
        [1, 'user:a', '1'],
        [3, 'admins', '3'],
        [4, 'admins', '4'],
        [5, 'user:a', '5'],
      ]);
      const after3 = await log.read(['admins', 'user:a', 'admins'], { epoch, seq: 3 });
      expect(after3.kind === 'pushes' && after3.pushes.map((p) => p.seq)).toEqual([4, 5]);
      const none = await log.read(['user:a'], { epoch, seq: 5 });
      expect(none).toEqual({ kind: 'pushes', epoch, head: 5, pushes: [] });
      // a room that never had a push has nothing to replay
      expect(await log.read(['user:nobody'], { epoch, seq: 1 })).toMatchObject({
        kind: 'pushes',
        pushes: [],
      });
    });

    it('logs an event once: its redelivery appends and fans out nothing', async () => {
      const log = await fresh();
      const fanned = recordFanOut(log);
      const { epoch } = await log.head();
      const id = randomUUID();
      expect(await log.append(id, [push('user:a', 1)])).not.toBeNull();
      expect(await log.append(id, [push('user:a', 1)])).toBeNull();
      expect(await log.append(randomUUID(), [push('user:a', 2)])).not.toBeNull();
      expect(await log.append(randomUUID(), [])).toBeNull();
      const r = await log.read(['user:a'], { epoch, seq: 0 });
      expect(r.kind === 'pushes' && r.pushes.map((p) => p.payload.id)).toEqual(['1', '2']);
      await waitFor(() => fanned.length === 2, 'fan-out');
      expect(fanned.flatMap((b) => b.pushes.map((p) => p.seq))).toEqual([1, 2]);
    });

    it('another epoch, a position from the future, or pushes already trimmed → resync', async () => {
      const log = await fresh({ ringSize: 3 });
      const { epoch } = await log.head();
      for (let i = 1; i <= 5; i++) await log.append(null, [push('user:a', i)]);
      await log.append(null, [push('user:b', 6)]);
      expect(await log.read(['user:a'], { epoch: 'someOtherEpoch', seq: 1 })).toEqual({ kind: 'resync' });
      expect(await log.read(['user:a'], { epoch, seq: 7 })).toEqual({ kind: 'resync' });
      // user:a keeps 3, 4, 5: after 1 it lost 2
      expect(await log.read(['user:a'], { epoch, seq: 1 })).toEqual({ kind: 'resync' });
      const fromFloor = await log.read(['user:a', 'user:b'], { epoch, seq: 2 });
      expect(fromFloor.kind === 'pushes' && fromFloor.pushes.map((p) => p.seq)).toEqual([3, 4, 5, 6]);
    });

    it('past maxRooms the room pushed to least recently is dropped; older positions in it → resync', async () => {
      const log = await fresh({ maxRooms: 2 });
      const { epoch } = await log.head();
      await log.append(null, [push('user:a', 1)]);
      await log.append(null, [push('user:b', 2)]);
      await log.append(null, [push('user:a', 3)]);
      await log.append(null, [push('user:c', 4)]); // drops user:b (newest push 2)
      expect(await log.read(['user:b'], { epoch, seq: 1 })).toEqual({ kind: 'resync' });
      // a room without a stream cannot tell whether it lost something up to the dropped floor
      expect(await log.read(['user:new'], { epoch, seq: 1 })).toEqual({ kind: 'resync' });
      expect(await log.read(['user:b', 'user:new'], { epoch, seq: 2 })).toMatchObject({
        kind: 'pushes',
        pushes: [],
      });
      const kept = await log.read(['user:a', 'user:c'], { epoch, seq: 1 });
      expect(kept.kind === 'pushes' && kept.pushes.map((p) => p.seq)).toEqual([3, 4]);
      // a dropped room pushed to again starts at the dropped floor
      await log.append(null, [push('user:b', 5)]); // drops user:a (newest 3)
      expect(await log.read(['user:b'], { epoch, seq: 1 })).toEqual({ kind: 'resync' });
      const back = await log.read(['user:b'], { epoch, seq: 3 });
      expect(back.kind === 'pushes' && back.pushes.map((p) => p.seq)).toEqual([5]);
    });

    if (factory.reopen) {
      const reopen = factory.reopen.bind(factory);
      it('instances on one namespace share positions, the pushes and the fan-out', async () => {
        const a = await fresh();
        const b = await track(reopen());
        const fannedA = recordFanOut(a);
        const fannedB = recordFanOut(b);
        const id = randomUUID();
        const first = await a.append(id, [push('user:a', 1)]);
        expect(await b.append(id, [push('user:a', 1)])).toBeNull();
        const second = await b.append(randomUUID(), [push('admins', 2)]);
        expect(second?.epoch).toBe(first?.epoch);
        expect(second?.pushes[0].seq).toBe(2);
        const fromB = await b.read(['user:a', 'admins'], { epoch: first!.epoch, seq: 0 });
        expect(fromB.kind === 'pushes' && fromB.pushes.map((p) => p.seq)).toEqual([1, 2]);
        await waitFor(() => fannedA.length === 2 && fannedB.length === 2, 'fan-out on both');
        expect(fannedA).toEqual(fannedB);
        expect(await a.head()).toEqual(await b.head());
      });
    }
  });
}
