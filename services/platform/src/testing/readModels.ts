/**
 * Read-model rebuild tests: snapshot every collection (order-free), drop them all, project them again
 * from the events alone — a service's own log (store.readAll from position 0) through its projections,
 * and other services' topics replayed from the beginning in a fresh group through the handler the live
 * consumer uses (e.g. the user directory fed by identity's events) — and snapshot again, to compare.
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

/** A one-document-per-entity read model of one kind of stream (the command handler's ProjectedStream). */
export interface LogProjection {
  streamIdOf(id: string): string;
  collection: string;
  project(doc: any, event: StoredEvent<any>): object | null;
}

/**
 * Projects a dropped collection again from the service's own log alone (store.readAll from position 0,
 * the streams of `projection`'s kind), in one transaction. Returns how many entities it saw.
 */
export async function rebuildFromLog(
  store: ServiceStore,
  projection: LogProjection,
  pageSize = 500,
): Promise<number> {
  const prefix = projection.streamIdOf('');
  const docs = new Map<string, object | null>();
  for (let after = 0; ;) {
    const page = await store.readAll(after, pageSize);
    for (const e of page) {
      if (!e.streamId.startsWith(prefix)) continue;
      const id = e.streamId.slice(prefix.length);
      docs.set(id, projection.project(docs.get(id) ?? null, e));
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1].position;
  }
  await store.transaction(async (tx) => {
    for (const [id, doc] of docs) if (doc) await tx.put(projection.collection, id, doc);
  });
  return docs.size;
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
