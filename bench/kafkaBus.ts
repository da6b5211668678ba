/**
 * Events through the Kafka bus (services/platform/src/adapters/eventBus.kafka.ts, on a real broker) against
 * the in-process bus (eventBus.inproc.ts on a temp SQLite file), measured the same way in the same run:
 *
 *   - throughput: publish → handled with ONE subscription (one group on a fresh topic): small events
 *     (about 200 bytes of envelope, 100 streams so every partition gets some) published in batches of 100,
 *     each publish awaited (as the outbox relay does), until `maxEvents` or `seconds`; the subscription
 *     handles them until all are handled or `seconds` have passed since the first publish, whichever is
 *     first. events/s = events handled ÷ time from the first publish to the last event handled (a bus that
 *     cannot keep up is measured at its sustained handling rate, not waited for).
 *   - latency: one event at a time, publish → handled, p50/p99 (bounded by `seconds` and `maxLatency`).
 *
 * Both are split into `rounds` slices run interleaved (in-process, Kafka, Kafka, in-process, …) so a load
 * that drifts during the run weighs on both buses alike. Every slice has a fresh topic and a fresh
 * subscription, live before the clock starts (a warm-up event went through it: a Kafka group join is not
 * part of the figures), stopped after it (a backlog left behind does not weigh on the next slice).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createKafkaEventBus } from '@meridian/platform/adapters/eventBus.kafka';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { EventBus, Subscription } from '@meridian/platform/ports/eventBus';
import { latencyFigure, nowMs, round, type LatencyFigure } from './load.js';

export interface BusThroughput {
  name: string;
  /** Events handled by the subscription within the time bound. */
  events: number;
  /** Events published (more than `events` when the subscription could not keep up within the bound). */
  published: number;
  /** From the first publish to the last event handled. */
  seconds: number;
  /** events ÷ seconds: publish → handled. */
  perSecond: number;
  /** Events published ÷ the time spent in publish (the producer side alone). */
  publishPerSecond: number;
}

export type KafkaBusResult =
  | { skipped: string }
  | {
      /** [in-process, Kafka] */
      throughput: [BusThroughput, BusThroughput];
      /** [in-process, Kafka] */
      latency: [LatencyFigure, LatencyFigure];
      batchSize: number;
      ratios: {
        /** Kafka events/s ÷ in-process events/s (publish → handled) */
        throughputVsInproc: number;
        /** Kafka p50 ÷ in-process p50 (one event at a time) */
        p50VsInproc: number;
      };
    };

const BATCH = 100;
const STREAMS = 100;
const READY_TIMEOUT_MS = 60_000;

/** One bus; every slice runs on a fresh topic with a fresh subscription (group `bench`). */
interface Rig {
  name: string;
  bus: EventBus;
  close(): Promise<void>;
}

/** A live subscription on a fresh topic, counting what it handles. */
interface Lane {
  topic: string;
  sub: Subscription;
  handled: number;
  /** Time (ms) the last event was handled. */
  lastHandledAt: number;
  waiter?: { target: number; resolve(): void };
}

let seq = 0;
function event(tag: string): StoredEvent {
  seq += 1;
  return {
    id: randomUUID(),
    type: 'BenchPinged',
    data: { n: seq, note: 'bench' },
    streamId: `bench-${tag}-${seq % STREAMS}`,
    version: 1,
    position: seq,
    occurredAt: new Date().toISOString(),
    correlationId: tag,
    causationId: null,
    actor: null,
  };
}

/** Resolves true when `lane` has handled `target` events in all, false at `deadline` (ms, nowMs clock). */
function handledReaches(lane: Lane, target: number, deadline: number): Promise<boolean> {
  if (lane.handled >= target) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => {
        lane.waiter = undefined;
        resolve(false);
      },
      Math.max(0, deadline - nowMs()),
    );
    lane.waiter = {
      target,
      resolve: () => {
        clearTimeout(timer);
        resolve(true);
      },
    };
  });
}

/** A fresh topic and subscription on `rig`, live (a warm-up event has been handled). */
async function openLane(rig: Rig, tag: string): Promise<Lane> {
  const topic = `bench.${tag}.${randomUUID().slice(0, 8)}`;
  const lane = { topic, handled: 0, lastHandledAt: 0 } as Lane;
  lane.sub = await rig.bus.subscribe({
    topic,
    group: 'bench',
    fromBeginning: true,
    handler: async () => {
      lane.handled += 1;
      lane.lastHandledAt = nowMs();
      if (lane.waiter && lane.handled >= lane.waiter.target) {
        const w = lane.waiter;
        lane.waiter = undefined;
        w.resolve();
      }
    },
  });
  const ready = handledReaches(lane, 1, nowMs() + READY_TIMEOUT_MS);
  await rig.bus.publish(topic, [event(tag)]);
  if (!(await ready)) {
    await lane.sub.stop();
    throw new Error(`${rig.name}: the warm-up event was not handled within ${READY_TIMEOUT_MS / 1000} s`);
  }
  return lane;
}

