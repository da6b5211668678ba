/**
 * The outbox relay on a thread of its own (relayThread.ts), with the SQLite store and the embedded bus
 * file a service program builds from DATA_DIR: the thread builds its own from the same env, imports the
 * mapping by its module, publishes what this thread's store appends, answers flush and stop, and when it
 * is killed a new one takes over from the checkpoint and loses nothing. A service (startService) starts
 * its thread only with a module that exports the service's own mapping.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createInProcEventBus } from '../adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from '../adapters/serviceStore.sqlite.js';
import { createLogger } from '../logger.js';
import { topicOf } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { startService } from '../service.js';
import { testMapping } from '../testing/relayThreadMapping.js';
import { tempDir } from '../testing/tempDir.js';
import { waitFor } from '../testing/waitFor.js';
import { startOutboxRelay } from './outboxRelay.js';
import { startRelayThread } from './relayThread.js';

const dir = tempDir('meridian-relay-thread-');
afterAll(() => dir.remove());

const SERVICE = 'relaytest';
const TOPIC = topicOf(SERVICE);
const MAPPING = {
  module: new URL('../testing/relayThreadMapping.ts', import.meta.url).href,
  export: 'testMapping',
};
const logger = createLogger(SERVICE, { level: 'silent' });

/** A program's data folder: its store, and the bus file the thread publishes to (read here); closed after the test. */
function programData(name: string) {
  const dataDir = join(dir.path, name);
  const store = createSqliteServiceStore(join(dataDir, `${SERVICE}.sqlite`));
  const bus = createInProcEventBus({ path: join(dataDir, 'bus.sqlite') });
  onTestFinished(async () => {
    await bus.close();
    await store.close();
  });
  return { env: { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, store, bus };
}

let seq = 0;
/** One transaction appending `types` on a new stream; returns the events' ids. */
async function append(store: ServiceStore, types: string[]): Promise<string[]> {
  const events = await store.transaction((tx) =>
    tx.appendToStream(
      `s-${++seq}`,
      0,
      types.map((type, i) => ({ type, data: { n: i } })),
      { correlationId: 'corr' },
    ),
  );
  return events.events.map((e) => e.id);
}

/** The ids and types on the topic, read from the bus file through a reader of its own. */
async function published(
  bus: ReturnType<typeof createInProcEventBus>,
): Promise<Array<{ id: string; type: string }>> {
  const got: Array<{ id: string; type: string }> = [];
  const sub = await bus.subscribe({
    topic: TOPIC,
    group: `reader-${++seq}`,
    handler: async (e) => void got.push({ id: e.id, type: e.type }),
  });
  const size = bus.size(TOPIC);
  await waitFor(() => got.length >= size, { message: 'the reader read the topic' });
  await sub.stop();
  return got;
}

describe('outbox relay thread', () => {
  it('publishes what this thread appends, mapped by the imported module, and flush waits for it', async () => {
    const { env, store, bus } = programData('publish');
    const relay = startRelayThread({ service: SERVICE, topic: TOPIC, mapping: MAPPING, env, store, logger });
    try {
      const first = await append(store, ['Opened', 'Secret', 'Credited']);
      const second = await append(store, ['Credited']);
      await relay.flush(20_000);
      // flushed: published by the thread and committed to the bus file before flush resolved
      expect(bus.size(TOPIC)).toBe(3);
      const got = await published(bus);
      expect(got).toEqual([
        { id: first[0], type: 'PublicOpened' },
        { id: first[2], type: 'PublicCredited' },
        { id: second[0], type: 'PublicCredited' },
      ]);
      expect(await store.getCheckpoint(`outbox:${TOPIC}`)).toBe(await store.lastPosition());
      await waitFor(() => relay.isPublisher(), { message: 'the thread reports that it holds the lease' });
    } finally {
      await relay.stop();
    }
    // stopped: the lease was released, so a relay on this thread publishes at once, and only what is new
    const inline = startOutboxRelay({ store, bus, topic: TOPIC, lease: { ttlMs: 30_000 } });
    try {
      const third = await append(store, ['Closed']);
      await inline.flush(5_000);
      expect(bus.size(TOPIC)).toBe(4);
      expect((await published(bus)).map((e) => e.id)).toContain(third[0]);
      expect(relay.isPublisher()).toBe(false);
    } finally {
      await inline.stop();
    }
  }, 60_000);

  it('a thread killed mid-stream is started again and every event is published', async () => {
    const { env, store, bus } = programData('killed');
    const relay = startRelayThread({
      service: SERVICE,
      topic: TOPIC,
      mapping: MAPPING,
      env,
      store,
      logger,
      // the killed thread's lease lapses after a second (it is never released)
      relay: { lease: { ttlMs: 1_000 } },
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(...(await append(store, ['Credited', 'Credited'])));
      await relay.flush(20_000);
      const killed = relay.thread();
      expect(killed).not.toBeNull();
      // killed while appends go on: some land while no thread runs
      const appending = (async () => {
        for (let i = 0; i < 50; i++) ids.push(...(await append(store, ['Credited'])));
      })();
      await killed!.terminate();
      await appending;
      await waitFor(() => relay.thread() !== null && relay.thread() !== killed, {
        timeoutMs: 10_000,
        message: 'a new thread was started',
      });
      await relay.flush(30_000);
      const got = await published(bus);
      // at least once, never lost: every id is there; a repeat is only ever of the batch in flight (≤ 100)
      expect(new Set(got.map((e) => e.id))).toEqual(new Set(ids));
      expect(got.length - ids.length).toBeLessThanOrEqual(100);
    } finally {
      await relay.stop();
    }
  }, 90_000);

  it("a service starts its relay thread only when the module exports the service's own mapping", async () => {
    const { env, store, bus } = programData('service');
    const start = (map: typeof testMapping) =>
      startService(
        { service: SERVICE, store, bus, logger, published: { map, module: MAPPING }, relayThread: { env } },
        async () => ({ grpcAddress: '' }),
      );
    // another mapping than the module's: refused before anything starts
    await expect(start((stored) => ({ type: stored.type, data: stored.data }))).rejects.toThrow(
      "does not export the service's integration mapping as testMapping",
    );
    expect(bus.size(TOPIC)).toBe(0);
    const service = await start(testMapping);
    try {
      await append(store, ['Opened', 'Secret']);
      await service.flushOutbox(20_000);
      expect((await published(bus)).map((e) => e.type)).toEqual(['PublicOpened']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
