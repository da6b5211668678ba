/**
 * What only a real broker shows: several topics in one consumer group, a rebalance, a consumer killed
 * between its effect and its offset commit, poison and undecodable messages, consumers without codecs, and
 * the broker itself going away. Runs on the official Kafka jars (our machines) or KAFKA_BROKERS; skipped with
 * the reason where there is neither.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigResourceTypes, Kafka, logLevel, PartitionAssigners } from 'kafkajs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DepositConfirmed } from '@meridian/proto/meridian/ledger/v1/events';
import type { StoredEvent } from '../eventSourcing/types.js';
import { deadLetterTopicOf, type EventBus, type Subscription } from '../ports/eventBus.js';
import { subscribeIdempotent } from '../app/consumer.js';
import { createLogger } from '../logger.js';
import { busEvent } from '../testing/eventBus.conformance.js';
import { startTestKafka } from '../testing/kafka.js';
import { captureLog } from '../testing/logCapture.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import {
  createKafkaEventBus,
  kafkaGroupId,
  PAYLOAD_ENCODING_HEADER,
  type KafkaEventBusOptions,
} from './eventBus.kafka.js';
import { encodeEnvelope } from './eventEnvelope.js';
import { createSqliteServiceStore } from './serviceStore.sqlite.js';

const kafka = await startTestKafka();
if (!kafka.available) console.log(`[skip] Kafka bus fault cases: no Kafka broker (${kafka.reason})`);
const dir = tempDir('meridian-kafka-faults-');
afterAll(async () => {
  await kafka.stop();
  dir.remove();
});

const TIMEOUT = 60_000;

/** A connected kafkajs admin client (disconnect it when done). */
async function connectedAdmin(brokers: string[], clientId: string) {
  const admin = new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  return admin;
}
const here = fileURLToPath(new URL('.', import.meta.url));
const tsx = join(here, '../../../../node_modules/.bin/tsx');

