/**
 * A service's personal-data keys while identity is out of reach: the look-up fails as `unavailable`, so the
 * call that needed a key answers UNAVAILABLE (503 at the gateway, retried by its caller with its key) and
 * never INTERNAL (a 500 that leaves a committed command's outcome unknown to its caller). With identity
 * present: services/identity/src/adapters/personalData.int.spec.ts.
 */
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { DomainError } from './eventSourcing/errors.js';
import { toGrpcStatus } from './grpc/status.js';
import { DEV_INTERNAL_SERVICE_TOKEN, PersonalData } from './personalData.js';
import { RemotePersonalDataKeys } from './personalData.remote.js';
import { freePort } from './util/freePort.js';

describe('personal-data keys from identity, identity out of reach', () => {
  it('a key look-up, a seal and a visitor key fail as unavailable (UNAVAILABLE over gRPC)', async () => {
    // a port nothing listens on: identity killed
    const remote = new RemotePersonalDataKeys({
      target: `127.0.0.1:${await freePort()}`,
      token: DEV_INTERNAL_SERVICE_TOKEN,
      deadlineMs: 2_000,
    });
    try {
      const failures = await Promise.all(
        [
          () => remote.find('user-1'),
          () => new PersonalData(remote).seal('user-2', 'Ada Lovelace'),
          () => remote.findOrCreate('visitor-3'),
        ].map((attempt) =>
          attempt().then(
            () => null,
            (err: unknown) => err,
          ),
        ),
      );
      for (const err of failures) {
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).kind).toBe('unavailable');
        expect(toGrpcStatus(err).code).toBe(grpc.status.UNAVAILABLE);
      }
    } finally {
      remote.close();
    }
  });
});
