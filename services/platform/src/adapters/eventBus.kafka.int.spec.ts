import { afterAll, beforeAll, describe } from 'vitest';
import type { StartedKafkaContainer } from '@testcontainers/kafka';
import { createKafkaEventBus } from './eventBus.kafka.js';
import { describeEventBusConformance } from '../testing/eventBus.conformance.js';
import { detectContainerRuntime } from '../testing/containers.js';

// Kafka (KRaft) through testcontainers — skipped, with the reason printed, without a container runtime.
const runtime = await detectContainerRuntime();
if (!runtime.available) console.log(`[skip] Kafka EventBus conformance: no container runtime (${runtime.reason})`);

describe.skipIf(!runtime.available)('Kafka EventBus (testcontainers)', () => {
  let container: StartedKafkaContainer;
  let brokers: string[] = [];
  beforeAll(async () => {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
  }, 240_000);
  afterAll(async () => {
    await container?.stop();
  });

  describeEventBusConformance('Kafka (kafkajs, idempotent producer)', {
    // topics and groups are unique per test, so every "location" is the same broker
    location: async () => ({
      open: () => createKafkaEventBus({ brokers, clientId: 'conformance', numPartitions: 3, replicationFactor: 1, retryBaseMs: 10, retryMaxMs: 100 }),
    }),
    preciseStartAtEnd: false,
    timeoutMs: 60_000,
  });
});
