import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { createLogger, withCorrelation, type Logger } from '../logger.js';
import { metrics, secondsSince } from '../metrics.js';
import { HealthImplementation, HealthService, ServingStatus } from './health.js';
import { serveInProcess } from './inProcess.js';
import { CORRELATION_ID_KEY, toGrpcStatus } from './status.js';
import { tracingServerInterceptor } from './tracingInterceptors.js';

export interface GrpcServiceRegistration {
  /** A ts-proto `XxxServiceService` definition (outputServices=grpc-js). */
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** Health service name; default derived from the paths (e.g. meridian.identity.v1.IdentityService). */
  name?: string;
}

export interface GrpcServerHandle {
  /** The bound address, host:port (the real port when 0 was asked for). */
  address: string;
  port: number;
  health: HealthImplementation;
  /** Graceful: NOT_SERVING, tryShutdown, forceShutdown after graceMs (default 5000). */
  stop(graceMs?: number): Promise<void>;
}

/** The health services of this process's running gRPC servers (setGrpcServing). */
const liveHealth = new Set<HealthImplementation>();
let processServing = true;

/**
 * Sets every running gRPC server of this process (and those started later) SERVING or NOT_SERVING: the
 * process's readiness (readiness.ts; runtime.ts wires it) — its store or bus unreachable, or draining.
 */
export function setGrpcServing(serving: boolean): void {
  processServing = serving;
  const status = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  for (const health of liveHealth) health.setAll(status);
}

export function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0] as { path?: string } | undefined;
  const m = first?.path?.match(/^\/([^/]+)\//);
  return m ? m[1] : 'unknown';
}

/** The largest request our servers take (grpc.max_receive_message_length). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * The HTTP/2 receive windows of our servers: per call (SETTINGS_INITIAL_WINDOW_SIZE) and per connection
 * (a WINDOW_UPDATE at the session's start), as grpc-java's default flow-control window. With HTTP/2's
 * 65,535 bytes, a request larger than that (a batch of 1,000 maturities is about 130 KB) sends its rest
 * only after the server's WINDOW_UPDATE has come back AND the client's event loop has turned to read it: a
 * client busy for 100 ms (recording the batch before) held its next request back for those 100 ms while the
 * server sat idle. grpc-js's server reads no option for this (grpc-node.flow_control_window is the
 * client's; upstream grpc/grpc-node#3058), so `withReceiveWindows` sets it on the server it built.
 */
export const SERVER_STREAM_WINDOW_BYTES = 1024 * 1024;
export const SERVER_CONNECTION_WINDOW_BYTES = 4 * 1024 * 1024;

/** The internals of grpc-js's Server that `withReceiveWindows` needs (1.14: both exist; checked). */
interface ServerInternals {
  commonServerOptions?: { settings?: Record<string, unknown> };
  http2Servers?: Map<{ on(event: 'session', fn: (session: WindowedSession) => void): void }, unknown>;
}
interface WindowedSession {
  setLocalWindowSize?(size: number): void;
}

/**
 * Before bind: the per-call window in the SETTINGS every new connection gets. Returns what to do after
 * bind: each new connection's window raised. Throws when grpc-js no longer has the fields (an upgrade
 * must then find the new way: every server start fails; receiveWindow.int.spec.ts checks the effect).
 */
function withReceiveWindows(server: grpc.Server): () => void {
  const internals = server as unknown as ServerInternals;
  const common = internals.commonServerOptions;
  if (!common || !(internals.http2Servers instanceof Map))
    throw new Error(
      "grpc-js's Server has no commonServerOptions/http2Servers: the receive windows cannot be set",
    );
  common.settings = { ...common.settings, initialWindowSize: SERVER_STREAM_WINDOW_BYTES };
  return () => {
    for (const http2Server of internals.http2Servers!.keys())
      http2Server.on('session', (session) => session.setLocalWindowSize?.(SERVER_CONNECTION_WINDOW_BYTES));
  };
}

