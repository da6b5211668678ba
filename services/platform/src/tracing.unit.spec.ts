import { describe, expect, it } from 'vitest';
import { traceFromHeaders, traceHeaders } from './adapters/eventEnvelope.js';
import { extractTrace, injectTrace, ROOT_CONTEXT, tracingRequested } from './tracing.js';

describe('tracingRequested (the standard OTEL_* variables)', () => {
  it.each([
    [{}, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_SERVICE_NAME: 'ledger' }, false],
  ])('%j -> %s', (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });
});

describe('the trace context in Kafka headers', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('round-trips traceparent and tracestate as kafkajs delivers them (Buffers)', () => {
    const headers = traceHeaders({ trace: { traceparent, tracestate: 'vendor=v1' } });
    expect(headers).toEqual({ traceparent, tracestate: 'vendor=v1' });
    const received = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)]));
    expect(traceFromHeaders({ 'payload-encoding': Buffer.from('proto'), ...received })).toEqual({
      traceparent,
      tracestate: 'vendor=v1',
    });
  });

  it('adds nothing for an untraced event and reads nothing from a message without the header', () => {
    expect(traceHeaders({})).toEqual({});
    expect(traceFromHeaders({ 'payload-encoding': Buffer.from('json') })).toBeUndefined();
    expect(traceFromHeaders(undefined)).toBeUndefined();
  });

  it('what is extracted is injected unchanged (a hop that does not trace passes it on)', () => {
    expect(injectTrace(extractTrace({ traceparent }, ROOT_CONTEXT))).toEqual({ traceparent });
    expect(injectTrace(extractTrace({ traceparent: 'garbage' }, ROOT_CONTEXT))).toBeUndefined();
    expect(injectTrace(ROOT_CONTEXT)).toBeUndefined();
  });
});
