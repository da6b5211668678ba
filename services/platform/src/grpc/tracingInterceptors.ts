/**
 * W3C trace context over gRPC (tracing.ts): the client interceptor starts a CLIENT span per call and
 * sends its `traceparent` / `tracestate` in the metadata; the server interceptor extracts them, starts
 * a SERVER span and runs the handler inside it (so its log lines, appends and outgoing calls join the
 * trace). Tracing off: an inbound context is still passed on; a call without one costs a check.
 */
import * as grpc from '@grpc/grpc-js';
import {
  context,
  contextWithSpan,
  extractTrace,
  failSpan,
  injectTrace,
  ROOT_CONTEXT,
  runInContext,
  SpanKind,
  SpanStatusCode,
  tracer,
  tracingEnabled,
  type Attributes,
  type Context,
  type Span,
  type TraceCarrier,
} from '../tracing.js';

/** A call's span name and rpc.* attributes from its method path (also the in-process transport's). */
export function rpcAttributes(path: string): { name: string; attributes: Attributes } {
  const [, service = 'unknown', method = 'unknown'] = path.split('/');
  return {
    name: `${service}/${method}`,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
  };
}

/** Sends a trace context in the call's metadata. */
export function setCarrier(metadata: grpc.Metadata, carrier: TraceCarrier): void {
  metadata.set('traceparent', carrier.traceparent);
  if (carrier.tracestate) metadata.set('tracestate', carrier.tracestate);
}

/** Ends a call's span with its gRPC status. */
export function endWithStatus(span: Span, code: grpc.status, details: string): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (code !== grpc.status.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: details });
  span.end();
}

/**
 * A call's CLIENT span (child of the active context) and the trace context it sends; tracing off: no
 * span, and the active context's, if any, passed on unchanged. Also the in-process transport's.
 */
export function startClientSpan(path: string): { span: Span | undefined; carrier: TraceCarrier | undefined } {
  const parent = context.active();
  if (!tracingEnabled()) return { span: undefined, carrier: injectTrace(parent) };
  const { name, attributes } = rpcAttributes(path);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  return { span, carrier: injectTrace(contextWithSpan(parent, span)) };
}

/** Client side: a CLIENT span per call (child of the active context), its context in the metadata. */
export const tracingClientInterceptor: grpc.Interceptor = (options, nextCall) => {
  const { span, carrier } = startClientSpan(options.method_definition.path);
  if (!span && !carrier) return new grpc.InterceptingCall(nextCall(options));
  return new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      if (carrier) setCarrier(metadata, carrier);
      if (!span) return next(metadata, listener);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          endWithStatus(span, status.code, status.details);
          nextStatus(status);
        },
      });
    },
  });
};

/** Server side: extracts the caller's context, a SERVER span per call, the handler runs in it. */
export const tracingServerInterceptor: grpc.ServerInterceptor = (method, call) => {
  let ctx: Context | undefined;
  let span: Span | undefined;
  const inContext = (fn: () => void) => (ctx ? runInContext(ctx, fn) : fn());
  return new grpc.ServerInterceptingCall(call, {
    start(next) {
      next({
        onReceiveMetadata(metadata, nextMetadata) {
          const traceparent = metadata.get('traceparent')[0];
          const parent =
            traceparent === undefined
              ? ROOT_CONTEXT
              : extractTrace({ traceparent, tracestate: metadata.get('tracestate')[0] }, ROOT_CONTEXT);
          if (tracingEnabled()) {
            const { name, attributes } = rpcAttributes(method.path);
            span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
            ctx = contextWithSpan(parent, span);
          } else if (parent !== ROOT_CONTEXT) {
            ctx = parent;
          }
          nextMetadata(metadata);
        },
        onReceiveMessage(message, nextMessage) {
          inContext(() => nextMessage(message));
        },
        onReceiveHalfClose(nextHalfClose) {
          inContext(() => nextHalfClose());
        },
        onCancel() {
          if (span) {
            failSpan(span, new Error('cancelled by the client'));
            span.end();
            span = undefined;
          }
        },
      });
    },
    sendStatus(status, next) {
      if (span) {
        endWithStatus(span, status.code, status.details);
        span = undefined;
      }
      next(status);
    },
  });
};
