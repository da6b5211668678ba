import { invalid } from '@meridian/platform/eventSourcing/errors';
import { personalDataOf, type PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';

export const SERVICE = 'ledger';
/** Consumer group of the ledger on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'ledger';

export interface LedgerContext {
  store: ServiceStore;
  clock: () => Date;
  newId: () => string;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
  /** The least first confirmed deposit that earns a referral bonus (default REFERRAL_MIN_FIRST_DEPOSIT_CENTS). */
  referralMinimumCents?: number;
  /** How many of a user's deposits may be pending at once (default DEFAULT_MAX_PENDING_PER_USER). */
  maxPendingDeposits?: number;
  /**
   * Opens the personal data the directory keeps sealed (names and emails, each with its owner's key) for
   * answers. Absent (contexts built by tests): the process-wide one (`personalDataOf`).
   */
  personalData?: PersonalData;
}

/** The context's personal data (the process-wide one when the context has none). */
export const personalDataIn = (ctx: Pick<LedgerContext, 'personalData'>): PersonalData =>
  ctx.personalData ?? personalDataOf({});

/**
 * Who is calling, as the gateway established it: user id from the session, role from identity's
 * Authenticate. The ledger does not own users, so it trusts these two fields from its callers inside
 * the cluster (never from a browser) and re-checks every power against them. The platform's Actor.
 */
export type { Actor } from '@meridian/platform/eventSourcing/types';

export const MESSAGES = {
  userRequired: 'User id is required',
  userNotFound: 'User not found or deleted',
  /** The user exists (identity holds their key) but the ledger has not heard of them yet: retry shortly. */
  userNotCaughtUp: 'The ledger is still catching up with this new user, please try again in a moment',
  badKey: 'Idempotency key must be 1-128 letters, digits or . _ : -',
} as const;

// the power checks (with their texts, REQUEST_MESSAGES) and the retried transaction are the platform's, shared
// with investment and withdrawal
export { requireActor, requireAdmin, requireOwnerOrAdmin } from '@meridian/platform/app/requestContext';

const KEY = /^[A-Za-z0-9_.:-]{1,128}$/;
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw invalid(MESSAGES.badKey);
  return key;
}

/** The metadata of the events a call appends (the current correlation id or a fresh one, the actor, the cause). */
export { metaOf } from '@meridian/platform/app/requestContext';

/**
 * Runs read -> decide -> append (+ projections) in one transaction, again from the start when another
 * writer appended to the stream first (ConcurrencyError), at most `maxAttempts` times.
 */
export { inTransaction } from '@meridian/platform/app/requestContext';
