import { executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { HeldRequestContext } from '@meridian/held-request/app/heldRequests';
import {
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalState,
  withdrawalDecider,
} from '../domain/withdrawal.js';
import { type WithdrawalDoc, withdrawalView } from '../projections/withdrawalView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'withdrawal';

/** The held-request context (personalData also seals the wallet address; WITHDRAWAL_MAX_PENDING). */
export type WithdrawalContext = HeldRequestContext<LedgerPort>;

// the caller (Actor), its powers, id syntax, event metadata, the retried transaction, MESSAGES and
// ledgerRefusal: the held-request kit, shared with investment
export * from '@meridian/held-request/app/kit';

/** The withdrawal's stream and its read model (the command path's ProjectedStream). */
export const WITHDRAWAL_STREAM = { decider: withdrawalDecider, ...withdrawalView };

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
