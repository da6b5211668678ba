/**
 * The relay thread (relayThread.ts): the program's store and bus built again from its env, the service's
 * mapping imported, and startOutboxRelay run on them; woken by the program's appends, it answers its
 * flush and stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createMemoryKeyValueStore } from '../adapters/keyValue.memory.js';
import { topicOf } from '../ports/eventBus.js';
import type { ServiceStore } from '../ports/serviceStore.js';
import { createServiceRuntime } from '../runtime.js';
import { startTracingFromEnv } from '../tracing.js';
import { appendListeners } from '../adapters/storeShared.js';
import type { IntegrationMapping } from './integrationEvents.js';
import { startOutboxRelay } from './outboxRelay.js';
import type { FromRelayThread, RelayThreadOptions, ToRelayThread } from './relayThread.js';

const data = workerData as Pick<RelayThreadOptions, 'service' | 'topic' | 'mapping' | 'relay'>;
const port = parentPort;
if (!port) throw new Error('relayThread.worker runs as a worker thread');
const post = (m: FromRelayThread) => port.postMessage(m);

// no Redis connection: the relay needs none
const runtime = await createServiceRuntime(data.service, process.env, { kv: createMemoryKeyValueStore() });
const tracing = startTracingFromEnv(data.service);
const mapping = (await import(data.mapping.module))[data.mapping.export] as IntegrationMapping | undefined;
if (typeof mapping !== 'function')
  throw new Error(`${data.mapping.module} has no integration mapping named ${data.mapping.export}`);

/** The program's appends (its messages) wake the relay, as the store's own onAppended would in-process. */
const wakes = appendListeners();
const store: ServiceStore = new Proxy(runtime.store, {
  get: (target, key, receiver) =>
    key === 'onAppended' ? (listener: () => void) => wakes.add(listener) : Reflect.get(target, key, receiver),
});
const relay = startOutboxRelay({
  store,
  bus: runtime.bus,
  topic: data.topic ?? topicOf(data.service),
  map: (event) => mapping(event, runtime.store),
  onError: (err, attempt) =>
    runtime.logger.warn({ err, attempt }, `${data.service} outbox relay failed; retrying`),
  measure: false,
  onPublished: (events) => post({ op: 'published', types: events.map((e) => e.type) }),
  ...(data.relay?.lease !== undefined ? { lease: data.relay.lease } : {}),
  ...(data.relay?.pollIntervalMs !== undefined ? { pollIntervalMs: data.relay.pollIntervalMs } : {}),
});

let held = false;
const watch = setInterval(() => {
  if (relay.isPublisher() !== held) post({ op: 'publisher', held: (held = relay.isPublisher()) });
}, 100);

port.on('message', (m: ToRelayThread) => {
  if (m.op === 'appended') wakes.notify();
  else if (m.op === 'flush')
    relay.flush(m.timeoutMs).then(
      () => post({ op: 'done', id: m.id }),
      (err: unknown) => post({ op: 'done', id: m.id, error: String((err as Error)?.message ?? err) }),
    );
  else if (m.op === 'stop') {
    clearInterval(watch);
    void (async () => {
      let error: string | undefined;
      try {
        await relay.stop({ release: m.release });
        await runtime.close();
        await tracing?.stop();
      } catch (err) {
        error = String((err as Error)?.message ?? err);
      }
      post({ op: 'done', id: m.id, ...(error !== undefined ? { error } : {}) });
      port.close();
    })();
  }
});
post({ op: 'ready' });
