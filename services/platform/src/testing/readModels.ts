/**
 * Read-model rebuild tests: snapshot every collection (order-free), drop them all, and replay a topic from the
 * beginning in a fresh group through a handler (a consumer's read models fed by another service's events).
 */
import { randomUUID } from 'node:crypto';
import type { StoredEvent } from '../eventSourcing/types.js';
import type { EventBus } from '../ports/eventBus.js';
import type { ServiceStore, StoreTx } from '../ports/serviceStore.js';
import { waitFor } from './waitFor.js';

/** collection name → the field its documents are keyed by. */
export type IdFields = Record<string, string>;

export async function snapshotCollections(
  store: ServiceStore,
  idOf: IdFields,
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const c of Object.keys(idOf)) {
    const docs = await store.find<Record<string, unknown>>(c);
    out[c] = docs
      .map((d) => JSON.stringify(d))
      .sort()
      .map((s) => JSON.parse(s) as unknown);
  }
  return out;
}

export async function dropCollections(store: ServiceStore, idOf: IdFields): Promise<void> {
  await store.transaction(async (tx) => {
    for (const [c, id] of Object.entries(idOf)) {
      for (const d of await tx.find<Record<string, string>>(c)) await tx.delete(c, d[id]);
    }
  });
}

/** Replays `topic` from the beginning in a fresh group through `handle` (in a store transaction) until `count` events were applied. */
export async function replayTopic(
  bus: EventBus,
  store: ServiceStore,
  topic: string,
  count: number,
  handle: (event: StoredEvent, tx: StoreTx) => Promise<void>,
): Promise<void> {
  let replayed = 0;
  const replay = await bus.subscribe({
    topic,
    group: `rebuild-${randomUUID()}`,
    fromBeginning: true,
    handler: async (event) => {
      await store.transaction((tx) => handle(event, tx));
      replayed++;
    },
  });
  try {
    await waitFor(() => replayed === count, `${topic} replayed`);
  } finally {
    await replay.stop();
  }
}