/** Starts a gRPC server (insecure credentials: TLS is the mesh's or the ingress's job) with grpc.health.v1. */
export async function startGrpcServer(options: {
  address: string;
  services: GrpcServiceRegistration[];
  logger?: Logger;
  serverOptions?: grpc.ServerOptions;
}): Promise<GrpcServerHandle> {
  const logger = options.logger ?? createLogger('grpc');
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    ...options.serverOptions,
    interceptors: [
      grpcServerMetrics,
      tracingServerInterceptor,
      ...(options.serverOptions?.interceptors ?? []),
    ],
  });
  const afterBind = withReceiveWindows(server);
  const health = new HealthImplementation();
  server.addService(HealthService, health.handlers);
  const initial = processServing ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  for (const s of options.services) {
    server.addService(s.definition, s.implementation);
    health.setStatus(s.name ?? serviceNameOf(s.definition), initial);
  }
  health.setStatus('', initial);
  liveHealth.add(health);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(options.address, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  afterBind();
  const host = options.address.replace(/:\d+$/, '');
  const address = `${host}:${port}`;
  // clients of this process made with `inProcess` call the handlers directly (inProcess.ts); a server
  // with interceptors of its own is reached over the wire only (they would be skipped)
  const unserveInProcess = options.serverOptions?.interceptors?.length
    ? () => Promise.resolve()
    : serveInProcess(
        address,
        [{ definition: HealthService, implementation: health.handlers }, ...options.services],
        {
          maxRequestBytes: options.serverOptions?.['grpc.max_receive_message_length'] ?? MAX_REQUEST_BYTES,
          observe: observeHandling,
        },
      );
  logger.info(
    { address, services: options.services.map((s) => s.name ?? serviceNameOf(s.definition)) },
    'gRPC server listening',
  );

  let stopped: Promise<void> | undefined;
  return {
    address,
    port,
    health,
    stop(graceMs = 5_000) {
      stopped ??= new Promise<void>((resolve) => {
        // in-process calls already made finish like the calls on the wire; later ones take the wire
        const inProcessDone = unserveInProcess();
        liveHealth.delete(health);
        health.setAll(ServingStatus.NOT_SERVING);
        health.endWatches();
        const timer = setTimeout(() => {
          logger.warn('gRPC graceful shutdown timed out; forcing');
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          void inProcessDone.then(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      });
      return stopped;
    },
  };
}

const grpcHandling = metrics.histogram(
  'grpc_server_handling_seconds',
  'Time to answer a gRPC call on the server, by service, method and status code.',
  ['grpc_service', 'grpc_method', 'grpc_code'],
);
const codeNames = Object.fromEntries(
  Object.entries(grpc.status).map(([name, code]) => [code, name]),
) as Record<number, string>;

/** Records one call's handling time with its status code. */
function observeHandling(path: string, code: number, startedNs: bigint): void {
  const [, service = 'unknown', name = 'unknown'] = path.split('/');
  grpcHandling.observe(
    { grpc_service: service, grpc_method: name, grpc_code: codeNames[code] ?? 'UNKNOWN' },
    secondsSince(startedNs),
  );
}

/** Observes every call's duration once, when its status is sent (or the client cancelled it). */
const grpcServerMetrics: grpc.ServerInterceptor = (method, call) => {
  const started = process.hrtime.bigint();
  let observed = false;
  const observe = (code: number) => {
    if (observed) return;
    observed = true;
    observeHandling(method.path, code, started);
  };
  return new grpc.ServerInterceptingCall(call, {
    start: (next) => next({ onCancel: () => observe(grpc.status.CANCELLED) }),
    sendStatus: (status, next) => {
      observe(status.code);
      next(status);
    },
  });
};

export interface CallContext {
  correlationId: string;
  metadata: grpc.Metadata;
  /** Absolute deadline of the call, if the client set one. */
  deadline: grpc.Deadline;
  peer: string;
}

/**
 * Wraps a use case as a unary handler: runs it inside withCorrelation(x-correlation-id metadata or a
 * fresh id), answers its result, maps a thrown DomainError to the status of its kind (message as
 * details, kind/code in trailers); anything else is logged and answered INTERNAL with a generic message.
 */
export function unaryHandler<Req, Res>(
  fn: (request: Req, ctx: CallContext) => Promise<Res> | Res,
  options: { logger?: Logger; method?: string } = {},
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const inbound = call.metadata.get(CORRELATION_ID_KEY)[0];
    const correlationId =
      typeof inbound === 'string' && inbound.length > 0 && inbound.length <= 128 ? inbound : randomUUID();
    void withCorrelation(correlationId, async () => {
      try {
        const result = await fn(call.request, {
          correlationId,
          metadata: call.metadata,
          deadline: call.getDeadline(),
          peer: call.getPeer(),
        });
        callback(null, result);
      } catch (err) {
        const status = toGrpcStatus(err);
        if (status.internal) {
          (options.logger ?? fallbackLogger()).error(
            { err, method: options.method ?? call.getPath?.() },
            'unhandled error in gRPC handler',
          );
        }
        callback({ code: status.code, details: status.details, metadata: status.metadata });
      }
    });
  };
}

/** Wraps every function of an object of use cases with unaryHandler (same logger). */
export function unaryHandlers<
  T extends Record<string, (request: any, ctx: CallContext) => Promise<any> | any>,
>(
  handlers: T,
  options: { logger?: Logger } = {},
): { [K in keyof T]: grpc.handleUnaryCall<Parameters<T[K]>[0], Awaited<ReturnType<T[K]>>> } {
  const out = {} as Record<string, grpc.handleUnaryCall<unknown, unknown>>;
  for (const [name, fn] of Object.entries(handlers))
    out[name] = unaryHandler(fn, { ...options, method: name });
  return out as never;
}

let defaultLogger: Logger | undefined;
const fallbackLogger = () => (defaultLogger ??= createLogger('grpc'));
