import { type Actor, REQUEST_MESSAGES, executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalState,
  withdrawalDecider,
  toWithdrawalStreamId,
} from '../domain/withdrawal.js';
import { COLLECTIONS, type WithdrawalDoc, projectWithdrawal } from '../projections/withdrawalView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'withdrawal';
/** Consumer group of the withdrawal service on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'withdrawal';

export interface WithdrawalContext {
  store: ServiceStore;
  ledger: LedgerPort;
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
}

/**
 * Who is calling, as the gateway established it: user id from the session, role from identity's
 * Authenticate. The service does not own users: it trusts these fields from its callers inside the
 * cluster (never from a browser) and re-checks every power against them.
 */
export type { Actor };

export const MESSAGES = {
  ...REQUEST_MESSAGES,
  pendingOutcome:
    'Your request is recorded but its funds could not be confirmed yet; it will be completed shortly',
} as const;

// the caller's powers, id syntax, event metadata and the retried transaction: shared with investment
export {
  checkId,
  inTransaction,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from '@meridian/platform/app/requestContext';

/** A ledger answer whose outcome is unknown (down, deadline, transport): retry later, decide nothing. */
export { isUnknownOutcome } from '@meridian/ledger/client/ledgerPort';

const WITHDRAWAL_STREAM = {
  decider: withdrawalDecider,
  streamIdOf: toWithdrawalStreamId,
  collection: COLLECTIONS.withdrawals,
  project: projectWithdrawal,
};

/**
 * read -> decide -> append -> project, in one transaction (retried on a concurrent append). The
 * command is built from the current state (so it can carry what it read).
 */
export async function executeWithdrawal(
  ctx: WithdrawalContext,
  withdrawalId: string,
  command: (state: WithdrawalState) => WithdrawalCommand,
  meta: EventMeta,
): Promise<{ events: WithdrawalEvent[]; doc: WithdrawalDoc | null }> {
  return executeOnStream(ctx, WITHDRAWAL_STREAM, withdrawalId, command, meta);
}
