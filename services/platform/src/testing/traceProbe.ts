/**
 * What the tracing specs of the gRPC transports share (tracing.int.spec.ts over the wire,
 * grpc/inProcess.int.spec.ts in process): a Whoami handler answering the trace id it runs under and
 * the traceparent it received, a remote trace context to call it in, the in-memory exporter for the
 * tests of one describe, and the check that a call is a CLIENT span with the handler's SERVER span under it.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { CallContext } from '../grpc/server.js';
import {
  activeTraceIds,
  extractTrace,
  installTestTracing,
  ROOT_CONTEXT,
  runInContext,
  SpanKind,
  type TestTracing,
} from '../tracing.js';
import { waitFor } from './waitFor.js';

/** What Whoami answers: the trace id its handler runs under and the traceparent it received (absent: none). */
export interface Whoami {
  traceId?: string;
  traceparent?: string;
}

/** The Whoami handler. */
export async function whoami(_req: object, ctx: CallContext): Promise<Whoami> {
  const tp = ctx.metadata.get('traceparent')[0];
  return { traceId: activeTraceIds()?.trace_id, traceparent: typeof tp === 'string' ? tp : undefined };
}

const hex = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');

/** A trace context as an upstream caller's traceparent gives it (a fresh trace id each time). */
export function remoteTrace() {
  const traceId = hex(32);
  const traceparent = `00-${traceId}-${hex(16)}-01`;
  return { traceId, traceparent, ctx: extractTrace({ traceparent }, ROOT_CONTEXT) };
}

/**
 * Tracing on with the in-memory exporter for the tests of the describe this is called in: installed
 * before them, emptied after each, removed after them. The exporter's finished spans.
 */
export function tracingPerTest(): Pick<TestTracing, 'spans'> {
  let tracing: TestTracing | undefined;
  beforeAll(() => {
    tracing = installTestTracing();
  });
  afterEach(() => tracing?.reset());
  afterAll(() => tracing?.stop());
  return {
    spans: () => {
      if (!tracing) throw new Error('tracingPerTest: no test is running');
      return tracing.spans();
    },
  };
}

/**
 * `call` (Whoami) made in a remote trace context: the handler runs in that trace, the call is a CLIENT
 * span named `method` with the SERVER span of the same name under it, and the traceparent the server
 * received names the CLIENT span.
 */
export async function expectCallSpans(
  tracing: Pick<TestTracing, 'spans'>,
  method: string,
  call: () => Promise<Whoami>,
): Promise<void> {
  const { traceId, ctx } = remoteTrace();
  const res = await runInContext(ctx, call);
  expect(res.traceId).toBe(traceId);
  const spans = await waitFor(() => (tracing.spans().length >= 2 ? tracing.spans() : null));
  const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT)!;
  const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER)!;
  expect(clientSpan.name).toBe(method);
  expect(serverSpan.name).toBe(method);
  expect(clientSpan.spanContext().traceId).toBe(traceId);
  expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
  expect(res.traceparent).toBe(`00-${traceId}-${clientSpan.spanContext().spanId}-01`);
}
