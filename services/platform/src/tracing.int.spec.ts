/**
 * Tracing plumbing of the platform (tracing.ts): the trace context across gRPC (client and server
 * interceptors) and across the outbox and the bus (recorded at append, published, handed to the
 * consumer), first with tracing OFF (an inbound traceparent passes through, nothing is added without
 * one), then ON with the in-memory exporter (spans, parents, log lines with trace_id).
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from './adapters/eventBus.inproc.js';
import { createSqliteServiceStore } from './adapters/serviceStore.sqlite.js';
import { subscribeIdempotent } from './app/consumer.js';
import { withIntegrationEvents } from './app/integrationEvents.js';
import { startOutboxRelay } from './app/outboxRelay.js';
import type { StoredEvent } from './eventSourcing/types.js';
import { callUnary, createGrpcClient, type UnaryCall } from './grpc/client.js';
import type { GrpcServerHandle } from './grpc/server.js';
import { createLogger, withCorrelation } from './logger.js';
import { jsonMethod, startTestGrpcServer } from './testing/jsonGrpc.js';
import { captureLog } from './testing/logCapture.js';
import { waitFor } from './testing/waitFor.js';
import { expectCallSpans, remoteTrace, tracingPerTest, whoami, type Whoami } from './testing/traceProbe.js';
import { activeTraceIds, inSpan, runInContext, SpanKind, tracingEnabled } from './tracing.js';

const TestService = {
  whoami: jsonMethod('meridian.test.v1.TraceService', 'Whoami'),
} satisfies grpc.ServiceDefinition;
interface TestClient extends grpc.Client {
  whoami: UnaryCall<object, Whoami>;
}
const TestClient = grpc.makeGenericClientConstructor(TestService, 'TraceService') as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => TestClient;

let server: GrpcServerHandle;
let client: TestClient;

beforeAll(async () => {
  server = await startTestGrpcServer(TestService, {
    whoami,
  });
  client = createGrpcClient(TestClient, server.address);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
});

/** A store + in-process bus + relay + idempotent consumer: what each handled event carried. */
async function outboxFlow() {
  const store = withIntegrationEvents(createSqliteServiceStore(':memory:'), (e) => ({
    type: e.type,
    data: e.data,
  }));
  const bus = createInProcEventBus({ path: ':memory:' });
  const relay = startOutboxRelay({ store, bus, topic: 'meridian.test.events', lease: false });
  const seen: Array<{ event: StoredEvent; traceId?: string }> = [];
  const sub = await subscribeIdempotent({
    bus,
    store: createSqliteServiceStore(':memory:'),
    topic: 'meridian.test.events',
    group: 'tester',
    handle: async (event) => void seen.push({ event, traceId: activeTraceIds()?.trace_id }),
  });
  const append = (id: string) =>
    store.transaction((tx) =>
      tx.appendToStream(`s-${id}`, 0, [{ type: 'Happened', data: { id }, id }], { correlationId: 'c' }),
    );
  return {
    store,
    append,
    handled: (id: string) => waitFor(() => seen.find((s) => s.event.id === id), `event ${id} handled`),
    async stop() {
      await sub.stop();
      await relay.stop();
      await bus.close();
      await store.close();
    },
  };
}

describe('tracing off (the default)', () => {
  it('is off, and a call without a trace context sends none and runs without one', async () => {
    expect(tracingEnabled()).toBe(false);
    const res = await callUnary(client, 'whoami', {});
    expect(res).toEqual({});
  });

  it('passes an inbound traceparent on through gRPC unchanged', async () => {
    const { traceId, traceparent, ctx } = remoteTrace();
    const res = await runInContext(ctx, () => callUnary(client, 'whoami', {}));
    expect(res).toEqual({ traceId, traceparent });
  });

  it('passes it through the outbox and the bus to the consumer; without one nothing is recorded', async () => {
    const flow = await outboxFlow();
    try {
      const { traceId, traceparent, ctx } = remoteTrace();
      await runInContext(ctx, () => flow.append('traced'));
      await flow.append('plain');
      const [recorded, plain] = await flow.store.readAll(0, 10);
      expect(recorded.integration).toEqual({
        type: 'Happened',
        data: { id: 'traced' },
        trace: { traceparent },
      });
      expect(plain.integration).toEqual({ type: 'Happened', data: { id: 'plain' } });
      const traced = await flow.handled('traced');
      expect(traced.event.trace).toEqual({ traceparent });
      expect(traced.traceId).toBe(traceId);
      const untraced = await flow.handled('plain');
      expect(untraced.event.trace).toBeUndefined();
      expect(untraced.traceId).toBeUndefined();
    } finally {
      await flow.stop();
    }
  });
});

describe('tracing on (in-memory exporter)', () => {
  const tracing = tracingPerTest();

  it('a gRPC call is a CLIENT span and a SERVER span under it, the handler runs in the server span', async () => {
    await expectCallSpans(tracing, 'meridian.test.v1.TraceService/Whoami', () =>
      callUnary(client, 'whoami', {}),
    );
  });

  it('an append in a span is published in a PRODUCER span and consumed in a CONSUMER span under it', async () => {
    const flow = await outboxFlow();
    try {
      let appendSpan = '';
      await inSpan('command', {}, async (span) => {
        appendSpan = span!.spanContext().spanId;
        await flow.append('e1');
      });
      const handled = await flow.handled('e1');
      const spans = await waitFor(() => {
        const all = tracing.spans();
        return all.some((s) => s.kind === SpanKind.CONSUMER) ? all : null;
      });
      const producer = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
      const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
      expect(producer.name).toBe('publish meridian.test.events');
      expect(producer.parentSpanContext?.spanId).toBe(appendSpan);
      expect(consumer.name).toBe('process meridian.test.events');
      expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
      expect(consumer.attributes['messaging.consumer.group.name']).toBe('tester');
      expect(handled.traceId).toBe(consumer.spanContext().traceId);
    } finally {
      await flow.stop();
    }
  });

  it('log lines carry trace_id and span_id next to the correlation id', async () => {
    const { lines, destination } = captureLog();
    const logger = createLogger('test', { level: 'info', destination });
    logger.info('outside');
    let ids: { traceId: string; spanId: string } | undefined;
    await withCorrelation('corr-1', () =>
      inSpan('work', {}, async (span) => {
        ids = { traceId: span!.spanContext().traceId, spanId: span!.spanContext().spanId };
        logger.info('inside');
        logger.child({ part: 'x' }).info('child');
      }),
    );
    await waitFor(() => lines.length === 3);
    expect(lines[0]).not.toHaveProperty('trace_id');
    for (const line of lines.slice(1))
      expect(line).toMatchObject({ correlationId: 'corr-1', trace_id: ids!.traceId, span_id: ids!.spanId });
  });
});
