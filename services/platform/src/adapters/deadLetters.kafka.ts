/**
 * The dead letters on a Kafka cluster: listed with the reasons the bus (eventBus.kafka.ts) wrote in their
 * headers, and redriven to their topics.
 */
import {
  Kafka,
  logLevel as KafkaLogLevel,
  type IHeaders,
  type KafkaConfig,
  type KafkaMessage,
} from 'kafkajs';
import { deadLetterTopicOf, type DeadLetter, type DeadLetters } from '../ports/eventBus.js';
import { ALL_EVENT_CODECS, decodeEnvelope } from './eventEnvelope.js';
import { PAYLOAD_ENCODING_HEADER } from './eventBus.kafka.js';

/** On a dead-letter topic: a marker that the dead letter at this offset (`<partition>:<offset>`) was redriven. */
const REDRIVEN_HEADER = 'dlq-redriven';
const headerText = (headers: IHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  return String(Array.isArray(v) ? v[0] : v);
};

/**
 * The dead letters on a Kafka cluster (`make dlq` with KAFKA_BROKERS): each `<topic>.dlq` read whole with the
 * reason, group and time of its headers. A redrive sends the original message (key, value, trace and encoding
 * headers) back to its topic, then appends to the dead-letter topic a marker naming the offset it put back,
 * so the list shows what was redriven.
 */
export async function kafkaDeadLetters(options: {
  brokers: string[];
  clientId?: string;
  kafka?: Partial<KafkaConfig>;
}): Promise<DeadLetters> {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'meridian-dlq',
    brokers: options.brokers,
    connectionTimeout: 3_000,
    logLevel: KafkaLogLevel.NOTHING,
    ...options.kafka,
  });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await admin.connect();
  await producer.connect();

  type Raw = { partition: number; message: KafkaMessage };
  /** Every message of `topic` up to its current end. */
  const readAll = async (topic: string): Promise<Raw[]> => {
    const ends = await admin.fetchTopicOffsets(topic);
    const left = new Map(
      ends.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high) - 1n]),
    );
    if (left.size === 0) return [];
    const out: Raw[] = [];
    const groupId = `meridian-dlq-reader-${process.pid}-${Date.now()}`;
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolvePromise, reject) => {
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              out.push({ partition, message });
              const last = left.get(partition);
              if (last !== undefined && BigInt(message.offset) >= last) left.delete(partition);
              if (left.size === 0) resolvePromise();
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
      await admin.deleteGroups([groupId]).catch(() => undefined); // nothing committed; tidy only
    }
    return out.sort(
      (a, b) => a.partition - b.partition || Number(BigInt(a.message.offset) - BigInt(b.message.offset)),
    );
  };

  const letters = async (topic: string) => {
    const dlq = deadLetterTopicOf(topic);
    const raw = await readAll(dlq);
    const redriven = new Map<string, string>();
    for (const r of raw) {
      const ref = headerText(r.message.headers, REDRIVEN_HEADER);
      if (ref) redriven.set(ref, new Date(Number(r.message.timestamp)).toISOString());
    }
    return raw
      .filter((r) => !headerText(r.message.headers, REDRIVEN_HEADER) && r.message.value)
      .map((r) => {
        const h = r.message.headers;
        const ref = `${r.partition}:${r.message.offset}`;
        const event = decodeEnvelope(
          r.message.value!,
          headerText(h, PAYLOAD_ENCODING_HEADER),
          ALL_EVENT_CODECS,
          (type) => {
            throw new Error(`no codec for the protobuf payload of ${type}`);
          },
        );
        const letter: DeadLetter = {
          topic,
          group: headerText(h, 'dlq-group') ?? '',
          event,
          reason: headerText(h, 'dlq-reason') ?? '',
          error: headerText(h, 'dlq-error') ?? '',
          at: headerText(h, 'dlq-at') ?? new Date(Number(r.message.timestamp)).toISOString(),
          ...(redriven.has(ref) ? { redrivenAt: redriven.get(ref)! } : {}),
        };
        return { ref, raw: r, letter };
      });
  };

  return {
    async list(topic) {
      const topics = topic
        ? [topic]
        : (await admin.listTopics())
            .filter((t) => t.endsWith('.dlq'))
            .map((t) => t.slice(0, -'.dlq'.length))
            .sort();
      const out: DeadLetter[] = [];
      for (const t of topics) {
        if (!(await admin.listTopics()).includes(deadLetterTopicOf(t))) continue;
        out.push(...(await letters(t)).map((l) => l.letter));
      }
      return out;
    },
    async redrive(topic, ids) {
      const wanted = (await letters(topic)).filter((l) =>
        ids ? ids.includes(l.letter.event.id) : l.letter.redrivenAt === undefined,
      );
      if (wanted.length === 0) return [];
      await producer.send({
        topic,
        acks: -1,
        messages: wanted.map(({ raw }) => ({
          key: raw.message.key,
          value: raw.message.value,
          headers: Object.fromEntries(
            Object.entries(raw.message.headers ?? {}).filter(([k]) => !k.startsWith('dlq-')),
          ) as IHeaders,
        })),
      });
      await producer.send({
        topic: deadLetterTopicOf(topic),
        acks: -1,
        messages: wanted.map(({ ref, raw }) => ({
          key: raw.message.key,
          value: null,
          headers: { [REDRIVEN_HEADER]: ref },
        })),
      });
      return wanted.map((l) => l.letter.event.id);
    },
    async close() {
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}
