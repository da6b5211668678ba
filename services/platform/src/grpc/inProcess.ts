/**
 * The in-process transport: a client in the same process as the gRPC server it calls reaches the server's
 * handlers directly, without HTTP/2 over loopback (the standalone's gateway → services). The idea of
 * grpc-java's InProcessServerBuilder / InProcessChannelBuilder: each server registers the unary methods it
 * serves under its bound address (server.ts), and a client made with `inProcess: true` (client.ts) for
 * that address calls them. What stays as over the wire:
 * - the contract: the request is encoded by the client's serializer and decoded by the server's
 *   deserializer, the answer encoded by the server and decoded by the client (no object is shared, an
 *   unencodable field fails the same way), within the same message size limits;
 * - who calls: a server speaking mutual TLS serves a method only to the callers callers.ts names, the
 *   caller being the service whose identity the client was made with (mesh.ts; none: UNAUTHENTICATED),
 *   and a method the caller calls as `user` only with a valid user assertion, whose claims replace the
 *   request's caller (admission.ts, the same check as on the wire);
 * - the call: a copy of the client's metadata (correlation id, trace context, service token), the
 *   deadline (DEADLINE_EXCEEDED when it passes), the status, details and trailers of a failure as a
 *   grpc ServiceError, the answer always delivered asynchronously;
 * - the interceptors' effects: the server's handling-time metric, and the trace (a CLIENT and a SERVER
 *   span when tracing is on; the handler runs in the caller's trace context only, as a remote parent
 *   would give it).
 * Streaming methods, methods the address does not serve in this process and calls after its server
 * stopped take the client's real channel.
 */
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import {
  contextWithSpan,
  extractTrace,
  failSpan,
  ROOT_CONTEXT,
  runInContext,
  SpanKind,
  tracer,
  type Context,
  type TraceCarrier,
} from '../tracing.js';
import type { Admission } from './admission.js';
import { endWithStatus, rpcAttributes, setCarrier, startClientSpan } from './tracingInterceptors.js';
import { applyUserClaims } from './userAssertion.js';

/** A unary method as a server in this process serves it. */
interface ServedMethod {
  handler: grpc.handleUnaryCall<unknown, unknown>;
  requestDeserialize: grpc.deserialize<unknown>;
  responseSerialize: grpc.serialize<unknown>;
  /** the server's grpc.max_receive_message_length */
  maxRequestBytes: number;
  /** observes the call's handling time with its status (the server's metrics interceptor) */
  observe(path: string, code: grpc.status, startedNs: bigint): void;
  /** the handlers of its server still running (a graceful stop waits for them, as for calls on the wire) */
  running: InFlight;
  /**
   * its server's check of the caller (mutual TLS only; admission.ts): refused, or admitted with the
   * verified claims of the user on whose behalf the call is made
   */
  admit?(path: string, caller: string | undefined, metadata: grpc.Metadata): Admission | Promise<Admission>;
}

/** Handlers running; `idle` resolves when none is (checked again at each end). */
class InFlight {
  private count = 0;
  private waiters: Array<() => void> = [];
  start(): void {
    this.count += 1;
  }
  end(): void {
    this.count -= 1;
    if (this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** address -> method path -> its handler. */
const servers = new Map<string, Map<string, ServedMethod>>();

/**
 * Registers the unary methods of a server bound at `address` (server.ts, once it listens). The returned
 * function unregisters them (when the server stops: later calls take the channel) and resolves when the
 * handlers of calls already made have answered.
 */
export function serveInProcess(
  address: string,
  services: ReadonlyArray<{
    definition: grpc.ServiceDefinition;
    implementation: grpc.UntypedServiceImplementation;
  }>,
  options: {
    maxRequestBytes: number;
    observe: ServedMethod['observe'];
    admit?: ServedMethod['admit'];
  },
): () => Promise<void> {
  const methods = new Map<string, ServedMethod>();
  const running = new InFlight();
  for (const { definition, implementation } of services) {
    for (const [name, method] of Object.entries(definition)) {
      const handler = implementation[name] ?? implementation[method.originalName ?? ''];
      if (method.requestStream || method.responseStream || typeof handler !== 'function') continue;
      methods.set(method.path, {
        handler: handler as grpc.handleUnaryCall<unknown, unknown>,
        requestDeserialize: method.requestDeserialize,
        responseSerialize: method.responseSerialize,
        maxRequestBytes: options.maxRequestBytes,
        observe: options.observe,
        admit: options.admit,
        running,
      });
    }
  }
  servers.set(address, methods);
  return () => {
    if (servers.get(address) === methods) servers.delete(address);
    return running.idle();
  };
}

/** grpc-js's default grpc.max_receive_message_length of a client. */
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

type Callback = grpc.requestCallback<unknown>;

/** The status of a failure as a grpc-js client reports it (call.ts callErrorFromStatus). */
function serviceError(code: grpc.status, details: string, metadata: grpc.Metadata): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata });
}

