import * as grpc from '@grpc/grpc-js';
import { expect } from 'vitest';

/** Asserts a call failed with a gRPC status (and optionally its message). */
export async function expectStatus(
  promise: Promise<unknown>,
  code: grpc.status,
  details?: string,
): Promise<grpc.ServiceError> {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  expect(error, 'expected the call to fail').toBeDefined();
  const e = error as grpc.ServiceError;
  expect({ code: grpc.status[e.code], details: details === undefined ? undefined : e.details }).toEqual({
    code: grpc.status[code],
    details,
  });
  return e;
}

export { grpc };
