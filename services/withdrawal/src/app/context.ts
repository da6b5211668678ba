import { executeOnStream } from '@meridian/platform/app/requestContext';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalState,
  withdrawalDecider,
} from '../domain/withdrawal.js';
import { type WithdrawalDoc, withdrawalView } from '../projections/withdrawalView.js';
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
  /** Seals the wallet address with its owner's key and opens it (and the directory's names) for answers. */
  personalData: PersonalData;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
  /** How many of a user's withdrawals may be pending at once (default 5; WITHDRAWAL_MAX_PENDING). */
  maxPendingPerUser?: number;
}

// the caller (Actor), its powers, id syntax, event metadata, the retried transaction, MESSAGES and
// isUnknownOutcome: the held-request kit, shared with investment
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
