/**
 * A tiny JSON-serialised gRPC method definition for tests of the platform's gRPC plumbing (real services use
 * ts-proto definitions): `jsonMethod('meridian.test.v1.TestService', 'Fail')`.
 */
import type * as grpc from '@grpc/grpc-js';

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
