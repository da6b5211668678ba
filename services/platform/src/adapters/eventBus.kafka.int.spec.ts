import { afterAll, describe, it } from 'vitest';
import { kafkaDeadLetters } from './deadLetters.kafka.js';
import { createKafkaEventBus } from './eventBus.kafka.js';
import { describeEventBusConformance, expectOutageWaitedOut } from '../testing/eventBus.conformance.js';
import { startTestKafka } from '../testing/kafka.js';

// The EventBus conformance suite on a real Kafka broker: the official jars where Java is (our machines),
// KAFKA_BROKERS when given, testcontainers where a container runtime is; skipped with the reason otherwise.
const kafka = await startTestKafka();
if (!kafka.available) console.log(`[skip] Kafka EventBus conformance: no Kafka broker (${kafka.reason})`);
afterAll(() => kafka.stop());

describe.skipIf(!kafka.available)(`Kafka EventBus (${kafka.reason})`, () => {
  describeEventBusConformance('Kafka (kafkajs)', {
    // topics and groups are unique per test, so every "location" is the same broker
    location: async () => ({
      open: () =>
        createKafkaEventBus({
          brokers: kafka.brokers,
          clientId: 'conformance',
          numPartitions: 3,
          replicationFactor: 1,
          retryBaseMs: 10,
          retryMaxMs: 100,
          maxAttempts: 3,
          sessionTimeoutMs: 6_000,
        }),
      deadLetters: () => kafkaDeadLetters({ brokers: kafka.brokers }),
    }),
    timeoutMs: 60_000,
    maxAttempts: 3,
  });
});

describe.skipIf(!kafka.available)(`Kafka EventBus: a long outage (${kafka.reason})`, () => {
  it(
    'an outage longer than the bound on other failures (75 s, default backoff) is waited out in place: nothing dead-lettered',
    { timeout: 180_000 },
    async () => {
      const bus = await createKafkaEventBus({
        brokers: kafka.brokers,
        clientId: 'long-outage',
        numPartitions: 1,
        replicationFactor: 1,
      });
      const letters = await kafkaDeadLetters({ brokers: kafka.brokers });
      try {
        await expectOutageWaitedOut(bus, letters);
      } finally {
        await letters.close();
        await bus.close();
      }
    },
  );
});
