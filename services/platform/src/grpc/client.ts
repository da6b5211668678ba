import * as grpc from '@grpc/grpc-js';
import { currentCorrelationId } from '../logger.js';
import { callersOf, type MeshService } from './callers.js';
import { inProcessClientClass, setInProcessCaller, unaryArguments } from './inProcess.js';
import { meshChannelCredentials, meshEnabled, meshIdentity, meshNameOf, type MeshIdentity } from './mesh.js';
import { CORRELATION_ID_KEY } from './status.js';
import { tracingClientInterceptor } from './tracingInterceptors.js';
import { SERVER_STREAM_WINDOW_BYTES } from './server.js';
import { USER_ASSERTION_METADATA, userAssertionFor, userClaimsOfRequest } from './userAssertion.js';

/** A unary method of a grpc-js client: (request, metadata, options, callback). */
export type UnaryCall<Req = any, Res = any> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

/** Names of the unary methods of a ts-proto grpc-js client. */
export type UnaryMethod<C> = {
  [K in keyof C]: C[K] extends UnaryCall ? K : never;
}[keyof C] &
  string;
export type RequestOf<C, M extends keyof C> = C[M] extends UnaryCall<infer Req> ? Req : never;
export type ResponseOf<C, M extends keyof C> = C[M] extends UnaryCall<any, infer Res> ? Res : never;

export interface GrpcClientOptions extends Partial<grpc.ClientOptions> {
  /**
   * Unary calls to a server of this same process listening at `target` call its handlers directly,
   * without HTTP/2 (inProcess.ts: the standalone's gateway); anything else goes over the channel, and so
   * does every call of a client given interceptors of its own (they would be skipped).
   */
  inProcess?: boolean;
  /**
   * The service this client calls as: the identity (mesh.ts) whose certificate it presents. Default: the
   * process's only identity. Without mutual TLS in this process, ignored (plaintext).
   */
  caller?: string;
}

/**
 * The targets a client takes (grpc-js resolves them):
 * - `host:port`, the same as `dns:///host:port`: every address the name resolves to (a Kubernetes headless
 *   Service names one per ready pod), resolved again when a connection closes (a server's maximum
 *   connection age, server.ts; a pod gone);
 * - `ipv4:127.0.0.1:50051,127.0.0.1:50061` (and `ipv6:[::1]:50051,...`): a fixed list (make cluster's replicas);
 * - `unix:/path`.
 * The env variables of targets (`*_GRPC_URL`) take exactly these (config.ts: `env.grpcTarget`).
 */
/**
 * Every client balances its calls round robin over all the addresses its target resolves to (grpc-js's
 * default, pick_first, sends every call to the first that answers: one replica of two would take it all).
 * Service configs from DNS TXT records are not looked up: this one is the only one.
 */
export const ROUND_ROBIN_SERVICE_CONFIG = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * Keepalive of every connection of a client, idle ones included (round robin keeps one open to every
 * replica): a PING every CLIENT_KEEPALIVE_TIME_MS, the connection dropped (and the address tried again)
 * when no answer comes within CLIENT_KEEPALIVE_TIMEOUT_MS. The servers admit pings this often (server.ts:
 * SERVER_MIN_PING_INTERVAL_MS is below it), so none answers too_many_pings.
 */
export const CLIENT_KEEPALIVE_TIME_MS = 30_000;
export const CLIENT_KEEPALIVE_TIMEOUT_MS = 10_000;

/**
 * `new ClientCtor(target, credentials)` (GRPC_TARGET_PATTERN), round robin over the target's addresses,
 * with keepalive, a reasonable reconnect backoff and the W3C trace
 * context of the caller in every call's metadata (tracingInterceptors.ts). The credentials: for a
 * service of the platform when this process speaks mutual TLS, the caller's certificate, and the
 * server's must name that service (mesh.ts); else plaintext. A method the caller calls as `user`
 * (callers.ts: the gateway, on behalf of a signed-in person) carries a user assertion signed with the
 * caller's key for the request's caller and caller role (userAssertion.ts), unless its metadata already
 * holds one.
 */
