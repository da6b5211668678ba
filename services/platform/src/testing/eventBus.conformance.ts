import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../eventSourcing/types.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  PermanentEventError,
  deadLetterTopicOf,
  type DeadLetters,
  type EventBus,
  type Subscription,
} from '../ports/eventBus.js';
import { waitFor } from './waitFor.js';

export interface EventBusFactory {
  /**
   * A fresh location (file, broker namespace); open() may be called again after close() and sees the same log
   * and offsets; deadLetters() opens the operator's view of its dead letters (`make dlq`).
   */
  location(): Promise<{ open(): Promise<EventBus>; deadLetters(): Promise<DeadLetters> }>;
  /** Upper bound for waits (Kafka rebalances are slow). Default 10 s. */
  timeoutMs?: number;
  /** The maxAttempts the factory's buses were opened with (the dead-letter case counts them). */
  maxAttempts: number;
}

let seq = 0;
/** Builds a StoredEvent for bus tests. */
export function busEvent(
  streamId: string,
  version: number,
  data: unknown = {},
  type = 'Something',
): StoredEvent {
  seq++;
  return {
    id: randomUUID(),
    type,
    data,
    streamId,
    version,
    position: seq,
    occurredAt: new Date().toISOString(),
    correlationId: randomUUID(),
    causationId: null,
    actor: null,
  };
}

/** What a gRPC client throws while its server is down (an outage of identity, say). */
export const unavailable = () =>
  Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
    code: 14,
    details: 'No connection established',
    metadata: {},
  });

/**
 * An outage of `ms` (75 s outlasts the 20 attempts that bound other failures, at the default backoff) met by a
 * group of `bus`, opened with its adapter's default retries: both events are handled once it ends, in order,
 * and nothing is dead-lettered.
 */
export async function expectOutageWaitedOut(bus: EventBus, letters: DeadLetters, ms = 75_000): Promise<void> {
  const topic = `t-${randomUUID()}`;
  const outageEndsAt = Date.now() + ms;
  let attempts = 0;
  const handled: string[] = [];
  const sub = await bus.subscribe({
    topic,
    group: 'kyc',
    handler: async (e) => {
      attempts++;
      if (Date.now() < outageEndsAt) throw unavailable();
      handled.push(e.id);
    },
  });
  try {
    const first = busEvent('user-1', 1);
    const second = busEvent('user-1', 2);
    await bus.publish(topic, [first, second]);
    await waitFor(() => handled.length === 2, {
      timeoutMs: ms + 90_000,
      message: 'handled after the outage',
    });
    expect(handled).toEqual([first.id, second.id]);
    expect(attempts).toBeGreaterThan(DEFAULT_MAX_ATTEMPTS);
    expect(await letters.list(topic)).toEqual([]);
  } finally {
    await sub.stop();
  }
}

