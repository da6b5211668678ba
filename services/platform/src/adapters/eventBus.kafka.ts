import {
  Kafka,
  logLevel as KafkaLogLevel,
  type Admin,
  type Consumer,
  type ConsumerRunConfig,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type KafkaConfig,
  type Producer,
} from 'kafkajs';
import type { StoredEvent } from '../eventSourcing/types.js';
import { deadLetterTopicOf, type EventBus, type Subscription } from '../ports/eventBus.js';
import type { Logger } from '../logger.js';
import { backoffMs, Signal } from '../util/async.js';
import { secondsSince } from '../metrics.js';
import { busMetrics, failureKindOf, handlerRetries, type HandlerRetryOptions } from './busShared.js';
import {
  ALL_EVENT_CODECS,
  decodeEnvelope,
  encodeEnvelope,
  traceFromHeaders,
  traceHeaders,
  type EventCodecs,
} from './eventEnvelope.js';

export type { EventCodec, EventCodecs } from './eventEnvelope.js';

/** How many times subscribe asks for a topic's metadata while the broker calls it unknown (retriable). */
const SUBSCRIBE_ATTEMPTS = 8;

/** Kafka header telling how `payload` of the envelope is encoded. */
export const PAYLOAD_ENCODING_HEADER = 'payload-encoding';

export interface KafkaEventBusOptions extends HandlerRetryOptions {
  brokers: string[];
  clientId: string;
  /** Codecs used to ENCODE this producer's events (types without one travel as JSON). Decoding knows every proto event. */
  codecs?: EventCodecs;
  logger?: Logger;
  /** Partitions for topics this bus creates (default 3). */
  numPartitions?: number;
  replicationFactor?: number;
  /** Extra kafkajs client config (ssl, sasl, timeouts...). */
  kafka?: Partial<KafkaConfig>;
  /** A publish that has not been acknowledged by then rejects (default 15 s). */
  publishTimeoutMs?: number;
  /** Consumer session timeout: how long a killed member holds its partitions (default 10 s). */
  sessionTimeoutMs?: number;
  /** Within a fetched batch, offsets are committed at least this often (default 1 s) and at its end. */
  commitIntervalMs?: number;
  /** A consumer kafkajs gave up on is started again after this, doubling (default 1 s, at most 10 s). */
  restartBackoffMs?: { base: number; max: number };
}

/** Event topics keep everything: consumer groups created later rebuild their read models from the beginning. */
export const EVENT_TOPIC_CONFIG = [
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
];
/** Dead letters are kept 30 days for an operator to inspect and replay. */
export const DEAD_LETTER_TOPIC_CONFIG = [{ name: 'retention.ms', value: String(30 * 24 * 3600 * 1000) }];

/**
 * The Kafka consumer group behind (group, topic). kafkajs does not support members of one group that
 * subscribe to different topic sets (the leader assigns round-robin and members drop what they did not
 * subscribe to), so every (service group, topic) pair is a Kafka group of its own.
 */
export const kafkaGroupId = (group: string, topic: string) => `${group}.${topic}`;

/**
 * EventBus on Kafka (kafkajs 2.2.4).
 *
 * - Producer: acks=all, one request in flight (order kept across retries), bounded retries, and every
 *   publish rejects within `publishTimeoutMs` when the broker is away, so the outbox relay backs off and a
 *   shutdown finishes. Not kafkajs' "idempotent" producer: that one retries forever. A retried batch may
 *   land twice; consumers de-duplicate on the event id (ServiceStore.markProcessed) as for any redelivery.
 * - Topics are created by the bus (auto-creation is off on our brokers) with infinite retention; their
 *   dead-letter topics `<topic>.dlq` keep 30 days.
 * - Value: protobuf `meridian.common.v1.EventEnvelope`; `payload` is the protobuf encoding of the data when
 *   the producer has a codec for the type (header payload-encoding=proto), else UTF-8 JSON. Decoding knows
 *   every event message of proto/ (ALL_EVENT_CODECS), so a consumer never gets `data = null`.
 * - Consumers: one kafkajs consumer per subscription in the Kafka group kafkaGroupId(group, topic), autoCommit
 *   off; offsets are committed after the handlers succeeded, at the end of each fetched batch and at least every
 *   `commitIntervalMs` within it, while the consumer still runs (stop() waits for the in-flight batch and its
 *   commit before leaving the group, so a clean stop never redelivers). A failing handler is retried in place
 *   with backoff (heartbeating): a transient failure for as long as it lasts (the partition waits), any other
 *   that is not permanent up to `maxAttempts` (ports/eventBus.ts). A permanent failure, a message that cannot
 *   be decoded, or the last attempt sends the message to `<topic>.dlq` with the reason, group and time in its
 *   headers (kafkaDeadLetters reads and redrives them), an error is logged, and the partition moves on. A consumer kafkajs gives up on (a crash it
 *   does not restart from, such as no group coordinator yet after a broker restart) is started again by the
 *   bus with backoff.
 * - Data is JSON-shaped on both sides (decode, then a JSON round trip), the same as the in-process bus.
 * - The W3C trace context of an event (StoredEvent.trace, tracing.ts) travels in the `traceparent` and
 *   `tracestate` headers.
 */
