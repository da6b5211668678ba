import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventBus } from '../ports/eventBus.js';
import { createInProcEventBus, inProcDeadLetters } from './eventBus.inproc.js';
import {
  busEvent,
  describeEventBusConformance,
  expectOutageWaitedOut,
} from '../testing/eventBus.conformance.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';

const dir = tempDir('meridian-bus-');
afterAll(() => dir.remove());

describeEventBusConformance('in-process bus (SQLite file)', {
  location: async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    return {
      open: async () => createInProcEventBus({ path, retryBaseMs: 5, retryMaxMs: 50, maxAttempts: 3 }),
      deadLetters: async () => inProcDeadLetters(path),
    };
  },
  maxAttempts: 3,
});

/** Group g on topic t through `bus`, collecting event ids; a second subscription through `other` is refused. */
async function subscribeOnce(bus: EventBus, other: EventBus) {
  const got: string[] = [];
  const sub = await bus.subscribe({ topic: 't', group: 'g', handler: async (e) => void got.push(e.id) });
  await expect(other.subscribe({ topic: 't', group: 'g', handler: async () => undefined })).rejects.toThrow(
    /already/,
  );
  return { got, sub };
}

describe('in-process bus specifics', () => {
  it(
    'an outage longer than the bound on other failures (75 s, default backoff) is waited out: nothing dead-lettered',
    { timeout: 180_000 },
    async () => {
      const path = join(dir.path, `${randomUUID()}.sqlite`);
      const bus = createInProcEventBus({ path });
      const letters = inProcDeadLetters(path);
      try {
        await expectOutageWaitedOut(bus, letters);
      } finally {
        await letters.close();
        await bus.close();
      }
    },
  );

  it('works on :memory: and refuses a second active subscription of the same group and topic', async () => {
    const bus = createInProcEventBus({ path: ':memory:' });
    const { got, sub } = await subscribeOnce(bus, bus);
    const e = busEvent('s', 1);
    await bus.publish('t', [e]);
    await waitFor(() => got.length === 1);
    expect(bus.committed('g', 't')).toBe(1);
    await sub.stop();
    // after stop the group may subscribe again
    const again = await bus.subscribe({ topic: 't', group: 'g', handler: async () => undefined });
    await again.stop();
    await bus.close();
  });

  it('reports handler failures to onError with the attempt number', async () => {
    const errors: number[] = [];
    const bus = createInProcEventBus({
      path: ':memory:',
      retryBaseMs: 1,
      retryMaxMs: 5,
      onError: (_e, ctx) => errors.push(ctx.attempt),
    });
    let calls = 0;
    const sub = await bus.subscribe({
      topic: 't',
      group: 'g',
      handler: async () => {
        if (++calls < 3) throw new Error('nope');
      },
    });
    await bus.publish('t', [busEvent('s', 1)]);
    await waitFor(() => bus.committed('g', 't') === 1);
    expect(errors).toEqual([1, 2]);
    await sub.stop();
    await bus.close();
  });

  it('wakes subscribers of another bus instance on the same file at once (no polling needed)', async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    const a = createInProcEventBus({ path, pollIntervalMs: 60_000 });
    const b = createInProcEventBus({ path, pollIntervalMs: 60_000 });
    const { got, sub } = await subscribeOnce(b, a);
    const e = busEvent('s', 1);
    await a.publish('t', [e]);
    await waitFor(() => got.length === 1, {
      timeoutMs: 5_000,
      message: 'delivered through the other instance',
    });
    expect(got).toEqual([e.id]);
    await sub.stop();
    await Promise.all([a.close(), b.close()]);
  });

  it("delivers in log order what two instances on one file publish in turns (its own kept, the other's read)", async () => {
    const path = join(dir.path, `${randomUUID()}.sqlite`);
    const a = createInProcEventBus({ path, pollIntervalMs: 60_000 });
    const b = createInProcEventBus({ path, pollIntervalMs: 60_000 });
    const got: string[] = [];
    const sub = await a.subscribe({
      topic: 't',
      group: 'g',
      handler: async (e) => void got.push(e.id),
      handleBatch: async (events) => void got.push(...events.map((e) => e.id)),
    });
    const published: string[] = [];
    for (let i = 1; i <= 30; i++) {
      const e = busEvent('s', i);
      published.push(e.id);
      await (i % 3 === 0 ? b : a).publish('t', [e]);
    }
    await waitFor(() => a.committed('g', 't') === 30, { timeoutMs: 5_000, message: 'all 30 handled' });
    expect(got).toEqual(published);
    await sub.stop();
    await Promise.all([a.close(), b.close()]);
  });
});
