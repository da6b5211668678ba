import { Kafka, logLevel as KafkaLogLevel, type Admin, type Consumer, type KafkaConfig, type Producer } from 'kafkajs';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { EventBus, SubscribeOptions, Subscription } from '../ports/eventBus.js';
import type { Logger } from '../logger.js';
import { backoffMs, Signal } from '../util/async.js';
import { decodeEnvelope, encodeEnvelope, type EventCodecs } from './eventEnvelope.js';

export type { EventCodec, EventCodecs } from './eventEnvelope.js';

/** Kafka header telling how `payload` of the envelope is encoded. */
export const PAYLOAD_ENCODING_HEADER = 'payload-encoding';

export interface KafkaEventBusOptions {
  brokers: string[];
  clientId: string;
  codecs?: EventCodecs;
  logger?: Logger;
  /** Partitions for topics this bus creates (default 3). */
  numPartitions?: number;
  replicationFactor?: number;
  /** Extra kafkajs client config (ssl, sasl, timeouts...). */
  kafka?: Partial<KafkaConfig>;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/**
 * EventBus on Kafka (kafkajs 2.2.4).
 *
 * - Producer: idempotent (acks=all, one in-flight request), message key = streamId, so a stream
 *   stays in one partition and in order.
 * - Value: protobuf `meridian.common.v1.EventEnvelope`. Its `payload` is the protobuf encoding of the
 *   event's data when a codec is registered for the type (header payload-encoding=proto), otherwise
 *   UTF-8 JSON of the data (header payload-encoding=json) — for private or not-yet-proto'd types.
 *   A consumer without the codec for a proto payload gets data = null (and a warning).
 * - Consumers: one kafkajs consumer per subscription, group = options.group, autoCommit off; the
 *   offset is committed after the handler succeeds; a failing handler is retried in place with
 *   backoff (heartbeating), so a partition never skips an event.
 * - Data is JSON-shaped on both sides (decode, then a JSON round trip), the same as the in-process bus.
 */
export async function createKafkaEventBus(options: KafkaEventBusOptions): Promise<EventBus> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const log = options.logger;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    logLevel: KafkaLogLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }) => {
        if (!log) return;
        const { message, ...extra } = entry;
        if (level <= KafkaLogLevel.ERROR) log.error(extra, `kafka: ${message}`);
        else if (level === KafkaLogLevel.WARN) log.warn(extra, `kafka: ${message}`);
      },
    ...options.kafka,
  });
  const codecs = options.codecs ?? {};
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  const admin: Admin = kafka.admin();
  await producer.connect();
  await admin.connect();

  const known = new Set<string>();
  const ensureTopic = async (topic: string) => {
    if (known.has(topic)) return;
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic,
            numPartitions: options.numPartitions ?? 3,
            ...(options.replicationFactor !== undefined ? { replicationFactor: options.replicationFactor } : {}),
          },
        ],
      });
    } catch (err) {
      // topics may be managed elsewhere (Strimzi KafkaTopic) and creation not allowed: carry on
      log?.warn({ err, topic }, 'could not create topic; assuming it is managed elsewhere');
    }
    known.add(topic);
  };

  const warned = new Set<string>();
  const onMissingCodec = (type: string) => {
    if (warned.has(type)) return;
    warned.add(type);
    log?.warn({ type }, 'no codec for event type: delivering data = null');
  };
  const encode = (e: StoredEvent) => encodeEnvelope(e, codecs);
  const decode = (value: Buffer, encoding: string | undefined) => decodeEnvelope(value, encoding, codecs, onMissingCodec);

  const consumers = new Set<Subscription>();

  return {
    async publish(topic, events) {
      if (events.length === 0) return;
      await ensureTopic(topic);
      await producer.send({
        topic,
        acks: -1,
        messages: events.map((e) => {
          const { value, encoding } = encode(e);
          return { key: e.streamId, value, headers: { [PAYLOAD_ENCODING_HEADER]: encoding, 'event-type': e.type } };
        }),
      });
    },

    async subscribe({ topic, group, handler, fromBeginning = true }: SubscribeOptions): Promise<Subscription> {
      await ensureTopic(topic);
      let stopping = false;
      const signal = new Signal();
      const consumer: Consumer = kafka.consumer({
        groupId: group,
        allowAutoTopicCreation: false,
        retry: { restartOnFailure: async () => !stopping },
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 1,
        eachMessage: async ({ topic: t, partition, message, heartbeat }) => {
          if (!message.value) return;
          const header = message.headers?.[PAYLOAD_ENCODING_HEADER];
          const encoding = header === undefined ? undefined : Array.isArray(header) ? String(header[0]) : String(header);
          const event = decode(message.value, encoding);
          for (let attempt = 1; ; attempt++) {
            if (stopping) throw new Error('subscription stopping: not committing');
            try {
              await handler(event);
              break;
            } catch (err) {
              log?.warn({ err, topic: t, group, eventId: event.id, type: event.type, attempt }, 'event handler failed; retrying');
              await signal.wait(backoffMs(attempt, options.retryBaseMs ?? 100, options.retryMaxMs ?? 5_000));
              await heartbeat().catch(() => undefined);
            }
          }
          await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        },
      });
      const sub: Subscription = {
        async stop() {
          if (stopping) return;
          stopping = true;
          signal.notify();
          await consumer.disconnect();
          consumers.delete(sub);
        },
      };
      consumers.add(sub);
      return sub;
    },

    async close() {
      await Promise.all([...consumers].map((c) => c.stop()));
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}
