/**
 * A hand-written gRPC service definition for the baseline: `/bench.Echo/Echo`, unary, the message is
 * raw bytes (no protobuf), so the figure is the cost of grpc-js itself on this machine.
 */
import * as grpc from '@grpc/grpc-js';

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

/** A plain channel to the echo server (createGrpcClient's keepalive options, as the ledger client has). */
export function echoClient(address: string): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_reconnect_backoff_ms': 2_000,
  });
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
      (err, res) => (err ? reject(err) : resolve(res as Buffer)),
    );
  });
}
