import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { createLogger, withCorrelation, type Logger } from '../logger.js';
import { metrics, secondsSince } from '../metrics.js';
import { admitCall, type Admission } from './admission.js';
import { HealthImplementation, HealthService, ServingStatus } from './health.js';
import { serveInProcess } from './inProcess.js';
import {
  callerOfAuthContext,
  meshEnabled,
  meshIdentity,
  meshNameOf,
  meshServerCredentials,
  type MeshIdentity,
} from './mesh.js';
import { CORRELATION_ID_KEY, toGrpcStatus } from './status.js';
import { tracingServerInterceptor } from './tracingInterceptors.js';
import { applyUserClaims, USER_ASSERTION_METADATA } from './userAssertion.js';

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
 * A connection lives at most SERVER_MAX_CONNECTION_AGE_MS (grpc-js adds a random tenth either way so a
 * client's connections do not all end together): then the server sends GOAWAY, its calls in flight get
 * SERVER_MAX_CONNECTION_AGE_GRACE_MS to finish, and the client resolves its target again and connects
 * anew. A replica started later (a new pod, a scale-up) so receives its share of every client's calls
 * within that age instead of never (round robin, client.ts, only balances over the connections it has).
 */
export const SERVER_MAX_CONNECTION_AGE_MS = 5 * 60_000;
export const SERVER_MAX_CONNECTION_AGE_GRACE_MS = 30_000;

/**
 * The keepalive PINGs a server admits from clients (client.ts sends one every CLIENT_KEEPALIVE_TIME_MS, idle
 * connections included): at most one per SERVER_MIN_PING_INTERVAL_MS without data, and on connections
 * without calls. A server that enforces this policy (gRPC C++/Go/Java, a proxy) answers pings more
 * frequent than it with GOAWAY too_many_pings; grpc-js's own server accepts any (it reads neither option),
 * so the values state the policy the clients keep within.
 */
export const SERVER_MIN_PING_INTERVAL_MS = 20_000;

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

/**
 * The identity a server of the platform's services presents (mesh.ts): the one registered for the
 * service its first definition belongs to; undefined without mutual TLS, or for a server of no service
 * of the platform (tests, benchmarks).
 */
function serverIdentity(services: GrpcServiceRegistration[]): MeshIdentity | undefined {
  const name = services[0] && meshNameOf(serviceNameOf(services[0].definition));
  return name && meshEnabled() ? meshIdentity(name) : undefined;
}

/**
 * Starts a gRPC server with grpc.health.v1. With an identity of the platform (mesh.ts), it speaks mutual
 * TLS and serves each method only to the callers callers.ts names; else plaintext to anyone.
 */
export async function startGrpcServer(options: {
  address: string;
  services: GrpcServiceRegistration[];
  logger?: Logger;
  serverOptions?: grpc.ServerOptions;
}): Promise<GrpcServerHandle> {
  const logger = options.logger ?? createLogger('grpc');
  const identity = serverIdentity(options.services);
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    'grpc.max_connection_age_ms': SERVER_MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': SERVER_MAX_CONNECTION_AGE_GRACE_MS,
    'grpc.http2.min_ping_interval_without_data_ms': SERVER_MIN_PING_INTERVAL_MS,
    'grpc.keepalive_permit_without_calls': 1,
    ...options.serverOptions,
    interceptors: [
      grpcServerMetrics,
      ...(identity ? [authorizeCaller] : []),
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
    server.bindAsync(
      options.address,
      identity ? meshServerCredentials(identity) : grpc.ServerCredentials.createInsecure(),
      (err, p) => (err ? reject(err) : resolve(p)),
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
          admit: identity ? admitInProcess : undefined,
        },
      );
  logger.info(
    {
      address,
      services: options.services.map((s) => s.name ?? serviceNameOf(s.definition)),
      mutualTls: identity !== undefined,
    },
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

/** The user assertion a call's metadata carries, if any. */
const assertionOf = (metadata: grpc.Metadata): string | undefined => {
  const value = metadata.get(USER_ASSERTION_METADATA)[0];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** `then` of an admission, synchronous when it is. */
const whenAdmitted = (admission: Admission | Promise<Admission>, fn: (a: Admission) => void): void => {
  if (admission instanceof Promise) void admission.then(fn);
  else fn(admission);
};

/**
 * Serves a call only to the callers callers.ts names, the caller being the service named by the client
 * certificate the CA verified, and for a method it calls as `user`, only with a valid user assertion
 * signed with that certificate's key (admission.ts): the refusal is answered before the handler runs;
 * the verified claims replace the request's caller and caller role.
 */
const authorizeCaller: grpc.ServerInterceptor = (method, call) => {
  let admission: Admission | Promise<Admission> = { refusal: { code: grpc.status.INTERNAL, details: '' } };
  return new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, nextMetadata) => {
          const auth = call.getAuthContext();
          admission = admitCall(
            method.path,
            callerOfAuthContext(auth),
            () => auth?.sslPeerCertificate?.raw,
            assertionOf(metadata),
          );
          whenAdmitted(admission, (a) => {
            if ('refusal' in a) call.sendStatus({ ...a.refusal, metadata: new grpc.Metadata() });
            else nextMetadata(metadata);
          });
        },
        onReceiveMessage: (message, nextMessage) =>
          whenAdmitted(admission, (a) => {
            if ('refusal' in a) return;
            if (a.claims) applyUserClaims(message, a.claims);
            nextMessage(message);
          }),
      }),
  });
};

/** The same check for an in-process call: the caller's certificate is the identity it presents. */
function admitInProcess(
  path: string,
  caller: string | undefined,
  metadata: grpc.Metadata,
): Admission | Promise<Admission> {
  return admitCall(
    path,
    caller,
    () => (caller && meshEnabled() ? meshIdentity(caller)?.cert : undefined),
    assertionOf(metadata),
  );
}

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
