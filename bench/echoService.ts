/**
 * A hand-written gRPC service definition for the baseline: `/bench.Echo/Echo`, unary, the message is
 * raw bytes (no protobuf), so the figure is the cost of grpc-js itself on this machine: over a plaintext
 * channel (echoClient), and over mutual TLS (echoTlsClient), the transport of the services' calls.
 */
import * as grpc from '@grpc/grpc-js';
import type { MeshIdentity } from '@meridian/platform/grpc/mesh';

const identity = (b: Buffer) => b;

export const echoServiceDefinition = {
  echo: {
    path: '/bench.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} satisfies grpc.ServiceDefinition;

/** createGrpcClient's keepalive options, as the ledger client has. */
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** A plaintext channel to the echo server. */
export function echoClient(address: string): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
}

/**
 * A mutual-TLS channel to the echo server's TLS port: `caller`'s certificate presented, the server's
 * checked against `caller`'s CA and against the address's host (the bench's certificates name 127.0.0.1).
 */
export function echoTlsClient(address: string, caller: MeshIdentity): grpc.Client {
  return new grpc.Client(
    address,
    grpc.credentials.createSsl(caller.ca, caller.key, caller.cert),
    CHANNEL_OPTIONS,
  );
}

/** Promise-returning echo with a deadline (the ledger calls use callUnary's 5 s deadline too). */
export function echo(client: grpc.Client, payload: Buffer, deadlineMs = 5_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      echoServiceDefinition.echo.path,
      identity,
      identity,
      payload,
      new grpc.Metadata(),
      { deadline: Date.now() + deadlineMs },
      (err, res) => (err ? reject(err) : res ? resolve(res) : reject(new Error('echo: no response'))),
    );
  });
}