export function createGrpcClient<C extends grpc.Client>(
  ClientCtor: (new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ) => C) & { service?: grpc.ServiceDefinition },
  target: string,
  { inProcess = false, caller, ...options }: GrpcClientOptions = {},
): C {
  const Ctor = inProcess && !options.interceptors?.length ? inProcessClientClass(ClientCtor) : ClientCtor;
  const firstPath = Object.values(ClientCtor.service ?? {})[0]?.path;
  const server = firstPath ? meshNameOf(firstPath) : undefined;
  const identity = server && meshEnabled() ? meshIdentity(caller) : undefined;
  const client = new Ctor(
    target,
    identity ? meshChannelCredentials(identity, server!) : grpc.credentials.createInsecure(),
    {
      ...(identity ? { 'grpc.ssl_target_name_override': server } : {}),
      'grpc.service_config': ROUND_ROBIN_SERVICE_CONFIG,
      'grpc.service_config_disable_resolution': 1,
      'grpc.keepalive_time_ms': CLIENT_KEEPALIVE_TIME_MS,
      'grpc.keepalive_timeout_ms': CLIENT_KEEPALIVE_TIMEOUT_MS,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.max_reconnect_backoff_ms': 2_000,
      // the answers' side of the servers' receive windows (server.ts): a large answer is not held back
      // until this busy client's loop turns to send a WINDOW_UPDATE
      'grpc-node.flow_control_window': SERVER_STREAM_WINDOW_BYTES,
      ...options,
      interceptors: [tracingClientInterceptor, ...(options.interceptors ?? [])],
    },
  );
  setInProcessCaller(client, identity?.name);
  if (identity && server) signUserMethods(client, ClientCtor.service ?? {}, identity, server);
  return client;
}

/** The unary methods of `client` that `identity` calls as `user` add a user assertion for `audience`. */
function signUserMethods(
  client: grpc.Client,
  service: grpc.ServiceDefinition,
  identity: MeshIdentity,
  audience: string,
): void {
  const methods = client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>;
  for (const [name, method] of Object.entries(service)) {
    if (method.requestStream || method.responseStream) continue;
    if (callersOf(method.path)?.[identity.name as MeshService] !== 'user') continue;
    const call = methods[name]!;
    const signing = function (this: grpc.Client, argument: unknown, a?: unknown, b?: unknown, c?: unknown) {
      const { metadata, options, callback } = unaryArguments(a, b, c);
      const withAssertion = metadata.clone();
      if (withAssertion.get(USER_ASSERTION_METADATA).length === 0)
        withAssertion.set(
          USER_ASSERTION_METADATA,
          userAssertionFor(identity, audience, userClaimsOfRequest(argument)),
        );
      return call.call(this, argument, withAssertion, options, callback);
    };
    methods[name] = signing;
    if (method.originalName) methods[method.originalName] = signing;
  }
}

export interface CallOptions {
  /** Default 5000 ms. */
  deadlineMs?: number;
  /** Default: the current correlation id (withCorrelation), if any. */
  correlationId?: string;
  metadata?: grpc.Metadata;
}

/** Promise-returning unary call with a deadline and the x-correlation-id metadata. Rejects with the grpc ServiceError. */
export function callUnary<C extends grpc.Client, M extends UnaryMethod<C>>(
  client: C,
  method: M,
  request: RequestOf<C, M>,
  options: CallOptions = {},
): Promise<ResponseOf<C, M>> {
  const metadata = options.metadata?.clone() ?? new grpc.Metadata();
  const correlationId = options.correlationId ?? currentCorrelationId();
  if (correlationId) metadata.set(CORRELATION_ID_KEY, correlationId);
  const deadline = Date.now() + (options.deadlineMs ?? 5_000);
  const fn = client[method] as unknown as UnaryCall;
  return new Promise((resolve, reject) => {
    fn.call(client, request, metadata, { deadline }, (err, response) =>
      err ? reject(asConnectionLoss(err)) : resolve(response),
    );
  });
}

/** What grpc-js says, as INTERNAL, of a call whose connection broke under it (not of a server's own error). */
const CONNECTION_LOST =
  /^Received RST_STREAM with code \d+ (triggered by internal client error|\(Call ended without gRPC status\))/;

/**
 * A call whose connection broke under it (its server killed mid-call, a TLS connection cut) ends as INTERNAL
 * in grpc-js unless the socket said ECONNRESET; its outcome is unknown, as a dropped connection's is: it is
 * answered UNAVAILABLE (503 at the gateway, transient for a consumer) so it is tried again with its key.
 */
export function asConnectionLoss(err: grpc.ServiceError): grpc.ServiceError {
  if (err.code !== grpc.status.INTERNAL || !CONNECTION_LOST.test(err.details ?? '')) return err;
  return Object.assign(err, { code: grpc.status.UNAVAILABLE });
}

/** Resolves when the channel is ready, rejects after timeoutMs. */
export function waitForClientReady(client: grpc.Client, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve())),
  );
}
