import { type Actor, REQUEST_MESSAGES, executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
  toInvestmentStreamId,
} from '../domain/investment.js';
import type { Plan } from '../domain/plan.js';
import { COLLECTIONS, type InvestmentDoc, projectInvestment } from '../projections/investmentView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'investment';
/** Consumer group of the investment service on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'investment';

export interface InvestmentContext {
  store: ServiceStore;
  ledger: LedgerPort;
  plans: readonly Plan[];
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  /** Called after an approval or a maturity: the scheduler re-arms its timer. */
  onScheduleChanged?: () => void;
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

// the caller's powers, id syntax, event metadata and the retried transaction: shared with withdrawal
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

const INVESTMENT_STREAM = {
  decider: investmentDecider,
  streamIdOf: toInvestmentStreamId,
  collection: COLLECTIONS.investments,
  project: projectInvestment,
};

/**
 * read -> decide -> append -> project, in one transaction (retried on a concurrent append). The
 * command is built from the current state (so it can carry what it read).
 */
export async function executeInvestment(
  ctx: InvestmentContext,
  investmentId: string,
  command: (state: InvestmentState) => InvestmentCommand,
  meta: EventMeta,
): Promise<{ events: InvestmentEvent[]; doc: InvestmentDoc | null }> {
  return executeOnStream(ctx, INVESTMENT_STREAM, investmentId, command, meta);
}
