/**
 * scripts/migrate.ts on stores made through the port (no services, no broker): standalone to standalone
 * carries every log at its positions with each event's time, metadata and recorded integration event, the
 * documents, markers and checkpoints, the key vault and the bus's topics; a second run appends, copies and
 * publishes nothing; a target holding other data, or other secrets beside data, is refused. The whole path to
 * a cluster (a SIGKILLed run, Kafka, the services started on the result) is tests/cluster/migrate.int.spec.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { createSqlitePersonalDataKeys, personalDataKeysPath } from '@meridian/identity';
import { DOCUMENTS_CHECKPOINT, EVENTS_CHECKPOINT, MIGRATED_SERVICES, migrate } from '../scripts/migrate.js';

const work = mkdtempSync(join(tmpdir(), 'meridian-migrate-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SECRETS = {
  JWT_SECRET: 'jwt-secret-of-the-source',
  SECRETS_KEY: 'ab'.repeat(32),
  KYC_INTERNAL_TOKEN: 'kyc-token',
  INTERNAL_SERVICE_TOKEN: 'service-token',
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'Admin-Passw0rd!',
};

/** A target folder under the work dir whose `service` store holds one event of its own (`secrets` beside it when given). */
async function targetWithData(target: {
  name: string;
  service: string;
  streamId: string;
  secrets?: typeof SECRETS;
}): Promise<string> {
  const dir = join(work, target.name);
  mkdirSync(dir);
  if (target.secrets) writeFileSync(join(dir, 'secrets.json'), JSON.stringify(target.secrets));
  const store = createSqliteServiceStore(join(dir, `${target.service}.sqlite`));
  await store.transaction((tx) =>
    tx.appendToStream(target.streamId, 0, [{ type: 'Foreign', data: {} }], { correlationId: 'c' }),
  );
  await store.close();
  return dir;
}

/** A standalone folder written through the port: two streams interleaved per service, documents, a marker. */
async function makeSource(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify(SECRETS));
  let now = new Date('2026-01-02T03:04:05.000Z');
  for (const service of MIGRATED_SERVICES) {
    const store = createSqliteServiceStore(join(dir, `${service}.sqlite`), { clock: () => now });
    for (let i = 1; i <= 3; i++) {
      now = new Date(now.getTime() + 1000);
      await store.transaction(async (tx) => {
        await tx.appendToStream(
          `${service}-a`,
          2 * (i - 1),
          [
            { type: 'Happened', data: { i } },
            { type: 'Followed', data: { i } },
          ],
          { correlationId: `c-${i}`, causationId: `cmd-${i}`, actor: { userId: 'u1', role: 'admin' } },
          { integrations: [{ type: 'Published', data: { i } }, null] },
        );
        await tx.appendToStream(`${service}-b`, 'any', [{ type: 'Other', data: { i } }], {
          correlationId: 'x',
        });
        await tx.put('views', `v${i}`, { i, service });
        await tx.markProcessed('consumer', `event-${i}`);
        await tx.setCheckpoint('relay', i * 3);
      });
    }
    await store.close();
  }
  const vault = createSqlitePersonalDataKeys(personalDataKeysPath(dir));
  await vault.findOrCreate('u1');
  await vault.findOrCreate('u2');
  await vault.destroy('u2');
  vault.close();
  const bus = createInProcEventBus({ path: join(dir, 'bus.sqlite'), pollIntervalMs: 0 });
  const event = (id: string): StoredEvent => ({
    id,
    type: 'UserRegistered',
    data: { userId: 'u1' },
    streamId: 'user-u1',
    version: 1,
    position: 1,
    occurredAt: now.toISOString(),
    correlationId: 'c',
    causationId: null,
    actor: null,
  });
  await bus.publish(topicOf('identity'), [event('e1'), event('e2')]);
  await bus.close();
}

async function logOf(path: string) {
  const store = createSqliteServiceStore(path);
  try {
    return {
      events: await store.readAll(0, 1000),
      documents: await store.inventory!.documents('views', '', 100),
      processed: await store.inventory!.processed(null, 100),
      checkpoints: await store.inventory!.checkpoints(),
    };
  } finally {
    await store.close();
  }
}

