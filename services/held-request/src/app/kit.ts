/**
 * What a held-request service's app/ layer takes from the platform through its context.ts: who is
 * calling (Actor, as the gateway established it: user id from the session, role from identity's
 * Authenticate — trusted from callers inside the cluster, never from a browser, and every power
 * re-checked against it), the power checks, id syntax, event metadata, the retried transaction, the
 * answers' wording, and the ledger's refusal (versus an unknown outcome).
 */
import { REQUEST_MESSAGES } from '@meridian/platform/app/requestContext';

export {
  type Actor,
  actorOf,
  checkId,
  inTransaction,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from '@meridian/platform/app/requestContext';
export { ledgerRefusal } from './holdLedger.js';

export const MESSAGES = {
  ...REQUEST_MESSAGES,
  pendingOutcome:
    'Your request is recorded but its funds could not be confirmed yet; it will be completed shortly',
} as const;