async function withLane<T>(rig: Rig, tag: string, run: (lane: Lane) => Promise<T>): Promise<T> {
  const lane = await openLane(rig, tag);
  try {
    return await run(lane);
  } finally {
    await lane.sub.stop();
  }
}

/** One throughput slice: publish batches until `maxEvents` or `seconds`; handled until all or `seconds`. */
async function throughputSlice(rig: Rig, tag: string, maxEvents: number, seconds: number) {
  return withLane(rig, tag, async (lane) => {
    const before = lane.handled;
    const t0 = nowMs();
    const deadline = t0 + seconds * 1000;
    let published = 0;
    let publishMs = 0;
    while (published < maxEvents && nowMs() < deadline) {
      const batch = Array.from({ length: Math.min(BATCH, maxEvents - published) }, () => event(tag));
      const p0 = nowMs();
      await rig.bus.publish(lane.topic, batch);
      publishMs += nowMs() - p0;
      published += batch.length;
    }
    await handledReaches(lane, before + published, deadline);
    const events = lane.handled - before;
    return { events, ms: events > 0 ? lane.lastHandledAt - t0 : 0, published, publishMs };
  });
}

/** One latency slice: one event at a time, publish → handled. */
async function latencySlice(rig: Rig, tag: string, maxCount: number, seconds: number): Promise<number[]> {
  return withLane(rig, tag, async (lane) => {
    const ms: number[] = [];
    const end = nowMs() + seconds * 1000;
    for (let i = 0; i < maxCount && nowMs() < end; i++) {
      const handled = handledReaches(lane, lane.handled + 1, nowMs() + 30_000);
      const t0 = nowMs();
      await rig.bus.publish(lane.topic, [event(tag)]);
      if (!(await handled))
        throw new Error(`${rig.name}: an event was not handled within 30 s of its publish`);
      ms.push(lane.lastHandledAt - t0);
    }
    return ms;
  });
}

export async function benchKafkaBus(o: {
  brokers: string[];
  seconds: number;
  maxEvents: number;
  maxLatency: number;
  rounds: number;
}): Promise<KafkaBusResult> {
  const rounds = Math.max(1, Math.floor(o.rounds));
  const tag = randomUUID().slice(0, 8);
  const dir = mkdtempSync(join(tmpdir(), 'meridian-bench-bus-'));
  const rigs: Rig[] = [];
  try {
    const inproc = createInProcEventBus({ path: join(dir, 'bus.sqlite') });
    rigs.push({ name: 'in-process bus (SQLite file)', bus: inproc, close: () => inproc.close() });
    const kafka = await createKafkaEventBus({
      brokers: o.brokers,
      clientId: `bench-${tag}`,
      numPartitions: 3,
      replicationFactor: 1,
    });
    rigs.push({ name: 'Kafka bus (kafkajs, 3 partitions)', bus: kafka, close: () => kafka.close() });

    const through = rigs.map(() => ({ events: 0, ms: 0, published: 0, publishMs: 0 }));
    const lat = rigs.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++) {
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const s = await throughputSlice(rigs[i], tag, Math.ceil(o.maxEvents / rounds), o.seconds / rounds);
        for (const k of ['events', 'ms', 'published', 'publishMs'] as const) through[i][k] += s[k];
      }
    }
    for (let r = 0; r < rounds; r++) {
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
        lat[i].push(
          ...(await latencySlice(rigs[i], tag, Math.ceil(o.maxLatency / rounds), o.seconds / rounds)),
        );
      }
    }
    const throughput = rigs.map((rig, i): BusThroughput => ({
      name: rig.name,
      events: through[i].events,
      published: through[i].published,
      seconds: round(through[i].ms / 1000),
      perSecond: through[i].ms > 0 ? Math.round((through[i].events * 1000) / through[i].ms) : 0,
      publishPerSecond:
        through[i].publishMs > 0 ? Math.round((through[i].published * 1000) / through[i].publishMs) : 0,
    })) as [BusThroughput, BusThroughput];
    const latency = rigs.map((rig, i) => latencyFigure(`${rig.name}: publish → handled`, lat[i])) as [
      LatencyFigure,
      LatencyFigure,
    ];
    return {
      throughput,
      latency,
      batchSize: BATCH,
      ratios: {
        throughputVsInproc:
          throughput[0].perSecond > 0 ? round(throughput[1].perSecond / throughput[0].perSecond, 3) : NaN,
        p50VsInproc: latency[0].p50 > 0 ? round(latency[1].p50 / latency[0].p50, 1) : NaN,
      },
    };
  } finally {
    for (const rig of rigs) await rig.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