/** The one conformance suite of the EventBus port. */
export function describeEventBusConformance(name: string, factory: EventBusFactory): void {
  const timeoutMs = factory.timeoutMs ?? 10_000;
  describe(`EventBus conformance: ${name}`, () => {
    const buses: EventBus[] = [];
    const subs: Subscription[] = [];
    const open = async (loc: { open(): Promise<EventBus> }) => {
      const bus = await loc.open();
      buses.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(subs.splice(0).map((s) => s.stop().catch(() => undefined)));
      await Promise.all(buses.splice(0).map((b) => b.close().catch(() => undefined)));
    });
    const names = () => ({ topic: `t-${randomUUID()}`, group: `g-${randomUUID()}` });
    const collect = async (bus: EventBus, topic: string, group: string, fromBeginning = true) => {
      const got: StoredEvent[] = [];
      const sub = await bus.subscribe({
        topic,
        group,
        fromBeginning,
        handler: async (e) => void got.push(e),
      });
      subs.push(sub);
      return { got, sub };
    };

    it('delivers the whole envelope, in order per stream', async () => {
      const bus = await open(await factory.location());
      const { topic, group } = names();
      const a = `a-${randomUUID()}`;
      const b = `b-${randomUUID()}`;
      const events: StoredEvent[] = [];
      for (let v = 1; v <= 10; v++) events.push(busEvent(a, v, { v, cents: v * 100 }), busEvent(b, v, { v }));
      events[0] = {
        ...events[0],
        causationId: 'cause',
        actor: { userId: 'u', role: 'admin', impersonatorId: 'adm' },
        // the W3C trace context travels with the event (Kafka: headers)
        trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'v=1' },
      };
      await bus.publish(topic, events.slice(0, 7));
      const { got } = await collect(bus, topic, group);
      await bus.publish(topic, events.slice(7));
      await waitFor(() => got.length >= events.length, { timeoutMs, message: 'all events delivered' });
      expect(got.length).toBe(events.length);
      expect(got.find((e) => e.id === events[0].id)).toEqual(events[0]);
      expect(got.find((e) => e.id === events[1].id)).not.toHaveProperty('trace');
      for (const stream of [a, b]) {
        expect(got.filter((e) => e.streamId === stream).map((e) => e.version)).toEqual([
          1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
        ]);
      }
    });

    it('redelivers after a handler error (at least once) without skipping or reordering the stream', async () => {
      const bus = await open(await factory.location());
      const { topic, group } = names();
      const s = `s-${randomUUID()}`;
      const events = [1, 2, 3, 4].map((v) => busEvent(s, v));
      const attempts = new Map<string, number>();
      const applied: number[] = [];
      const sub = await bus.subscribe({
        topic,
        group,
        handler: async (e) => {
          const n = (attempts.get(e.id) ?? 0) + 1;
          attempts.set(e.id, n);
          if (e.version === 2 && n <= 2) throw new Error(`transient failure ${n}`);
          applied.push(e.version);
        },
      });
      subs.push(sub);
      await bus.publish(topic, events);
      await waitFor(() => applied.length >= 4, { timeoutMs, message: 'all applied' });
      expect(applied).toEqual([1, 2, 3, 4]);
      expect(attempts.get(events[1].id)).toBe(3);
    });

    it('gives every group everything', async () => {
      const bus = await open(await factory.location());
      const { topic } = names();
      const events = Array.from({ length: 5 }, (_, i) => busEvent(`s-${i % 2}`, i + 1));
      await bus.publish(topic, events);
      const one = await collect(bus, topic, `g1-${randomUUID()}`);
      const two = await collect(bus, topic, `g2-${randomUUID()}`);
      await waitFor(() => one.got.length >= 5 && two.got.length >= 5, {
        timeoutMs,
        message: 'both groups got all',
      });
      // every event in each group (at least once: a consumer restarted before its commit gets it again)
      const ids = (got: StoredEvent[]) => [...new Set(got.map((e) => e.id))].sort();
      expect(ids(one.got)).toEqual(events.map((e) => e.id).sort());
      expect(ids(two.got)).toEqual(events.map((e) => e.id).sort());
    });

    it('resumes a restarted consumer from its committed offset, also after the bus is re-opened', async () => {
      const loc = await factory.location();
      const bus1 = await open(loc);
      const { topic, group } = names();
      const s = `s-${randomUUID()}`;
      const first = [1, 2, 3].map((v) => busEvent(s, v));
      const later = [4, 5].map((v) => busEvent(s, v));
      const c1 = await collect(bus1, topic, group);
      await bus1.publish(topic, first);
      await waitFor(() => c1.got.length >= 3, { timeoutMs, message: 'first three consumed' });
      await c1.sub.stop();
      await bus1.publish(topic, later);
      await bus1.close();

      const bus2 = await open(loc);
      const c2 = await collect(bus2, topic, group);
      await waitFor(() => c2.got.length >= 2, { timeoutMs, message: 'the two later events' });
      const ids = c2.got.map((e) => e.id);
      expect(ids).toEqual(later.map((e) => e.id));
      expect(ids.some((id) => first.some((f) => f.id === id))).toBe(false);
    });

    it('publish is durable: a re-opened bus delivers what was published before close', async () => {
      const loc = await factory.location();
      const bus1 = await open(loc);
      const { topic, group } = names();
      const events = [busEvent('d', 1, { keep: 'me' })];
      await bus1.publish(topic, events);
      await bus1.close();
      const bus2 = await open(loc);
      const c = await collect(bus2, topic, group);
      await waitFor(() => c.got.length >= 1, { timeoutMs, message: 'delivered after re-open' });
      expect(c.got[0]).toEqual(events[0]);
    });

    it('fromBeginning: false starts a new group at the end', async () => {
      const bus = await open(await factory.location());
      const { topic, group } = names();
      await bus.publish(topic, [busEvent('x', 1)]);
      const c = await collect(bus, topic, group, false);
      const fresh = busEvent('x', 2);
      await bus.publish(topic, [fresh]);
      await waitFor(() => c.got.length >= 1, { timeoutMs, message: 'the new event' });
      expect(c.got.map((e) => e.id)).toEqual([fresh.id]);
    });

    it('stop() waits for the in-flight handler, and the handled event is not delivered again', async () => {
      const loc = await factory.location();
      const bus = await open(loc);
      const { topic, group } = names();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let started = 0;
      let finished = 0;
      const sub = await bus.subscribe({
        topic,
        group,
        handler: async () => {
          started++;
          await gate;
          finished++;
        },
      });
      const e = busEvent('y', 1);
      await bus.publish(topic, [e]);
      await waitFor(() => started === 1, { timeoutMs, message: 'handler started' });
      let stopped = false;
      const stopping = sub.stop().then(() => (stopped = true));
      await new Promise((r) => setImmediate(r));
      expect(stopped).toBe(false);
      release();
      await stopping;
      expect(finished).toBe(1);

      const next = busEvent('y', 2);
      await bus.publish(topic, [next]);
      const c = await collect(bus, topic, group);
      await waitFor(() => c.got.length >= 1, { timeoutMs, message: 'next event' });
      expect(c.got.map((x) => x.id)).toEqual([next.id]);
    });

    /**
     * Two events on a fresh topic, published to a subscription whose handler throws `failure(attempt)` for
     * the first (none: it is handled) and records the ids it handled; `attempts()` counts the first's.
     */
    const failingFirst = async (failure: (attempt: number) => Error | undefined) => {
      const location = await factory.location();
      const bus = await open(location);
      const { topic, group } = names();
      const first = busEvent('f', 1, { first: true });
      const second = busEvent('f', 2, { first: false });
      const handled: string[] = [];
      let attempts = 0;
      const sub = await bus.subscribe({
        topic,
        group,
        handler: async (e) => {
          const error = e.id === first.id ? failure(++attempts) : undefined;
          if (error) throw error;
          handled.push(e.id);
        },
      });
      subs.push(sub);
      await bus.publish(topic, [first, second]);
      return { location, bus, topic, group, first, second, handled, attempts: () => attempts };
    };
    /** `check` on the operator's view of the dead letters at `location`, closed after. */
    const withDeadLetters = async (
      location: { deadLetters(): Promise<DeadLetters> },
      check: (letters: DeadLetters) => Promise<void>,
    ) => {
      const letters = await location.deadLetters();
      try {
        await check(letters);
      } finally {
        await letters.close();
      }
    };

    it('a transient failure (an outage) is retried for as long as it lasts: nothing is dead-lettered and the next event waits', async () => {
      const lasts = 3 * factory.maxAttempts + 2; // failed attempts: well past the bound of other failures
      const { location, topic, first, second, handled, attempts } = await failingFirst((attempt) => {
        if (attempt > lasts) return undefined;
        // as a store's driver and a gRPC client report a peer that is down
        return attempt % 2
          ? Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:50051'), { code: 'ECONNREFUSED' })
          : unavailable();
      });
      await waitFor(() => handled.length >= 2, { timeoutMs, message: 'both events once the outage ended' });
      expect(handled).toEqual([first.id, second.id]);
      expect(attempts()).toBe(lasts + 1);
      await withDeadLetters(location, async (letters) => {
        expect(await letters.list(topic)).toEqual([]);
      });
    });

    it('a permanent failure is dead-lettered at once with its reason; a redrive puts it back and it is handled', async () => {
      let refuse = true;
      const { location, topic, group, first, second, handled, attempts } = await failingFirst(() =>
        refuse ? new PermanentEventError('this event can never be handled') : undefined,
      );
      await waitFor(() => handled.length >= 1, { timeoutMs, message: 'the event after the refused one' });
      expect(attempts()).toBe(1);
      await withDeadLetters(location, async (letters) => {
        const listed = await letters.list(topic);
        expect(listed).toEqual([
          expect.objectContaining({
            topic,
            group,
            reason: 'permanent',
            error: 'this event can never be handled',
            event: expect.objectContaining({ id: first.id, data: { first: true } }),
          }),
        ]);
        expect(listed[0]!.redrivenAt).toBeUndefined();
        expect((await letters.list()).some((l) => l.event.id === first.id)).toBe(true);
        refuse = false; // the cause was fixed: put it back
        expect(await letters.redrive(topic)).toEqual([first.id]);
        await waitFor(() => handled.includes(first.id), { timeoutMs, message: 'the redriven event' });
        expect(handled).toEqual([second.id, first.id]);
        await waitFor(async () => (await letters.list(topic))[0]?.redrivenAt !== undefined, {
          timeoutMs,
          message: 'the dead letter marked redriven',
        });
        expect(await letters.redrive(topic)).toEqual([]); // nothing left that was not redriven
      });
    });

    it('a handler that keeps failing sends the event to <topic>.dlq after maxAttempts, and the next event is delivered', async () => {
      const { location, bus, topic, first, second, handled, attempts } = await failingFirst(
        () => new Error('cannot handle this one'),
      );
      await waitFor(() => handled.length >= 1, { timeoutMs, message: 'the event after the poison one' });
      expect(handled).toEqual([second.id]);
      expect(attempts()).toBe(factory.maxAttempts);
      const dead = await collect(bus, deadLetterTopicOf(topic), `dlq-reader-${randomUUID()}`);
      await waitFor(() => dead.got.length >= 1, { timeoutMs, message: 'the dead letter' });
      expect(dead.got.map((e) => e.id)).toEqual([first.id]);
      expect(dead.got[0].data).toEqual({ first: true });
      await withDeadLetters(location, async (letters) => {
        expect((await letters.list(topic)).map((l) => [l.event.id, l.reason, l.error])).toEqual([
          [first.id, `handler failed ${factory.maxAttempts} times`, 'cannot handle this one'],
        ]);
      });
    });
  });
}
