/** The migration's reads: a store's documents page by page, the log's runs of one stream, a secrets file. */
import { existsSync, readFileSync } from 'node:fs';
import type { OutboxEvent, ServiceStore } from '@meridian/platform/ports/serviceStore';

export async function* allDocuments(store: ServiceStore, collection: string, page = 500) {
  for (let after = ''; ;) {
    const docs = await store.inventory!.documents(collection, after, page);
    yield* docs;
    if (docs.length < page) return;
    after = docs[docs.length - 1].id;
  }
}

/** Consecutive events of one stream appended together (one time and one metadata). */
export function runsOf(events: OutboxEvent[]): OutboxEvent[][] {
  const runs: OutboxEvent[][] = [];
  const same = (a: OutboxEvent, b: OutboxEvent) =>
    a.streamId === b.streamId &&
    a.occurredAt === b.occurredAt &&
    a.correlationId === b.correlationId &&
    a.causationId === b.causationId &&
    JSON.stringify(a.actor) === JSON.stringify(b.actor) &&
    b.version === a.version + 1;
  for (const e of events) {
    const run = runs[runs.length - 1];
    if (run && same(run[run.length - 1], e)) run.push(e);
    else runs.push([e]);
  }
  return runs;
}

export function readSecrets(file: string | undefined): Record<string, string> {
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
}