describe.skipIf(!kafka.available)(`Kafka bus under faults (${kafka.reason})`, () => {
  const buses: EventBus[] = [];
  const subs: Subscription[] = [];
  const open = async (extra: Partial<KafkaEventBusOptions> = {}) => {
    const bus = await createKafkaEventBus({
      brokers: kafka.brokers,
      clientId: 'faults',
      retryBaseMs: 10,
      retryMaxMs: 100,
      maxAttempts: 3,
      sessionTimeoutMs: 6_000,
      ...extra,
    });
    buses.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.all(subs.splice(0).map((s) => s.stop().catch(() => undefined)));
    await Promise.all(buses.splice(0).map((b) => b.close().catch(() => undefined)));
  });
  const uniq = (name: string) => `${name}-${randomUUID()}`;

  it('one process consumes several topics in ONE group (as notification does): every event of every topic arrives', async () => {
    const bus = await open();
    const group = uniq('notification');
    const topics = [uniq('identity'), uniq('kyc'), uniq('ledger'), uniq('investment'), uniq('withdrawal')];
    const got = new Map<string, string[]>();
    for (const topic of topics) {
      got.set(topic, []);
      subs.push(await bus.subscribe({ topic, group, handler: async (e) => void got.get(topic)!.push(e.id) }));
    }
    const sent = new Map<string, string[]>();
    for (const topic of topics) {
      const events = Array.from({ length: 6 }, (_, i) => busEvent(`s-${i % 3}`, Math.floor(i / 3) + 1));
      sent.set(
        topic,
        events.map((e) => e.id),
      );
      await bus.publish(topic, events);
    }
    await waitFor(() => topics.every((t) => got.get(t)!.length >= 6), {
      timeoutMs: TIMEOUT,
      message: 'every topic delivered',
    });
    for (const topic of topics) expect([...got.get(topic)!].sort()).toEqual([...sent.get(topic)!].sort());
  });

  it('a second consumer joining the group (rebalance) loses nothing and applies nothing twice', async () => {
    const store = createSqliteServiceStore(':memory:');
    const topic = uniq('rebalance');
    const group = uniq('svc');
    const applied: StoredEvent[] = [];
    const consume = async (bus: EventBus) =>
      subs.push(
        await subscribeIdempotent({
          bus,
          store,
          topic,
          group,
          handle: async (e, tx) => {
            applied.push(e);
            await tx.put('applied', e.id, { version: e.version });
          },
        }),
      );
    const producer = await open();
    await consume(await open());
    const streams = ['a', 'b', 'c', 'd', 'e', 'f'];
    const events: StoredEvent[] = [];
    for (let v = 1; v <= 40; v++) for (const s of streams) events.push(busEvent(`${topic}-${s}`, v));
    for (let i = 0; i < events.length; i += 24) {
      await producer.publish(topic, events.slice(i, i + 24));
      if (i === 48) await consume(await open()); // joins while events are flowing
    }
    await waitFor(() => applied.length >= events.length, {
      timeoutMs: TIMEOUT,
      message: 'every event applied',
    });
    expect(applied.length).toBe(events.length);
    expect(new Set(applied.map((e) => e.id)).size).toBe(events.length);
    expect(await store.count('applied')).toBe(events.length);
    for (const s of streams) {
      const versions = applied.filter((e) => e.streamId === `${topic}-${s}`).map((e) => e.version);
      expect(versions).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    }
    await store.close();
  });

  it('a consumer kafkajs gives up on (a crash it does not restart from) is started again by the bus and then consumes', async () => {
    // a real non-retriable crash: the group is held by a member whose assignment protocol ours does not
    // speak, so the broker refuses our join with INCONSISTENT_GROUP_PROTOCOL and kafkajs stops the consumer
    const topic = uniq('given-up');
    const group = uniq('svc');
    const { lines, destination } = captureLog();
    const bus = await open({
      logger: createLogger('faults', { level: 'warn', destination }),
      restartBackoffMs: { base: 200, max: 1_000 },
    });
    await bus.publish(topic, [busEvent('warm', 1)]); // the topic exists before the foreign member joins
    const foreign = new Kafka({
      clientId: 'foreign',
      brokers: kafka.brokers,
      logLevel: logLevel.NOTHING,
    }).consumer({
      groupId: kafkaGroupId(group, topic),
      partitionAssigners: [
        (config) => ({ ...PartitionAssigners.roundRobin(config), name: 'ForeignAssigner' }),
      ],
    });
    await foreign.connect();
    await foreign.subscribe({ topics: [topic], fromBeginning: true });
    const joined = new Promise<void>((res) => foreign.on(foreign.events.GROUP_JOIN, () => res()));
    await foreign.run({ eachMessage: async () => undefined });
    await joined;

    const got: string[] = [];
    subs.push(await bus.subscribe({ topic, group, handler: async (e) => void got.push(e.id) }));
    const crashes = () => lines.filter((l) => l.msg === 'kafka consumer crashed' && l.restart === false);
    await waitFor(() => crashes().length > 0, {
      timeoutMs: TIMEOUT,
      message: 'kafkajs gave up on the consumer',
    });
    expect(got).toEqual([]); // the group is still the foreign member's

    await foreign.disconnect(); // the group is free again
    const after = busEvent('after', 1);
    await bus.publish(topic, [after]);
    await waitFor(() => got.includes(after.id), { timeoutMs: TIMEOUT, message: 'the consumer runs again' });
    expect(lines.some((l) => l.msg === 'kafka consumer starting again')).toBe(true);
  });

  it('a consumer killed (SIGKILL) after its effect but before its commit: what was not committed is redelivered and applied once; the restart resumes from the committed offset', async () => {
    const topic = uniq('crash');
    const group = uniq('crashers');
    const file = join(dir.path, `${randomUUID()}.sqlite`);
    const producer = await open();
    const events = Array.from({ length: 30 }, (_, i) => busEvent(`${topic}-one-stream`, i + 1, { i }));
    await producer.publish(topic, events);
    const victim = events[19];

    const runChild = (dieAfter?: string) => {
      const child = spawn(
        tsx,
        [
          join(here, '../testing/kafkaCrashConsumer.ts'),
          kafka.brokers.join(','),
          topic,
          group,
          file,
          ...(dieAfter ? [dieAfter] : []),
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, LOG_LEVEL: 'silent' },
        },
      );
      let err = '';
      child.stderr.on('data', (d) => (err += String(d)));
      const exited = new Promise<{ code: number | null; signal: string | null; err: string }>((res) =>
        child.once('exit', (code, signal) => res({ code, signal, err })),
      );
      return { child, exited };
    };

    const first = runChild(victim.id);
    const end = await first.exited;
    // tsx runs the script in a child node and passes its death on as exit code 128 + 9
    expect(end.signal === 'SIGKILL' || end.code === 137, `exit ${end.code} ${end.signal}: ${end.err}`).toBe(
      true,
    );
    const admin = await connectedAdmin(kafka.brokers, 'offsets');
    const [offsets] = await admin.fetchOffsets({ groupId: kafkaGroupId(group, topic), topics: [topic] });
    await admin.disconnect();
    const committedAtCrash = offsets.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    const store = createSqliteServiceStore(file);
    try {
      expect(await store.get('applied', victim.id)).not.toBeNull();
      expect(await store.get('applied', events[20].id)).toBeNull();

      const second = runChild();
      try {
        await waitFor(async () => (await store.count('applied')) === events.length, {
          timeoutMs: TIMEOUT,
          message: 'all applied after the restart',
        });
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const deliveries = async (e: StoredEvent) => (await store.get<{ n: number }>('deliveries', e.id))?.n;
      // one stream: one partition, offsets 0..29 in publish order; what the group had committed when it died
      const committed = committedAtCrash;
      expect(committed).toBeLessThanOrEqual(19); // the victim's own offset was never committed
      expect(await deliveries(victim)).toBe(2); // so it was redelivered
      for (let i = 0; i < events.length; i++) {
        // before the committed offset: never again (the restart resumed there); from it to the victim: redelivered once
        const want = i < committed ? 1 : i <= 19 ? 2 : 1;
        expect(await deliveries(events[i]), `event ${i} (committed ${committed})`).toBe(want);
      }
      expect((await store.get<{ n: number }>('effects', 'total'))?.n).toBe(events.length); // applied once each
    } finally {
      await store.close();
    }
  });

  it('an undecodable message and a protobuf payload of an unknown type go to <topic>.dlq with the reason; the partition moves on', async () => {
    const bus = await open();
    const topic = uniq('poison');
    const got: StoredEvent[] = [];
    subs.push(await bus.subscribe({ topic, group: uniq('g'), handler: async (e) => void got.push(e) }));
    const raw = new Kafka({ clientId: 'raw', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    const mystery = busEvent('k', 1, { x: 1 }, 'MysteryHappened');
    const fakeCodec = { encode: () => ({ finish: () => Uint8Array.from([8, 1]) }), decode: () => ({}) };
    const encoded = encodeEnvelope(mystery, { MysteryHappened: fakeCodec });
    await raw.send({
      topic,
      messages: [
        {
          key: 'k',
          value: Buffer.from('this is not an envelope \u00ff\u00fe'),
          headers: { [PAYLOAD_ENCODING_HEADER]: 'json' },
        },
        { key: 'k', value: encoded.value, headers: { [PAYLOAD_ENCODING_HEADER]: encoded.encoding } },
      ],
    });
    await raw.disconnect();
    const fine = busEvent('k', 2, { ok: true });
    await bus.publish(topic, [fine]);
    await waitFor(() => got.length >= 1, {
      timeoutMs: TIMEOUT,
      message: 'the good event after the poison ones',
    });
    expect(got.map((e) => e.id)).toEqual([fine.id]);

    const dead: Array<Record<string, string>> = [];
    const reader = new Kafka({
      clientId: 'dlq-reader',
      brokers: kafka.brokers,
      logLevel: logLevel.NOTHING,
    }).consumer({ groupId: uniq('dlq') });
    await reader.connect();
    await reader.subscribe({ topics: [deadLetterTopicOf(topic)], fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        dead.push(Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])));
      },
    });
    try {
      await waitFor(() => dead.length >= 2, { timeoutMs: TIMEOUT, message: 'two dead letters' });
    } finally {
      await reader.disconnect();
    }
    expect(dead.map((h) => h['dlq-reason'])).toEqual(['undecodable', 'undecodable']);
    expect(dead[1]['dlq-error']).toMatch(/MysteryHappened/);
    expect(dead.every((h) => h['dlq-original-topic'] === topic)).toBe(true);
  });

  it('creates event topics that keep everything (retention.ms and retention.bytes -1), whatever the broker default', async () => {
    const bus = await open();
    const topic = uniq('retention');
    await bus.publish(topic, [busEvent('r', 1)]);
    const admin = await connectedAdmin(kafka.brokers, 'configs');
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'retention.bytes'] },
        ],
      });
      const config = Object.fromEntries(resources[0].configEntries.map((c) => [c.configName, c.configValue]));
      expect(config).toEqual({ 'retention.ms': '-1', 'retention.bytes': '-1' });
    } finally {
      await admin.disconnect();
    }
  });

  it("a consumer with no codecs of its own still decodes another service's protobuf events (no data = null)", async () => {
    const producer = await open({ codecs: { DepositConfirmed } });
    const consumer = await open({ codecs: {} });
    const topic = uniq('ledger');
    const got: StoredEvent[] = [];
    subs.push(
      await consumer.subscribe({ topic, group: uniq('identity'), handler: async (e) => void got.push(e) }),
    );
    const data = {
      depositId: 'd-1',
      userId: 'u-1',
      amountCents: 12_345,
      notes: 'BTC',
      confirmedBy: 'admin-1',
      confirmedAt: '2026-11-22T10:00:00.000Z',
    };
    const e = busEvent(
      'deposit-d-1',
      2,
      DepositConfirmed.toJSON(DepositConfirmed.fromPartial(data)),
      'DepositConfirmed',
    );
    await producer.publish(topic, [e]);
    await waitFor(() => got.length >= 1, { timeoutMs: TIMEOUT, message: 'delivered' });
    expect(got[0].data).toEqual(e.data);
  });
});

