import { executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
} from '../domain/investment.js';
import type { Plan } from '../domain/plan.js';
import { type InvestmentDoc, investmentView } from '../projections/investmentView.js';
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
  /** Opens the directory's names and emails (sealed with each owner's key) for answers. */
  personalData: PersonalData;
  /** Called after an approval or a maturity: the scheduler re-arms its timer. */
  onScheduleChanged?: () => void;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
}

// the caller (Actor), its powers, id syntax, event metadata, the retried transaction, MESSAGES and
// isUnknownOutcome: the held-request kit, shared with withdrawal
export * from '@meridian/platform/app/heldRequest/kit';

/** The investment's stream and its read model (the command path's ProjectedStream). */
export const INVESTMENT_STREAM = { decider: investmentDecider, ...investmentView };

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
