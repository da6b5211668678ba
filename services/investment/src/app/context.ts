import { executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { HeldRequestContext } from '@meridian/held-request/app/heldRequests';
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

/** The held-request context (INVESTMENT_MAX_PENDING), the plans, and the scheduler's hook. */
export interface InvestmentContext extends HeldRequestContext<LedgerPort> {
  plans: readonly Plan[];
  /** Called after an approval or a maturity: the scheduler re-arms its timer. */
  onScheduleChanged?: () => void;
}

// the caller (Actor), its powers, id syntax, event metadata, the retried transaction, MESSAGES and
// ledgerRefusal: the held-request kit, shared with withdrawal
export * from '@meridian/held-request/app/kit';

/**
 * The investment's stream and its read model (the command path's ProjectedStream): a command decides on
 * the investment's document (requestView's snapshotOf), whatever the stream's length.
 */
export const INVESTMENT_STREAM = { decider: investmentDecider, ...investmentView };

/**
 * read -> decide -> append -> project on an investment's stream, in one transaction retried on a
 * concurrent append (executeOnStream on INVESTMENT_STREAM). `options.read`: the document as the caller
 * just read it (the batch pass's scan), saving the read.
 */
export const executeInvestment = (
  ctx: InvestmentContext,
  investmentId: string,
  command: (state: InvestmentState) => InvestmentCommand,
  meta: EventMeta,
  options: { read?: InvestmentDoc } = {},
): Promise<{ events: InvestmentEvent[]; doc: InvestmentDoc | null }> =>
  executeOnStream(ctx, INVESTMENT_STREAM, investmentId, command, meta, options);
