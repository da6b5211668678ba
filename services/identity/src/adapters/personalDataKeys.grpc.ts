/**
 * identity's internal GetPersonalDataKeys: the per-user keys other services seal and open personal data with
 * (crypto-shredding). Only services call it: the caller must send the shared INTERNAL_SERVICE_TOKEN as
 * `x-service-token` metadata (the gateway never does, and never routes a user's request here); anything else
 * is PERMISSION_DENIED. A user without a key (never had one, or deleted) is left out of the answer. Support
 * visitors (ids `visitor-<uuid>`: people who wrote to support without an account) get their key made on
 * request, and destroyed on request (their conversation joined an account whose user was deleted); no
 * other id is made or destroyed here.
 */
import { timingSafeEqual } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { forbidden } from '@meridian/platform/eventSourcing/errors';
import { unaryHandler } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import {
  SERVICE_TOKEN_METADATA,
  isUserKeyDestroyed,
  type PersonalData,
} from '@meridian/platform/personalData';
import type {
  GetPersonalDataKeysRequest,
  GetPersonalDataKeysResponse,
} from '@meridian/proto/meridian/identity/v1/identity';

const MAX_USERS = 1_000;
const VISITOR_ID = /^visitor-[A-Za-z0-9-]{1,100}$/;

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Whether a call carries the shared INTERNAL_SERVICE_TOKEN as `x-service-token` (never when there is none). */
export function presentsServiceToken(metadata: grpc.Metadata, token: string | undefined): boolean {
  const given = metadata.get(SERVICE_TOKEN_METADATA)[0];
  return !!token && typeof given === 'string' && sameToken(given, token);
}

export function createPersonalDataKeysHandler(
  personalData: PersonalData,
  token: string | undefined,
  logger: Logger,
): grpc.handleUnaryCall<GetPersonalDataKeysRequest, GetPersonalDataKeysResponse> {
  return unaryHandler(
    async (req: GetPersonalDataKeysRequest, call) => {
      if (!presentsServiceToken(call.metadata, token)) throw forbidden('Not authorized');
      const visitors = (list: string[]) =>
        [...new Set(list)].filter((v) => VISITOR_ID.test(v)).slice(0, MAX_USERS);
      for (const visitorId of visitors(req.destroyVisitorIds)) await personalData.shred(visitorId);
      for (const visitorId of visitors(req.createVisitorIds)) {
        // sealing makes the key when missing; a destroyed visitor's stays destroyed (left out below)
        await personalData.seal(visitorId, '').catch((err: unknown) => {
          if (!isUserKeyDestroyed(err)) throw err;
        });
      }
      const ids = [...new Set([...req.userIds, ...visitors(req.createVisitorIds)])].slice(0, MAX_USERS);
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
