/**
 * A tiny JSON-serialised gRPC method definition for tests of the platform's gRPC plumbing (real services use
 * ts-proto definitions): `jsonMethod('meridian.test.v1.TestService', 'Fail')`.
 */
import type * as grpc from '@grpc/grpc-js';
import { startGrpcServer, unaryHandlers, type GrpcServerHandle } from '../grpc/server.js';

const serialize = (v: unknown) => Buffer.from(JSON.stringify(v));
const deserialize = (b: Buffer) => JSON.parse(b.toString()) as unknown;

export function jsonMethod(service: string, name: string): grpc.MethodDefinition<unknown, unknown> {
  return {
    path: `/${service}/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: serialize,
    requestDeserialize: deserialize,
    responseSerialize: serialize,
    responseDeserialize: deserialize,
  };
}

/**
 * A gRPC server on a free loopback port serving one test service whose methods are `handlers` (each wrapped
 * by unaryHandlers, as the services' are): the platform's gRPC specs' server.
 */
export function startTestGrpcServer(
  definition: grpc.ServiceDefinition,
  handlers: Parameters<typeof unaryHandlers>[0],
): Promise<GrpcServerHandle> {
  return startGrpcServer({
    address: '127.0.0.1:0',
    services: [{ definition, implementation: unaryHandlers(handlers) }],
  });
}