/** (metadata?, options?, callback) as grpc-js's Client accepts them. */
export function unaryArguments(
  a: unknown,
  b: unknown,
  c: unknown,
): { metadata: grpc.Metadata; options: grpc.CallOptions; callback: Callback } {
  if (typeof a === 'function') return { metadata: new grpc.Metadata(), options: {}, callback: a as Callback };
  if (typeof b === 'function')
    return a instanceof grpc.Metadata
      ? { metadata: a, options: {}, callback: b as Callback }
      : { metadata: new grpc.Metadata(), options: a as grpc.CallOptions, callback: b as Callback };
  if (!(a instanceof grpc.Metadata) || typeof c !== 'function') throw new Error('Incorrect arguments passed');
  return { metadata: a, options: b as grpc.CallOptions, callback: c as Callback };
}

const deadlineMs = (deadline: grpc.Deadline | undefined): number =>
  deadline === undefined ? Infinity : deadline instanceof Date ? deadline.getTime() : deadline;

function withCarrier(metadata: grpc.Metadata, carrier: TraceCarrier | undefined): grpc.Metadata {
  if (carrier) setCarrier(metadata, carrier);
  return metadata;
}

/** The trace around an in-process call: what tracingClientInterceptor and tracingServerInterceptor do. */
function traceCall(path: string): {
  /** traceparent / tracestate, sent in the metadata */
  carrier: TraceCarrier | undefined;
  /** what the handler runs in (undefined: no trace context at all) */
  handlerContext: Context | undefined;
  end(code: grpc.status, details: string): void;
} {
  const { span: client, carrier } = startClientSpan(path);
  if (!client) {
    // as over the wire: the handler sees the caller's trace context, if any, as a remote parent, nothing else
    return {
      carrier,
      handlerContext: carrier ? extractTrace(carrier, ROOT_CONTEXT) : undefined,
      end: () => undefined,
    };
  }
  const { name, attributes } = rpcAttributes(path);
  const remote = extractTrace(carrier, ROOT_CONTEXT);
  const server = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, remote);
  return {
    carrier,
    handlerContext: contextWithSpan(remote, server),
    end(code, details) {
      if (code === grpc.status.CANCELLED || code === grpc.status.DEADLINE_EXCEEDED) {
        failSpan(server, new Error(details));
        server.end();
      } else endWithStatus(server, code, details);
      endWithStatus(client, code, details);
    },
  };
}

/**
 * One unary call to `served`. The answer (or failure) reaches `callback` once, never synchronously.
 */