const own = kafka.available ? await startTestKafka({ ownBroker: true }) : undefined;
if (kafka.available && !own?.available)
  console.log(`[skip] Kafka broker outage cases: cannot run a broker of their own (${own?.reason})`);
afterAll(() => own?.stop());

describe.skipIf(!own?.available)('Kafka bus when the broker goes away', () => {
  it('publish rejects in bounded time during an outage, close() finishes, and after the restart a running consumer resumes without loss', async () => {
    const broker = own!.broker!;
    const topic = `outage-${randomUUID()}`;
    const opts = {
      brokers: own!.brokers,
      clientId: 'outage',
      publishTimeoutMs: 3_000,
      retryBaseMs: 10,
      retryMaxMs: 200,
      sessionTimeoutMs: 6_000,
    };
    const bus = await createKafkaEventBus(opts);
    const got: string[] = [];
    const sub = await bus.subscribe({
      topic,
      group: 'outage-consumer',
      handler: async (e) => void got.push(e.id),
    });
    const before = busEvent('o', 1);
    await bus.publish(topic, [before]);
    await waitFor(() => got.length === 1, { timeoutMs: TIMEOUT, message: 'delivered before the outage' });
    // ... and its offset committed (a crash before the commit would rightly redeliver it)
    const admin = await connectedAdmin(own!.brokers, 'offsets');
    await waitFor(
      async () => {
        const [t] = await admin.fetchOffsets({
          groupId: kafkaGroupId('outage-consumer', topic),
          topics: [topic],
        });
        return t.partitions.some((p) => Number(p.offset) > 0);
      },
      { timeoutMs: TIMEOUT, message: 'offset committed' },
    );
    await admin.disconnect();

    await broker.kill(); // a crash, not a clean stop
    const started = Date.now();
    await expect(bus.publish(topic, [busEvent('o', 2)])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(15_000);

    await broker.start();
    // the outbox relay's way: publish again until the broker takes it
    const after = busEvent('o', 3);
    await waitFor(
      async () => {
        try {
          await bus.publish(topic, [after]);
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: TIMEOUT, message: 'publish works again after the restart' },
    );
    await waitFor(() => got.includes(after.id), {
      timeoutMs: TIMEOUT,
      message: 'the running consumer resumed',
    });
    expect(got.filter((id) => id === before.id)).toHaveLength(1);
    await sub.stop();

    // and a shutdown during an outage finishes
    const second = await createKafkaEventBus(opts);
    await second.subscribe({ topic, group: 'outage-consumer-2', handler: async () => undefined });
    await broker.kill();
    const closing = Date.now();
    await Promise.all([bus.close(), second.close()]);
    expect(Date.now() - closing).toBeLessThan(30_000);
  }, 120_000); // two broker kills and a JVM start, on a machine that may be busy
});
