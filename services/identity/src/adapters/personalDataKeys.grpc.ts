/**
 * identity's internal GetPersonalDataKeys: the per-user keys other services seal and open personal data with
 * (crypto-shredding). Only services call it: the caller must send the shared INTERNAL_SERVICE_TOKEN as
 * `x-service-token` metadata (the gateway never does, and never routes a user's request here); anything else
 * is PERMISSION_DENIED. A user without a key (never had one, or deleted) is left out of the answer.
 */
import { timingSafeEqual } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { forbidden } from '@meridian/platform/eventSourcing/errors';
import { unaryHandler } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { SERVICE_TOKEN_METADATA, type PersonalData } from '@meridian/platform/personalData';
import type {
  GetPersonalDataKeysRequest,
  GetPersonalDataKeysResponse,
} from '@meridian/proto/meridian/identity/v1/identity';

const MAX_USERS = 1_000;

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export function createPersonalDataKeysHandler(
  personalData: PersonalData,
  token: string | undefined,
  logger: Logger,
): grpc.handleUnaryCall<GetPersonalDataKeysRequest, GetPersonalDataKeysResponse> {
  return unaryHandler(
    async (req: GetPersonalDataKeysRequest, call) => {
      const given = call.metadata.get(SERVICE_TOKEN_METADATA)[0];
      if (!token || typeof given !== 'string' || !sameToken(given, token)) {
        throw forbidden('Not authorized');
      }
      const ids = [...new Set(req.userIds)].slice(0, MAX_USERS);
      const keys: GetPersonalDataKeysResponse['keys'] = [];
      for (const userId of ids) {
        const key = await personalData.key(userId);
        if (key) keys.push({ userId, key });
      }
      return { keys };
    },
    { logger },
  );
}