describe('make migrate between two standalone folders (through the port)', () => {
  const source = join(work, 'source');
  const target = join(work, 'target');
  const quiet = () => undefined;

  it('carries every log at its positions, the documents, markers, checkpoints, the vault and the topics', async () => {
    await makeSource(source);
    const report = await migrate({
      from: `standalone:${source}`,
      to: `standalone:${target}`,
      pageSize: 2,
      log: quiet,
    });
    expect(report.events.ledger).toBe(9);
    expect(report.documents.ledger).toBe(3);
    expect(report.keys).toBe(1);
    expect(report.published[topicOf('identity')]).toBe(2);
    for (const service of MIGRATED_SERVICES) {
      const from = await logOf(join(source, `${service}.sqlite`));
      const to = await logOf(join(target, `${service}.sqlite`));
      expect(to.events, service).toEqual(from.events);
      expect(to.events[0]).toMatchObject({
        // the source's time, not the migration's
        occurredAt: expect.stringMatching(/^2026-01-02T03:04:/),
        causationId: 'cmd-1',
        actor: { userId: 'u1', role: 'admin' },
        integration: { type: 'Published', data: { i: 1 } },
      });
      expect(to.documents).toEqual(from.documents);
      expect(to.processed).toEqual(from.processed);
      expect(to.checkpoints).toEqual([
        { name: DOCUMENTS_CHECKPOINT, position: 1 },
        { name: EVENTS_CHECKPOINT, position: 9 },
        { name: 'relay', position: 9 },
      ]);
    }
    const keysOf = async (dir: string) => {
      const vault = createSqlitePersonalDataKeys(personalDataKeysPath(dir));
      try {
        return { u1: await vault.find('u1'), u2: await vault.find('u2') };
      } finally {
        vault.close();
      }
    };
    const keys = await keysOf(target);
    expect(keys.u1).toEqual((await keysOf(source)).u1);
    expect(keys.u2).toBeNull();
    // the tombstone came along: no new key for the deleted user
    const vault = createSqlitePersonalDataKeys(personalDataKeysPath(target));
    await expect(vault.findOrCreate('u2')).rejects.toThrow(/deleted/);
    vault.close();
    const bus = createInProcEventBus({ path: join(target, 'bus.sqlite'), pollIntervalMs: 0 });
    expect(bus.size(topicOf('identity'))).toBe(2);
    await bus.close();
  });

  it('a second run changes nothing', async () => {
    const report = await migrate({ from: `standalone:${source}`, to: `standalone:${target}`, log: quiet });
    expect(Object.values(report.events)).toEqual(MIGRATED_SERVICES.map(() => 0));
    expect(Object.values(report.documents)).toEqual(MIGRATED_SERVICES.map(() => 0));
    expect(Object.values(report.published).every((n) => n === 0)).toBe(true);
    const bus = createInProcEventBus({ path: join(target, 'bus.sqlite'), pollIntervalMs: 0 });
    expect(bus.size(topicOf('identity'))).toBe(2);
    await bus.close();
  });

  it.each([
    {
      title: 'refuses a target whose log is another one',
      target: { name: 'other', service: 'identity', streamId: 'identity-a' },
      refusal: /holds other data/,
    },
    {
      title: 'refuses a target with other secrets and data of its own, and says which',
      target: {
        name: 'secrets-differ',
        service: 'ledger',
        streamId: 'x',
        secrets: { ...SECRETS, JWT_SECRET: 'another' },
      },
      refusal: /JWT_SECRET differ from the source's and its ledger store has data/,
    },
  ])('$title', async ({ target, refusal }) => {
    const other = await targetWithData(target);
    await expect(
      migrate({ from: `standalone:${source}`, to: `standalone:${other}`, log: quiet }),
    ).rejects.toThrow(refusal);
  });

  it('names the endpoints it understands and the sources it reads', async () => {
    await expect(migrate({ from: `standalone:${source}`, to: 'elsewhere', log: quiet })).rejects.toThrow(
      /expected standalone:<dataDir>, cluster:<dataDir> or mongo:<mongodb url>/,
    );
    // the topics are read from a standalone's bus: another source is refused before anything is written
    await expect(
      migrate({
        from: `cluster:${join(work, 'a-cluster')}`,
        to: `standalone:${join(work, 'back')}`,
        log: quiet,
      }),
    ).rejects.toThrow(/FROM must be a standalone .*from cluster is not supported yet/);
  });
});