export async function createKafkaEventBus(options: KafkaEventBusOptions): Promise<EventBus> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const log = options.logger;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
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
  const encodeCodecs = options.codecs ?? {};
  const decodeCodecs: EventCodecs = { ...ALL_EVENT_CODECS, ...encodeCodecs };
  const { delayMs, afterFailure } = handlerRetries(options, 100);
  const publishTimeoutMs = options.publishTimeoutMs ?? 15_000;
  const commitIntervalMs = options.commitIntervalMs ?? 1_000;
  const { base: restartBaseMs, max: restartMaxMs } = options.restartBackoffMs ?? { base: 1_000, max: 10_000 };
  const producer: Producer = kafka.producer({
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
  const admin: Admin = kafka.admin();
  await producer.connect();
  try {
    await admin.connect();
  } catch (err) {
    await producer.disconnect().catch(() => undefined);
    throw err;
  }

  const known = new Set<string>();
  const ensureTopic = async (topic: string, configEntries = EVENT_TOPIC_CONFIG) => {
    if (known.has(topic)) return;
    try {
      // look first: creating an existing topic "works" but kafkajs logs the broker's refusal as an error
      if ((await admin.listTopics()).includes(topic)) {
        known.add(topic);
        return;
      }
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic,
            numPartitions: options.numPartitions ?? 3,
            ...(options.replicationFactor !== undefined
              ? { replicationFactor: options.replicationFactor }
              : {}),
            configEntries,
          },
        ],
      });
      known.add(topic);
    } catch (err) {
      // managed elsewhere (Strimzi KafkaTopic) and creation not allowed: carry on; retried on the next call
      log?.warn({ err, topic }, 'could not create topic; assuming it is managed elsewhere');
    }
  };

  const send = async (
    topic: string,
    messages: Array<{ key: string | Buffer | null; value: Buffer; headers: IHeaders }>,
  ) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`kafka: publish to ${topic} not acknowledged within ${publishTimeoutMs} ms`)),
        publishTimeoutMs,
      );
    });
    try {
      await Promise.race([producer.send({ topic, acks: -1, messages }), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  /**
   * `fromBeginning: false` means "from the end as of subscribe()". Kafka's own reset to latest happens when a
   * member first fetches a partition with no committed offset — after the group join, and again after every
   * rebalance that moves such a partition — so events published in between would be skipped. A group with no
   * committed offsets therefore gets the topic's current end offsets committed for every partition first.
   */
  const pinStartAtEnd = async (groupId: string, topic: string) => {
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    if (committed && committed.partitions.length > 0 && committed.partitions.every((p) => p.offset !== '-1'))
      return;
    const ends = await admin.fetchTopicOffsets(topic);
    const known = new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset]));
    try {
      await admin.setOffsets({
        groupId,
        topic,
        partitions: ends.map((o) => ({
          partition: o.partition,
          offset:
            known.get(o.partition) && known.get(o.partition) !== '-1' ? known.get(o.partition)! : o.high,
        })),
      });
    } catch (err) {
      // another member of the group is already running (it pinned the start, or consumes): nothing to do
      log?.debug?.({ err, group: groupId, topic }, 'start offsets not pinned: the group is active');
    }
  };

  const consumers = new Set<Subscription>();
  let closed = false;
  /** The readiness probe's admin client (ready()), made at the first probe. */
  let probe: Admin | undefined;
  let probeConnected = false;

  return {
    async publish(topic, events) {
      if (closed) throw new Error('EventBus is closed');
      if (events.length === 0) return;
      await ensureTopic(topic);
      await send(
        topic,
        events.map((e) => {
          const { value, encoding } = encodeEnvelope(e, encodeCodecs);
          return {
            key: e.streamId,
            value,
            headers: { [PAYLOAD_ENCODING_HEADER]: encoding, 'event-type': e.type, ...traceHeaders(e) },
          };
        }),
      );
    },

    async subscribe({ topic, group, handler, fromBeginning = true }) {
      if (closed) throw new Error('EventBus is closed');
      await ensureTopic(topic);
      const groupId = kafkaGroupId(group, topic);
      const labels = { group, topic };
      // lag from the admin offsets: the partitions' ends minus the group's commits (its start when none)
      const measureLag = async () => {
        const [ends, [committed]] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId, topics: [topic] }),
        ]);
        const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset]));
        let lag = 0n;
        for (const end of ends) {
          const c = at.get(end.partition);
          lag += BigInt(end.high) - BigInt(c === undefined || c === '-1' ? end.low : c);
        }
        return [{ labels, value: Number(lag) }];
      };
      let stopping = false;
      let inFlight: Promise<void> | null = null;
      const signal = new Signal();
      const consumer: Consumer = kafka.consumer({
        groupId,
        allowAutoTopicCreation: false,
        sessionTimeout: options.sessionTimeoutMs ?? 10_000,
        heartbeatInterval: 1_000,
        // the fetch long-poll: data still returns at once; a stopping consumer waits for the poll in flight
        maxWaitTimeInMs: 1_000,
        retry: {
          retries: 5,
          initialRetryTime: 100,
          maxRetryTime: 2_000,
          restartOnFailure: async () => !stopping,
        },
      });
      // kafkajs restarts a consumer after a retriable crash itself, and gives up on the others: a coordinator
      // still loading after a broker restart ("Failed to find group coordinator" once its retries ran out) is
      // one. A consumer given up on would consume nothing until the service restarts, so the bus starts it
      // again, with backoff (restartBackoffMs: 1 s doubling to 10 s), until it is running or stopping.
      let restartTimer: NodeJS.Timeout | undefined;
      let restarts = 0;
      const restartLater = () => {
        if (stopping) return;
        const wait = Math.min(restartMaxMs, restartBaseMs * 2 ** Math.min(restarts++, 16));
        restartTimer = setTimeout(() => {
          restartTimer = undefined;
          if (stopping) return;
          log?.warn({ group: groupId, topic, attempt: restarts }, 'kafka consumer starting again');
          // a failed join crashes again (and comes back here); a failed connect rejects
          void consumer
            .connect()
            .then(() => (stopping ? undefined : consumer.run(runOptions)))
            .catch((err) => {
              log?.warn({ err, group: groupId, topic }, 'kafka consumer could not start again');
              restartLater();
            });
        }, wait);
      };
      consumer.on(consumer.events.GROUP_JOIN, () => {
        restarts = 0;
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (stopping) return;
        log?.warn({ err: payload.error, group: groupId, restart: payload.restart }, 'kafka consumer crashed');
        if (!payload.restart) restartLater();
      });

      const deadLetter = async (
        p: { topic: string; partition: number; message: KafkaMessage },
        reason: string,
        err: unknown,
        type?: string,
      ) => {
        const dlq = deadLetterTopicOf(topic);
        await ensureTopic(dlq, DEAD_LETTER_TOPIC_CONFIG);
        busMetrics.deadLettered.inc(labels);
        await send(dlq, [
          {
            key: p.message.key,
            value: p.message.value ?? Buffer.alloc(0),
            headers: {
              ...p.message.headers,
              'dlq-original-topic': p.topic,
              'dlq-original-partition': String(p.partition),
              'dlq-original-offset': p.message.offset,
              'dlq-group': group,
              'dlq-reason': reason,
              'dlq-error': String((err as Error)?.message ?? err).slice(0, 1_000),
              'dlq-at': new Date().toISOString(),
            },
          },
        ]);
        log?.error(
          {
            err,
            topic: p.topic,
            partition: p.partition,
            offset: p.message.offset,
            group,
            type,
            reason,
            deadLetterTopic: dlq,
          },
          'event moved to the dead-letter topic',
        );
      };

      /** Handles one message; false when the subscription is stopping and the message was left for the next member. */
      const processMessage = async (b: EachBatchPayload, message: KafkaMessage): Promise<boolean> => {
        const p = { topic: b.batch.topic, partition: b.batch.partition, message };
        if (!message.value) return true;
        let event: StoredEvent;
        try {
          const header = message.headers?.[PAYLOAD_ENCODING_HEADER];
          const encoding =
            header === undefined ? undefined : Array.isArray(header) ? String(header[0]) : String(header);
          event = decodeEnvelope(message.value, encoding, decodeCodecs, (type) => {
            throw new Error(`no codec for the protobuf payload of ${type}`);
          });
          const trace = traceFromHeaders(message.headers);
          if (trace) event.trace = trace;
        } catch (err) {
          await deadLetter(p, 'undecodable', err);
          return true;
        }
        for (let attempt = 1; ; attempt++) {
          if (stopping) return false;
          try {
            const started = process.hrtime.bigint();
            await handler(event);
            busMetrics.handling.observe(labels, secondsSince(started));
            busMetrics.handled.inc(labels);
            return true;
          } catch (err) {
            const next = afterFailure(err, attempt);
            if (!next.retry) {
              await deadLetter(p, next.reason, err, event.type);
              return true;
            }
            busMetrics.retried.inc(labels);
            log?.warn(
              { err, topic: p.topic, group, eventId: event.id, type: event.type, attempt },
              'event handler failed; retrying',
            );
            await signal.wait(delayMs(attempt));
            if (stopping) return false;
            // a rebalance takes the partition away: throw, so kafkajs rejoins instead of us handling it twice
            await b.heartbeat();
          }
        }
      };

      /**
       * A fetched batch, in order. Offsets are committed at the end of the batch and at least every
       * `commitIntervalMs` within it (a commit per message costs the coordinator's append linger, ~5 ms, each):
       * a crash redelivers at most what was handled since the last commit, which idempotent handlers skip.
       */
      const handledUpTo = new Map<number, bigint>();
      const processBatch = async (b: EachBatchPayload) => {
        const { batch } = b;
        let pending: string | null = null;
        let lastCommit = Date.now();
        const commit = async () => {
          if (pending === null) return;
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: pending }]);
          pending = null;
          lastCommit = Date.now();
        };
        try {
          for (const message of batch.messages) {
            if (stopping || !b.isRunning() || b.isStale()) break;
            // kafkajs fetches again from the last COMMITTED offset after an internal restart or a rejoin that
            // gave this member its partitions back: what this member already handled is skipped, not redone
            const offset = BigInt(message.offset);
            const seen = handledUpTo.get(batch.partition);
            if (seen === undefined || offset > seen) {
              if (!(await processMessage(b, message))) break;
              handledUpTo.set(batch.partition, offset);
            }
            b.resolveOffset(message.offset);
            pending = (BigInt(message.offset) + 1n).toString();
            if (Date.now() - lastCommit >= commitIntervalMs) await commit();
            await b.heartbeat();
          }
        } catch (err) {
          await commit().catch(() => undefined); // keep what was handled, if the group still lets us
          throw err;
        }
        await commit();
      };

      const runOptions: ConsumerRunConfig = {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 1,
        eachBatch: async (b) => {
          if (stopping) return;
          const work = processBatch(b);
          inFlight = work.catch(() => undefined);
          try {
            await work;
          } finally {
            inFlight = null;
          }
        },
      };

      if (!fromBeginning) await pinStartAtEnd(groupId, topic);
      await consumer.connect();
      let run: Promise<void>;
      try {
        // a topic created a moment ago may not be in the metadata the broker answers yet ("This server does
        // not host this topic-partition", retriable): asked again with backoff, at most SUBSCRIBE_ATTEMPTS times
        for (let attempt = 1; ; attempt++) {
          try {
            await consumer.subscribe({ topics: [topic], fromBeginning });
            break;
          } catch (err) {
            if (failureKindOf(err) !== 'transient' || attempt >= SUBSCRIBE_ATTEMPTS) throw err;
            await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, 100, 2_000)));
          }
        }
        // Not awaited: kafkajs' run() waits for the group join, which after a crash waits for the dead
        // member's session to expire; the service must not wait for that to serve its API.
        run = consumer.run(runOptions).catch((err) => {
          log?.error({ err, group: groupId, topic }, 'kafka consumer could not start');
          restartLater();
        });
      } catch (err) {
        await consumer.disconnect().catch(() => undefined);
        throw err;
      }
      const unmeasure = busMetrics.lag.add(measureLag);
      let stopped: Promise<void> | undefined;
      const sub: Subscription = {
        stop() {
          stopped ??= (async () => {
            stopping = true;
            clearTimeout(restartTimer);
            unmeasure();
            signal.notify();
            // the in-flight handler finishes and its batch commits while the consumer still runs (kafkajs
            // drops a commit made after stop), then we leave the group
            await run;
            if (inFlight) await inFlight;
            await consumer.disconnect();
            consumers.delete(sub);
          })();
          return stopped;
        },
      };
      consumers.add(sub);
      return sub;
    },

    async ready() {
      if (closed) throw new Error('EventBus is closed');
      // a client of its own without retries, so a probe answers within its timeout while the broker is away
      probe ??= kafka.admin({ retry: { retries: 0 } });
      const client = probe;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          (async () => {
            if (!probeConnected) {
              await client.connect();
              probeConnected = true;
            }
            await client.describeCluster();
          })(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('kafka: no answer within 3 s')), 3_000);
          }),
        ]);
      } catch (err) {
        probeConnected = false;
        await client.disconnect().catch(() => undefined);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((c) => c.stop()));
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      await probe?.disconnect().catch(() => undefined);
    },
  };
}
