/**
 * `make dlq` and `make dlq-redrive`: the dead letters of the event bus, for operators. With KAFKA_BROKERS set,
 * those of that Kafka cluster (`make cluster`'s broker is 127.0.0.1:9092 unless told otherwise); else those of
 * the standalone's in-process bus (DATA_DIR/bus.sqlite, default ./data; a running standalone may stay up).
 *
 *   tsx scripts/dlq.ts list [TOPIC]             every dead letter per topic: event, group, reason, error, time
 *   tsx scripts/dlq.ts redrive TOPIC [ID,...]   puts them back on TOPIC (those not yet redriven, or those ids)
 *
 * Exit 0 done, 1 nothing to redrive or a wrong argument, 2 no bus to read.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inProcDeadLetters } from '@meridian/platform/adapters/eventBus.inproc';
import { kafkaDeadLetters } from '@meridian/platform/adapters/deadLetters.kafka';
import { kafkaSasl } from '@meridian/platform/busAccess';
import type { DeadLetter, DeadLetters } from '@meridian/platform/ports/eventBus';

type Out = { log(line: string): void; error(line: string): void };

async function open(env: NodeJS.ProcessEnv, out: Out): Promise<DeadLetters | null> {
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  // KAFKA_USERNAME / KAFKA_PASSWORD: a user that may read every topic and write the event topics (make
  // cluster's `admin`, whose password is KAFKA_ADMIN_PASSWORD in data/cluster/secrets.json)
  if (brokers.length > 0) return kafkaDeadLetters({ brokers, kafka: { sasl: kafkaSasl(env) } });
  const path = join(resolve(env.DATA_DIR ?? 'data'), 'bus.sqlite');
  if (!existsSync(path)) {
    out.error(`No in-process bus at ${path} (set DATA_DIR, or KAFKA_BROKERS for a Kafka cluster)`);
    return null;
  }
  return inProcDeadLetters(path);
}

function print(letters: DeadLetter[], out: Out) {
  if (letters.length === 0) {
    out.log('No dead letters.');
    return;
  }
  const byTopic = new Map<string, DeadLetter[]>();
  for (const l of letters) byTopic.set(l.topic, [...(byTopic.get(l.topic) ?? []), l]);
  for (const [topic, list] of byTopic) {
    const waiting = list.filter((l) => !l.redrivenAt).length;
    out.log(`${topic}: ${list.length} dead letter(s), ${waiting} not redriven`);
    for (const l of list)
      out.log(
        `  ${l.at}  ${l.event.id}  ${l.event.type}  group ${l.group || '?'}  ${l.reason}: ${l.error}` +
          (l.redrivenAt ? `  (redriven ${l.redrivenAt})` : ''),
      );
  }
}

export async function main(args: readonly string[], env = process.env, out: Out = console): Promise<number> {
  const [command = 'list', topic, ids] = args;
  if (command !== 'list' && command !== 'redrive') {
    out.error('usage: dlq.ts list [TOPIC] | dlq.ts redrive TOPIC [ID,...]');
    return 1;
  }
  if (command === 'redrive' && !topic) {
    out.error('redrive needs the topic: make dlq-redrive TOPIC=meridian.identity.events [ID=...]');
    return 1;
  }
  const letters = await open(env, out);
  if (!letters) return 2;
  try {
    if (command === 'list') {
      print(await letters.list(topic || undefined), out);
      return 0;
    }
    const wanted = ids
      ?.split(',')
      .map((i) => i.trim())
      .filter(Boolean);
    const done = await letters.redrive(topic!, wanted?.length ? wanted : undefined);
    if (done.length === 0) {
      out.log(`Nothing to redrive on ${topic}.`);
      return 1;
    }
    out.log(`Redriven to ${topic}: ${done.join(', ')}`);
    return 0;
  } finally {
    await letters.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