function callServed(
  served: ServedMethod,
  path: string,
  serialize: grpc.serialize<unknown>,
  deserialize: grpc.deserialize<unknown>,
  argument: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  maxResponseBytes: number,
  caller: string | undefined,
  callback: Callback,
): grpc.ClientUnaryCall {
  const started = process.hrtime.bigint();
  const trace = traceCall(path);
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const emitter = new EventEmitter() as grpc.ClientUnaryCall & EventEmitter;
  const serverCall = new EventEmitter() as grpc.ServerUnaryCall<unknown, unknown> & EventEmitter;
  const finish = (code: grpc.status, details: string, trailers: grpc.Metadata, answer?: unknown) => {
    if (done) return false;
    done = true;
    if (timer) clearTimeout(timer);
    served.observe(path, code, started);
    trace.end(code, details);
    setImmediate(() => {
      if (code === grpc.status.OK) callback(null, answer);
      else callback(serviceError(code, details, trailers));
      emitter.emit('status', { code, details, metadata: trailers });
    });
    return true;
  };
  /** The client gave up (cancel, deadline): the handler's call is cancelled, as a server's would be. */
  const abandon = (code: grpc.status, details: string) => {
    if (!finish(code, details, new grpc.Metadata())) return;
    serverCall.cancelled = true;
    serverCall.emit('cancelled', details);
  };
  emitter.cancel = () => abandon(grpc.status.CANCELLED, 'Cancelled on client');
  emitter.getPeer = () => 'in-process';

  const admission = served.admit?.(path, caller, metadata);
  if (admission && !(admission instanceof Promise) && 'refusal' in admission) {
    finish(admission.refusal.code, admission.refusal.details, new grpc.Metadata());
    return emitter;
  }
  let bytes: Buffer;
  try {
    bytes = serialize(argument);
  } catch (err) {
    const details = `Request message serialization failure: ${(err as Error).message}`;
    finish(grpc.status.INTERNAL, details, new grpc.Metadata());
    return emitter;
  }
  if (bytes.length > served.maxRequestBytes) {
    const details = `Received message larger than max (${bytes.length} vs ${served.maxRequestBytes})`;
    finish(grpc.status.RESOURCE_EXHAUSTED, details, new grpc.Metadata());
    return emitter;
  }
  let request: unknown;
  try {
    request = served.requestDeserialize(bytes);
  } catch (err) {
    finish(
      grpc.status.INTERNAL,
      `Error deserializing request: ${(err as Error).message}`,
      new grpc.Metadata(),
    );
    return emitter;
  }

  const deadline = deadlineMs(options.deadline);
  if (Number.isFinite(deadline)) {
    const left = deadline - Date.now();
    if (left <= 0) {
      finish(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded', new grpc.Metadata());
      return emitter;
    }
    timer = setTimeout(() => abandon(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), left);
  }

  Object.assign(serverCall, {
    request,
    metadata: withCarrier(metadata.clone(), trace.carrier),
    cancelled: false,
    getPeer: () => 'in-process',
    getDeadline: () => options.deadline ?? Infinity,
    getPath: () => path,
    getHost: () => 'in-process',
    sendMetadata: () => undefined,
  });
  let answered = false;
  const answer: grpc.sendUnaryData<unknown> = (err, value, trailer) => {
    if (answered) return;
    answered = true;
    served.running.end();
    if (err) {
      const code = typeof err.code === 'number' ? err.code : grpc.status.UNKNOWN;
      finish(
        code,
        err.details ?? ('message' in err ? err.message : undefined) ?? 'Unknown Error',
        err.metadata ?? trailer ?? new grpc.Metadata(),
      );
      return;
    }
    let decoded: unknown;
    try {
      const bytes = served.responseSerialize(value);
      if (bytes.length > maxResponseBytes) {
        finish(
          grpc.status.RESOURCE_EXHAUSTED,
          `Received message larger than max (${bytes.length} vs ${maxResponseBytes})`,
          new grpc.Metadata(),
        );
        return;
      }
      decoded = deserialize(bytes);
    } catch (e) {
      finish(
        grpc.status.INTERNAL,
        `Response message parsing error: ${(e as Error).message}`,
        new grpc.Metadata(),
      );
      return;
    }
    finish(grpc.status.OK, 'OK', trailer ?? new grpc.Metadata(), decoded);
  };
  const run = () => {
    served.running.start();
    try {
      served.handler(serverCall, answer);
    } catch (err) {
      answer({ code: grpc.status.UNKNOWN, details: (err as Error).message ?? 'Unknown Error' });
    }
  };
  const admitted = (a: Admission | undefined) => {
    if (done) return;
    if (a && 'refusal' in a) {
      finish(a.refusal.code, a.refusal.details, new grpc.Metadata());
      return;
    }
    if (a?.claims) applyUserClaims(request, a.claims);
    if (trace.handlerContext) runInContext(trace.handlerContext, run);
    else run();
  };
  if (admission instanceof Promise) void admission.then(admitted);
  else admitted(admission);
  return emitter;
}

/** What an in-process client keeps of how it was made. */
interface InProcessTarget {
  address: string;
  maxResponseBytes: number;
  /** the service whose identity the client presents (mesh.ts), if any */
  caller?: string;
}
const TARGET = Symbol('inProcessTarget');

/** Names the service an in-process client calls as (the identity its channel presents on the wire). */
export function setInProcessCaller(client: grpc.Client, caller: string | undefined): void {
  const target = (client as grpc.Client & { [TARGET]?: InProcessTarget })[TARGET];
  if (target) target.caller = caller;
}

type ClientCtor<C extends grpc.Client> = (new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => C) & { service?: grpc.ServiceDefinition };

const inProcessClasses = new WeakMap<object, unknown>();

/**
 * `ClientCtor` whose unary calls go to a server of this process at the client's address when it serves
 * the method (serveInProcess), else through the real channel; everything else (streams, close,
 * getChannel, waitForReady) is the real client's.
 */
export function inProcessClientClass<C extends grpc.Client>(Base: ClientCtor<C>): ClientCtor<C> {
  const cached = inProcessClasses.get(Base);
  if (cached) return cached as ClientCtor<C>;
  const realUnary = grpc.Client.prototype.makeUnaryRequest;
  /** The in-process call when `path` is served here, else the real one. */
  function makeUnaryRequest(
    this: grpc.Client & { [TARGET]: InProcessTarget },
    path: string,
    serialize: grpc.serialize<unknown>,
    deserialize: grpc.deserialize<unknown>,
    argument: unknown,
    a?: unknown,
    b?: unknown,
    c?: unknown,
  ): grpc.ClientUnaryCall {
    const served = servers.get(this[TARGET].address)?.get(path);
    if (!served)
      return (realUnary as (...args: unknown[]) => grpc.ClientUnaryCall).call(
        this,
        path,
        serialize,
        deserialize,
        argument,
        a,
        b,
        c,
      );
    const { metadata, options, callback } = unaryArguments(a, b, c);
    return callServed(
      served,
      path,
      serialize,
      deserialize,
      argument,
      metadata,
      options,
      this[TARGET].maxResponseBytes,
      this[TARGET].caller,
      callback,
    );
  }
  const Derived = class extends (Base as new (...args: ConstructorParameters<ClientCtor<C>>) => grpc.Client) {
    [TARGET]: InProcessTarget;
    constructor(
      address: string,
      credentials: grpc.ChannelCredentials,
      options: Partial<grpc.ClientOptions> = {},
    ) {
      super(address, credentials, options);
      this[TARGET] = {
        address,
        maxResponseBytes: options['grpc.max_receive_message_length'] ?? DEFAULT_MAX_RESPONSE_BYTES,
      };
    }
  };
  const proto = Derived.prototype as unknown as Record<string, unknown>;
  proto.makeUnaryRequest = makeUnaryRequest;
  // the generated methods call Client.prototype.makeUnaryRequest itself: each unary one is redefined
  for (const [name, method] of Object.entries(Base.service ?? {})) {
    if (method.requestStream || method.responseStream) continue;
    const call = function (this: never, argument: unknown, a?: unknown, b?: unknown, c?: unknown) {
      return makeUnaryRequest.call(
        this,
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        argument,
        a,
        b,
        c,
      );
    };
    proto[name] = call;
    if (method.originalName) proto[method.originalName] = call;
  }
  inProcessClasses.set(Base, Derived);
  return Derived as unknown as ClientCtor<C>;
}
