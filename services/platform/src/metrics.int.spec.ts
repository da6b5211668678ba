import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from './adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from './adapters/serviceStore.sqlite.js';
import { DomainError } from './eventSourcing/errors.js';
import type { StoredEvent } from './eventSourcing/types.js';
import { callUnary, type UnaryCall } from './grpc/client.js';
import { unaryHandlers } from './grpc/server.js';
import { createLogger } from './logger.js';
import { metrics, startMetricsServer, type MetricsServer } from './metrics.js';
import { deadLetterTopicOf, topicOf } from './ports/eventBus.js';
import { startService, type ServiceHandle } from './service.js';
import { jsonMethod } from './testing/jsonGrpc.js';
import { waitFor } from './testing/waitFor.js';

// A tiny JSON-serialised gRPC service (real services use ts-proto definitions).
const PingService = {
  ping: jsonMethod('meridian.metricsdemo.v1.PingService', 'Ping'),
} satisfies grpc.ServiceDefinition;
interface PingClient extends grpc.Client {
  ping: UnaryCall<{ missing?: boolean }, { pong: boolean }>;
}
const PingClient = grpc.makeGenericClientConstructor(PingService, 'PingService') as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
) => PingClient;

const logger = createLogger('metrics-test', { env: { LOG_LEVEL: 'silent' } });
const bus = createInProcEventBus({ path: ':memory:', maxAttempts: 2, retryBaseMs: 1, retryMaxMs: 2 });
const store = createSqliteServiceStore(':memory:');
const source = topicOf('metricsource');
let service: ServiceHandle;
let metricsServer: MetricsServer;
let client: PingClient;

const event = (id: string, type: string): StoredEvent => ({
  id,
  type,
  data: {},
  streamId: `s-${id}`,
  version: 1,
  position: 1,
  occurredAt: new Date().toISOString(),
  correlationId: id,
  causationId: null,
  actor: null,
});

const scrape = async () => {
  const res = await fetch(metricsServer.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
};
/** The value of one series in the exposition text (undefined when absent). */
const valueOf = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

beforeAll(async () => {
  service = await startService(
    {
      service: 'metricsdemo',
      store,
      bus,
      logger,
      consumerGroup: 'metricsdemo',
      published: { map: (e) => ({ type: e.type, data: e.data }) },
    },
    async ({ consume, serveGrpc }) => {
      await consume('metricsource', async (e) => {
        if (e.type === 'Poison') throw new Error('cannot handle this one');
      });
      const grpcAddress = await serveGrpc('127.0.0.1:0', [
        {
          definition: PingService,
          implementation: unaryHandlers({
            ping: (req: { missing?: boolean }) => {
              if (req.missing) throw new DomainError('not_found', 'no such ping');
              return { pong: true };
            },
          }),
        },
      ]);
      return { grpcAddress };
    },
  );
  metricsServer = await startMetricsServer({ port: 0, host: '127.0.0.1' });
  client = new PingClient(service.grpcAddress, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await metricsServer?.stop();
  await service?.stop();
  await bus.close();
  await store.close();
});

describe('GET /metrics of a service', () => {
  it('shows gRPC durations by method and code, consumer counts and lag, the outbox and process metrics', async () => {
    expect(await callUnary(client, 'ping', {})).toEqual({ pong: true });
    await expect(callUnary(client, 'ping', { missing: true })).rejects.toThrow();
    await bus.publish(source, [event('e1', 'Fine'), event('e2', 'Poison')]);
    await waitFor(() => bus.size(deadLetterTopicOf(source)) === 1, 'the poison event is dead-lettered');
    await store.transaction((tx) =>
      tx.appendToStream('s-1', 0, [{ type: 'Happened', data: {} }], { correlationId: 'c-1' }),
    );
    await service.flushOutbox();

    const text = await scrape();
    const grpcSeries = (code: string) =>
      `grpc_server_handling_seconds_count{grpc_service="meridian.metricsdemo.v1.PingService",grpc_method="Ping",grpc_code="${code}"}`;
    expect(valueOf(text, grpcSeries('OK'))).toBe(1);
    expect(valueOf(text, grpcSeries('NOT_FOUND'))).toBe(1);
    expect(text).toContain('# TYPE grpc_server_handling_seconds histogram');

    const pair = `group="metricsdemo",topic="${source}"`;
    expect(valueOf(text, `meridian_events_handled_total{${pair}}`)).toBe(1);
    expect(valueOf(text, `meridian_events_retried_total{${pair}}`)).toBe(1);
    expect(valueOf(text, `meridian_events_dead_lettered_total{${pair}}`)).toBe(1);
    expect(valueOf(text, `meridian_event_handling_seconds_count{${pair}}`)).toBe(1);
    expect(valueOf(text, `meridian_consumer_lag_events{${pair}}`)).toBe(0);

    const outbox = `topic="${topicOf('metricsdemo')}"`;
    expect(valueOf(text, `meridian_outbox_published_events_total{${outbox},type="Happened"}`)).toBe(1);
    expect(valueOf(text, `meridian_outbox_backlog_events{${outbox}}`)).toBe(0);
    expect(valueOf(text, `meridian_outbox_relay_lag_seconds{${outbox}}`)).toBe(0);

    // default process metrics, event-loop lag among them
    expect(valueOf(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('shows the lag of a consumer behind its topic while its handler is held', async () => {
    const topic = topicOf('metricslag');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const sub = await bus.subscribe({ topic, group: 'lagger', handler: () => held });
    try {
      await bus.publish(topic, [event('l1', 'A'), event('l2', 'B'), event('l3', 'C')]);
      expect(valueOf(await scrape(), `meridian_consumer_lag_events{group="lagger",topic="${topic}"}`)).toBe(
        3,
      );
      release();
      await waitFor(() => bus.committed('lagger', topic) === 3);
      expect(valueOf(await scrape(), `meridian_consumer_lag_events{group="lagger",topic="${topic}"}`)).toBe(
        0,
      );
    } finally {
      release();
      await sub.stop();
    }
    // a stopped subscription's series is gone
    expect(
      valueOf(await scrape(), `meridian_consumer_lag_events{group="lagger",topic="${topic}"}`),
    ).toBeUndefined();
  });

  it('gives a service its own metrics from the shared registry (get-or-create by name)', async () => {
    const sent = metrics.counter('meridian_test_things_total', 'Things.', ['outcome']);
    expect(metrics.counter('meridian_test_things_total', 'Things.', ['outcome'])).toBe(sent);
    sent.inc({ outcome: 'ok' }, 2);
    expect(valueOf(await scrape(), 'meridian_test_things_total{outcome="ok"}')).toBe(2);
  });

  it('answers 404 for anything but GET /metrics', async () => {
    const other = await fetch(metricsServer.url.replace('/metrics', '/'));
    expect(other.status).toBe(404);
    await other.text();
  });
});
