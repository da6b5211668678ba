/**
 * A Kafka broker for a test file, in this order of preference:
 *  1. KAFKA_BROKERS from the environment (e.g. `make kafka` running in another terminal);
 *  2. a real broker from the official jars (scripts/kafka/broker.ts) when Java and Maven are here: our machines;
 *  3. testcontainers where a container runtime exists;
 * else `available: false` with the reasons, for `describe.skipIf` and a printed skip line.
 */
import { rm } from 'node:fs/promises';
import {
  startKafkaBroker,
  kafkaUnavailableReason,
  type KafkaBroker,
} from '../../../../scripts/kafka/broker.js';
import { detectContainerRuntime } from './containers.js';
import { tempDir } from './tempDir.js';

export interface TestKafka {
  available: boolean;
  /** Where the broker comes from, or why there is none. */
  reason: string;
  brokers: string[];
  /** The broker process when this file started one (stop / kill / start for fault tests). */
  broker?: KafkaBroker;
  stop(): Promise<void>;
}

export async function startTestKafka(options: { ownBroker?: boolean } = {}): Promise<TestKafka> {
  const fromEnv = process.env.KAFKA_BROKERS?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (fromEnv?.length && !options.ownBroker) {
    return {
      available: true,
      reason: `KAFKA_BROKERS=${fromEnv.join(',')}`,
      brokers: fromEnv,
      stop: async () => undefined,
    };
  }
  const noJava = kafkaUnavailableReason();
  if (!noJava) {
    const dir = tempDir('meridian-kafka-');
    const broker = await startKafkaBroker({ dir: dir.path });
    return {
      available: true,
      reason: `Apache Kafka from the official jars at ${broker.brokers.join(',')}`,
      brokers: broker.brokers,
      broker,
      async stop() {
        await broker.stop();
        await rm(dir.path, { recursive: true, force: true });
      },
    };
  }
  if (options.ownBroker)
    return { available: false, reason: noJava, brokers: [], stop: async () => undefined };
  const runtime = await detectContainerRuntime();
  if (runtime.available) {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
    return {
      available: true,
      reason: `testcontainers (${runtime.reason})`,
      brokers: [`${container.getHost()}:${container.getMappedPort(9093)}`],
      stop: async () => void (await container.stop()),
    };
  }
  return {
    available: false,
    reason: `${noJava}; and no container runtime (${runtime.reason})`,
    brokers: [],
    stop: async () => undefined,
  };
}
