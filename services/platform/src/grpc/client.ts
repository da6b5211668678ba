import * as grpc from '@grpc/grpc-js';
import { currentCorrelationId } from '../logger.js';
import { inProcessClientClass } from './inProcess.js';
import { CORRELATION_ID_KEY } from './status.js';
import { tracingClientInterceptor } from './tracingInterceptors.js';
import { SERVER_STREAM_WINDOW_BYTES } from './server.js';

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
}

/**
 * `new ClientCtor(target, insecure)`, with keepalive, a reasonable reconnect backoff and the W3C trace
 * context of the caller in every call's metadata (tracingInterceptors.ts).
 */
export function createGrpcClient<C extends grpc.Client>(
  ClientCtor: new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ) => C,
  target: string,
  { inProcess = false, ...options }: GrpcClientOptions = {},
): C {
  const Ctor = inProcess && !options.interceptors?.length ? inProcessClientClass(ClientCtor) : ClientCtor;
  return new Ctor(target, grpc.credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_reconnect_backoff_ms': 2_000,
    // the answers' side of the servers' receive windows (server.ts): a large answer is not held back
    // until this busy client's loop turns to send a WINDOW_UPDATE
    'grpc-node.flow_control_window': SERVER_STREAM_WINDOW_BYTES,
    ...options,
    interceptors: [tracingClientInterceptor, ...(options.interceptors ?? [])],
  });
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
      err ? reject(err) : resolve(response),
    );
  });
}

/** Resolves when the channel is ready, rejects after timeoutMs. */
export function waitForClientReady(client: grpc.Client, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve())),
  );
}
