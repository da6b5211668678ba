/**
 * The outbox relay of a service run as its own program, on a worker thread of its own: the reads of the
 * log, the derivation of each integration event, its JSON and the bus's writes (an embedded bus file, or
 * Kafka's producer) leave the event loop that serves the service's commands. A busy ledger spent a tenth
 * of its event loop relaying (bench/results/README.md).
 *
 * The thread builds its own store connection and bus from the program's env (createServiceRuntime, the
 * same adapters the program chose) and runs startOutboxRelay on them, with the service's mapping imported
 * from its module (a function cannot cross to a thread). Everything the relay guarantees still holds, as
 * it is the same relay: the lease elects one publisher among the replicas (the thread takes it as the
 * program's relay did), the checkpoint is fenced, a crash republishes at most the batch in flight.
 *
 * This side: every commit of the program's store that appended wakes the thread (one message per turn of
 * the event loop, however many commits); `flush` and `stop` are asked of the thread and answered by it; the
 * backlog and lag gauges are measured here (the thread's metric registry is never scraped) and the
 * thread reports what it published for the counter. A thread that dies (an error it did not catch) is
 * started again, with backoff, until the relay is stopped: its lease lapses or is released, and the new
 * one takes it and goes on from the checkpoint.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { backoffMs } from '../util/async.js';
import type { MappingModule } from './integrationEvents.js';
import { countPublished, measureOutbox, type OutboxRelay, type OutboxRelayOptions } from './outboxRelay.js';

export interface RelayThreadOptions {
  /** The service: its topic is topicOf(service); the thread's adapters are the service's. */
  service: string;
  topic: string;
  mapping: MappingModule;
  /** The env the thread builds its store and bus from (the program's). */
  env: Record<string, string | undefined>;
  /** The program's store: its appends wake the thread; the gauges read it. */
  store: ServiceStore;
  logger: Logger;
  /** Relay tuning (tests): the lease and the poll of the log. */
  relay?: Pick<OutboxRelayOptions, 'lease' | 'pollIntervalMs'>;
}

/** `.js` for a built module, `.ts` for a source run under tsx: the extension of its siblings. */
function sourceExtension(moduleUrl: string): string {
  return moduleUrl.endsWith('.js') ? '.js' : '.ts';
}

/** Messages to the thread. */
export type ToRelayThread =
  | { op: 'appended' }
  | { op: 'flush'; id: number; timeoutMs?: number }
  | { op: 'stop'; id: number; release?: boolean };
/** Messages from the thread. */
export type FromRelayThread =
  | { op: 'ready' }
  | { op: 'done'; id: number; error?: string }
  | { op: 'published'; types: string[] }
  | { op: 'publisher'; held: boolean };

const ENTRY = new URL(`./relayThread.worker${sourceExtension(import.meta.url)}`, import.meta.url).href;
/**
 * The thread's bootstrap: TypeScript sources need tsx's loader, which a worker does not take from the
 * program's `--import tsx` (privatenumber/tsx#354), so it is registered in the thread before the entry.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();
`;
/** tsx's ESM API (its "import" entry, beside the "require" one that resolves here). */
const TSX_API = ENTRY.endsWith('.ts')
  ? pathToFileURL(
      createRequire(import.meta.url)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs'),
    ).href
  : null;

/** The thread's relay, seen from the program. `thread()`: the worker now running (tests kill it). */
export function startRelayThread(options: RelayThreadOptions): OutboxRelay & { thread(): Worker | null } {
  const { logger, topic } = options;
  let worker: Worker | null = null;
  let stopping = false;
  let held = false;
  let seq = 0;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  const pending = new Map<number, { resolve(): void; reject(err: Error): void }>();
  let wakeQueued = false;

  const spawn = () => {
    const w = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: {
        entry: ENTRY,
        tsx: TSX_API,
        service: options.service,
        topic,
        mapping: options.mapping,
        relay: options.relay ?? {},
      },
      // the program's adapters; the program's checkpointer thread already checkpoints the store's file
      env: { ...options.env, MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT: '0' },
    });
    worker = w;
    w.on('message', (m: FromRelayThread) => {
      if (m.op === 'ready') failures = 0;
      else if (m.op === 'published')
        countPublished(
          topic,
          m.types.map((type) => ({ type })),
        );
      else if (m.op === 'publisher') held = m.held;
      else if (m.op === 'done') {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error === undefined) p?.resolve();
        else p?.reject(new Error(m.error));
      }
    });
    w.on('error', (err) => logger.error({ err }, `${options.service} outbox relay thread failed`));
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      held = false;
      for (const [, p] of pending) p.reject(new Error(`outbox relay thread exited (code ${code})`));
      pending.clear();
      if (stopping) return;
      failures++;
      const delay = backoffMs(failures, 100, 5_000);
      logger.error({ code, restartInMs: delay }, `${options.service} outbox relay thread exited; restarting`);
      restartTimer = setTimeout(() => {
        if (!stopping) spawn();
      }, delay);
    });
  };

  const ask = (message: { op: 'flush'; timeoutMs?: number } | { op: 'stop'; release?: boolean }) =>
    new Promise<void>((resolve, reject) => {
      if (!worker) return reject(new Error('outbox relay thread is not running'));
      const id = ++seq;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id } satisfies ToRelayThread);
    });

  const unlisten = options.store.onAppended(() => {
    if (wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      worker?.postMessage({ op: 'appended' } satisfies ToRelayThread);
    });
  });
  const unmeasure = measureOutbox(options.store, topic);
  spawn();

  return {
    async flush(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      // a thread being restarted is waited for (what it has not published, the next one will)
      while (!worker) {
        if (stopping) throw new Error('outbox relay stopped');
        if (Date.now() > deadline) throw new Error(`outbox relay thread not running within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await ask({ op: 'flush', timeoutMs: Math.max(1, deadline - Date.now()) });
    },
    async stop(stopOptions = {}) {
      if (stopping) return;
      stopping = true;
      clearTimeout(restartTimer);
      unlisten();
      unmeasure();
      const w = worker;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      try {
        await ask({ op: 'stop', release: stopOptions.release });
      } catch (err) {
        logger.warn({ err }, `${options.service} outbox relay thread did not stop cleanly`);
      }
      // stopped and closed: the thread ends by itself (ended here if something of it lingers)
      const lingering = setTimeout(() => void w.terminate(), 5_000);
      await exited;
      clearTimeout(lingering);
    },
    isPublisher: () => !stopping && held,
    thread: () => worker,
  };
}
