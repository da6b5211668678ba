/**
 * Kafka's ACLs as make cluster sets them (scripts/kafka/broker.ts `security`, scripts/kafka/acls.ts from platform
 * busAccess.ts), on the real broker: each process logs in as its own SCRAM-SHA-512 user; only the ledger may
 * publish on the ledger's topic: a credential that may only consume it (investment's, the gateway's) is refused
 * with TOPIC_AUTHORIZATION_FAILED, and reads it; a client that does not log in, or with a wrong password, gets
 * nothing. Skipped, with the reason printed, without Java and Maven.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUS_PRINCIPALS, kafkaSasl, type BusPrincipal } from '@meridian/platform/busAccess';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { kafkaUnavailableReason, startKafkaBroker, type KafkaBroker } from '../scripts/kafka/broker.js';
import { applyBusAccess } from '../scripts/kafka/acls.js';

const skipReason = kafkaUnavailableReason();
if (skipReason) console.log(`[skip] Kafka ACLs: ${skipReason}`);

const LEDGER_TOPIC = topicOf('ledger');

describe.skipIf(skipReason !== null)('Kafka: only the owning service publishes on its topic', () => {
  let dir: string;
  let broker: KafkaBroker;
  const passwords = Object.fromEntries(
    BUS_PRINCIPALS.map((p) => [p, randomBytes(18).toString('base64url')]),
  ) as Record<BusPrincipal, string>;
  const clients: Array<{ disconnect(): Promise<void> }> = [];

  const kafkaAs = (sasl: SASLOptions | undefined, clientId: string) =>
    new Kafka({
      clientId,
      brokers: broker.brokers,
      sasl,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3_000,
      retry: { retries: 8, initialRetryTime: 200 },
    });
  const as = (principal: BusPrincipal) =>
    kafkaAs(kafkaSasl({ KAFKA_USERNAME: principal, KAFKA_PASSWORD: passwords[principal] }), principal);
  /** The error (its type, else its name) of one produce to `topic`, or 'ok'. */
  const produce = async (kafka: Kafka, topic: string, value: string): Promise<string> => {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    clients.push(producer);
    try {
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value }] });
      return 'ok';
    } catch (err) {
      const e = err as { type?: string; name?: string; cause?: { type?: string } };
      return e.type ?? e.cause?.type ?? e.name ?? String(err);
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-kafka-acl-'));
    broker = await startKafkaBroker({
      dir,
      security: { users: passwords, brokerPassword: randomBytes(18).toString('base64url') },
    });
    await applyBusAccess(broker.brokers, broker.sasl!);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.disconnect().catch(() => undefined);
    await broker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('the ledger publishes on its topic', async () => {
    expect(await produce(as('ledger'), LEDGER_TOPIC, 'from the ledger')).toBe('ok');
  });

  it('a credential that may only consume the ledger topic cannot produce to it: TOPIC_AUTHORIZATION_FAILED', async () => {
    expect(await produce(as('investment'), LEDGER_TOPIC, 'forged by investment')).toBe(
      'TOPIC_AUTHORIZATION_FAILED',
    );
    expect(await produce(as('gateway'), LEDGER_TOPIC, 'forged by the gateway')).toBe(
      'TOPIC_AUTHORIZATION_FAILED',
    );
    // and it reads the topic, in a group of its own name: only the ledger's event is there
    const consumer = as('investment').consumer({ groupId: `investment.${LEDGER_TOPIC}` });
    clients.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: LEDGER_TOPIC, fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read only ${JSON.stringify(seen)}`)), 60_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(String(message.value));
          clearTimeout(timer);
          resolve();
        },
      });
    });
    expect(seen).toEqual(['from the ledger']);
    await consumer.disconnect();
  }, 90_000);

  it("a service's group must carry its name: investment cannot use the ledger's groups", async () => {
    const consumer = as('investment').consumer({ groupId: `ledger.${LEDGER_TOPIC}` });
    clients.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: LEDGER_TOPIC, fromBeginning: true });
    const crashed = new Promise<string>((resolve) =>
      consumer.on(consumer.events.CRASH, (e) => {
        const err = e.payload.error as { type?: string; message?: string; originalError?: unknown };
        resolve(`${err.type ?? ''} ${err.message ?? ''} ${String((err as { cause?: unknown }).cause ?? '')}`);
      }),
    );
    void consumer.run({ eachMessage: async () => undefined }).catch(() => undefined);
    // the broker answers FindCoordinator with GROUP_AUTHORIZATION_FAILED, which kafkajs reports as no
    // coordinator found (the same client found its own group's coordinator in the test before)
    expect(await crashed).toMatch(/GROUP_AUTHORIZATION_FAILED|Failed to find group coordinator/);
    await consumer.disconnect().catch(() => undefined);
  }, 60_000);

  it('a client that does not log in, or logs in with a wrong password, gets nothing', async () => {
    expect(
      await produce(
        kafkaAs({ mechanism: 'scram-sha-512', username: 'ledger', password: 'wrong' }, 'x'),
        LEDGER_TOPIC,
        'x',
      ),
    ).toMatch(/SASL|Authentication/i);
    expect(await produce(kafkaAs(undefined, 'anonymous'), LEDGER_TOPIC, 'x')).not.toBe('ok');
  }, 60_000);

  it('keeps the passwords out of the broker config but the broker’s own, which is 600', () => {
    const config = readFileSync(join(dir, 'server.properties'), 'utf8');
    for (const p of Object.values(passwords)) expect(config).not.toContain(p);
  });
});
