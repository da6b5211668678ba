/**
 * OpenTelemetry traces, by hand (no auto-instrumentation): one trace follows a request from the
 * gateway's HTTP server span through gRPC calls, the outbox (the trace context is recorded with each
 * integration event when it is appended), the bus (Kafka headers `traceparent`/`tracestate`, the
 * in-process log's JSON) and the consumers that react (a CONSUMER span each), down to the email sent
 * and the socket push.
 *
 * Off by default. `startTracingFromEnv` installs a tracer provider (BatchSpanProcessor + OTLP over
 * HTTP, configured by the standard OTEL_EXPORTER_OTLP_* variables) only when OTEL_TRACES_EXPORTER=otlp
 * or an OTLP endpoint is set, and OTEL_SDK_DISABLED is not `true`; service.name is OTEL_SERVICE_NAME or
 * the service's name. Tests install an in-memory exporter with `installTestTracing`.
 *
 * When off: no span is created, nothing is exported, and a hop with no inbound trace context does
 * nothing more than a check (no header, no column value is written). A hop that RECEIVES a
 * traceparent still passes it on unchanged (gRPC metadata, the outbox, the bus), so a trace started
 * upstream is not broken by a service that does not trace; its log lines then carry that trace id.
 * The context manager (AsyncLocalStorage) is installed the first time a context is entered.
 */
import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { tracingEnvFrom } from './config.js';
import type { TraceCarrier } from './eventSourcing/types.js';

export { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes, type Context, type Span };

export type { ReadableSpan, TraceCarrier };

const TRACER_NAME = '@meridian/platform';
const propagator = new W3CTraceContextPropagator();

let provider: BasicTracerProvider | null = null;
let tracerOf: Tracer | null = null;
let contextReady = false;

/** Installs the AsyncLocalStorage context manager once (without it the API has no active context). */
function ensureContextManager(): void {
  if (contextReady) return;
  contextReady = true;
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(manager)) manager.disable(); // someone registered one already
}

/** Whether spans are recorded (a provider is installed). */
export const tracingEnabled = (): boolean => provider !== null;

/** The tracer spans are started with (the API's no-op tracer when off). */
export function tracer(): Tracer {
  return tracerOf ?? trace.getTracer(TRACER_NAME);
}

function install(next: BasicTracerProvider): void {
  ensureContextManager();
  provider = next;
  tracerOf = next.getTracer(TRACER_NAME);
}

async function uninstall(which: BasicTracerProvider): Promise<void> {
  if (provider === which) {
    provider = null;
    tracerOf = null;
  }
  await which.shutdown();
}

export interface TracingHandle {
  /** Exports what is buffered and shuts the provider down. */
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Whether the OTEL_* variables ask for traces to be exported (see the module comment). */
export function tracingRequested(env: Env = process.env): boolean {
  const otel = tracingEnvFrom(env);
  if (otel.disabled || otel.exporters.includes('none')) return false;
  return otel.exporters.includes('otlp') || otel.endpoint !== undefined;
}

/**
 * Starts exporting traces over OTLP/HTTP when the environment asks for it (tracingRequested), else
 * returns null and tracing stays off. One provider per process (the standalone's services share it).
 */
export function startTracingFromEnv(service: string, env: Env = process.env): TracingHandle | null {
  if (provider || !tracingRequested(env)) return null;
  const serviceName = tracingEnvFrom(env).serviceName ?? service;
  const exporter = new OTLPTraceExporter();
  const next = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  install(next);
  let stopped: Promise<void> | undefined;
  return { stop: () => (stopped ??= uninstall(next)) };
}

export interface TestTracing extends TracingHandle {
  exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  reset(): void;
}

/** Tests: records every span in memory (SimpleSpanProcessor: a span is there once it ended). */
export function installTestTracing(service = 'test'): TestTracing {
  if (provider) throw new Error('a tracer provider is already installed');
  const exporter = new InMemorySpanExporter();
  const next = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  install(next);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    stop: () => uninstall(next),
  };
}

const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = carrier[key];
    if (typeof v === 'string') return v;
    if (Buffer.isBuffer(v)) return v.toString('utf8');
    if (Array.isArray(v)) return v.map(String);
    return undefined;
  },
};

/**
 * The context carried by `carrier` (headers, metadata, a recorded TraceCarrier): a remote parent on
 * top of `base`, or `base` itself when there is no valid traceparent. Cheap when there is none.
 */
export function extractTrace(
  carrier: TraceCarrier | Record<string, unknown> | null | undefined,
  base: Context = context.active(),
): Context {
  if (!carrier) return base;
  return propagator.extract(base, carrier, recordGetter);
}

/**
 * The trace context to send on (traceparent and tracestate of the span active in `ctx`), or undefined
 * when there is none: nothing to serialise.
 */
export function injectTrace(ctx: Context = context.active()): TraceCarrier | undefined {
  const span = trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return undefined;
  const out: Record<string, string> = {};
  propagator.inject(ctx, out, { set: (c, k, v) => void (c[k] = v) });
  return out.traceparent ? (out as unknown as TraceCarrier) : undefined;
}

/** trace_id / span_id of the active span, for log lines (undefined outside any trace). */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!contextReady) return undefined;
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/** `ctx` with `span` as its active span. */
export const contextWithSpan = (ctx: Context, span: Span): Context => trace.setSpan(ctx, span);

/** Runs fn with `ctx` as the active context. */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  ensureContextManager();
  return context.with(ctx, fn);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (default: the active context). */
  parent?: Context;
}

/**
 * Runs fn inside a new span (ended when fn settles; a throw is recorded as the span's error). When
 * tracing is off no span is made: fn runs in `parent` when one is given (a remote parent passes
 * through), else as it is.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T> | T,
): Promise<T> {
  if (!tracerOf) return options.parent ? runInContext(options.parent, () => fn(undefined)) : fn(undefined);
  const parent = options.parent ?? context.active();
  const span = tracerOf.startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  try {
    return await runInContext(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Records an error on a span and marks it failed. */
export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
}

/** Attributes of a span about one event on the bus (messaging semantic conventions). */
export function messagingAttributes(
  topic: string,
  event: { id: string; type: string },
  operation: 'publish' | 'process',
  group?: string,
): Attributes {
  return {
    'messaging.system': 'meridian',
    'messaging.operation.type': operation,
    'messaging.destination.name': topic,
    'messaging.message.id': event.id,
    'meridian.event.type': event.type,
    ...(group ? { 'messaging.consumer.group.name': group } : {}),
  };
}

/**
 * A consumer's handling of one bus event: a CONSUMER span `process <topic>`, child of the context the
 * event carries (its producer's span), around fn. Off: fn runs in the carried context (pass-through).
 */
export function consumeTraced<T>(
  topic: string,
  group: string,
  event: { id: string; type: string; trace?: TraceCarrier },
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracerOf && !event.trace) return fn();
  const parent = extractTrace(event.trace, ROOT_CONTEXT);
  return inSpan(
    `process ${topic}`,
    { kind: SpanKind.CONSUMER, parent, attributes: messagingAttributes(topic, event, 'process', group) },
    fn,
  );
}
