/**
 * A consumer process for the Kafka fault tests (adapters/eventBus.kafka.faults.int.spec.ts), run with tsx:
 *   tsx kafkaCrashConsumer.ts <brokers> <topic> <group> <sqlite file> [<event id to die after>]
 * It consumes with subscribeIdempotent into a SQLite store, the production path, recording every raw delivery
 * too. Given an event id, it SIGKILLs itself right after that event's effect committed in the store and
 * before the bus committed the Kafka offset: the crash window where at-least-once must redeliver.
 */
import { createKafkaEventBus } from '../adapters/eventBus.kafka.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import { subscribeIdempotent } from '../app/consumer.js';
import type { EventBus } from '../ports/eventBus.js';

const [brokers, topic, group, file, dieAfter] = process.argv.slice(2);
const store = createSqliteServiceStore(file);
const bus = await createKafkaEventBus({
  brokers: brokers.split(','),
  clientId: 'crash-consumer',
  sessionTimeoutMs: 6_000,
  retryBaseMs: 10,
  retryMaxMs: 100,
});
const counting: EventBus = {
  ...bus,
  subscribe: (o) =>
    bus.subscribe({
      ...o,
      handler: async (e) => {
        await store.transaction(async (tx) => {
          const seen = await tx.get<{ n: number }>('deliveries', e.id);
          await tx.put('deliveries', e.id, { n: (seen?.n ?? 0) + 1 });
        });
        await o.handler(e);
        if (e.id === dieAfter) process.kill(process.pid, 'SIGKILL');
      },
    }),
};
await subscribeIdempotent({
  bus: counting,
  store,
  topic,
  group,
  handle: async (e, tx) => {
    const total = await tx.get<{ n: number }>('effects', 'total');
    await tx.put('effects', 'total', { n: (total?.n ?? 0) + 1 });
    await tx.put('applied', e.id, { version: e.version });
  },
});
process.stdout.write('consuming\n');
process.on(
  'SIGTERM',
  () =>
    void bus
      .close()
      .then(() => store.close())
      .then(() => process.exit(0)),
);
