/**
 * What a held-request service's app/ layer takes from the platform through its context.ts: who is
 * calling (Actor, as the gateway established it: user id from the session, role from identity's
 * Authenticate — trusted from callers inside the cluster, never from a browser, and every power
 * re-checked against it), the power checks, id syntax, event metadata, the retried transaction, the
 * answers' wording, and what an unknown ledger outcome is.
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import { type Actor, REQUEST_MESSAGES } from '../requestContext.js';

export {
  type Actor,
  checkId,
  inTransaction,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from '../requestContext.js';
export { isUnknownOutcome } from './holdLedger.js';

export const MESSAGES = {
  ...REQUEST_MESSAGES,
  pendingOutcome:
    'Your request is recorded but its funds could not be confirmed yet; it will be completed shortly',
} as const;

/** The Actor of a gRPC request: `caller` and `caller_role` as the gateway filled them. */
export function actorOf(caller: Caller | undefined, role: string): Actor {
  return {
    userId: caller?.userId ?? '',
    role: role ?? '',
    ...(caller?.impersonatorId ? { impersonatorId: caller.impersonatorId } : {}),
    ...(caller?.address ? { address: caller.address } : {}),
  };
}
