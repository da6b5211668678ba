/**
 * The events of a user's ledger stream (their data mirror proto/meridian/ledger/v1/events.proto; the
 * integration events are built from them in app/integrationEvents.ts).
 */
import type { DomainEvent } from '@meridian/platform/eventSourcing/types';
import type { Cents } from '@meridian/platform/money/money';
import type { HoldPurpose, LedgerTransaction, UserAccountKind } from './accounts.js';
import type { ChainFields } from './chain.js';

export type Balances = Record<UserAccountKind, Cents>;

/**
 * A posting. `seq`, `prevHash`, `hash`: its link in the user's hash chain (chain.ts), set by the app layer
 * when it appends (decide leaves them out); absent on events stored before the chain existed.
 */
export type TransactionPosted = DomainEvent<
  'TransactionPosted',
  LedgerTransaction & { userId: string; fingerprint: string } & Partial<ChainFields>
>;
/** What every step of a hold's life carries: the hold, and the transaction that moved its money. */
export type HoldMovement = {
  userId: string;
  holdId: string;
  purpose: HoldPurpose;
  amountCents: Cents;
  transactionId: string;
};
export type FundsHeld = DomainEvent<'FundsHeld', HoldMovement & { heldAt: string }>;
export type FundsCaptured = DomainEvent<'FundsCaptured', HoldMovement & { capturedAt: string }>;
export type FundsReleased = DomainEvent<'FundsReleased', HoldMovement & { releasedAt: string }>;
export type ReferrerLinked = DomainEvent<
  'ReferrerLinked',
  { userId: string; referrerId: string; linkedAt: string }
>;
/** In the referee's stream: their first confirmed deposit earned the referrer a bonus (paid by PayReferralBonus). */
export type ReferralBonusEarned = DomainEvent<
  'ReferralBonusEarned',
  { userId: string; referrerId: string; depositId: string; amountCents: Cents }
>;
/** In the referrer's stream. */
export type ReferralBonusPaid = DomainEvent<
  'ReferralBonusPaid',
  {
    userId: string;
    refereeId: string;
    depositId: string;
    amountCents: Cents;
    transactionId: string;
    paidAt: string;
  }
>;
/**
 * The user's balances after a posting, for read models (identity's user view: balance = depositCents,
 * investmentBalance = investedCents, totalMaturityAmount = profitCents, each / 100 at the REST edge).
 */
export type BalancesChanged = DomainEvent<
  'BalancesChanged',
  {
    userId: string;
    transactionId: string;
    depositCents: Cents;
    investedCents: Cents;
    profitCents: Cents;
    withdrawalHoldCents: Cents;
    investmentHoldCents: Cents;
  }
>;

export type LedgerEvent =
  | TransactionPosted
  | FundsHeld
  | FundsCaptured
  | FundsReleased
  | ReferrerLinked
  | ReferralBonusEarned
  | ReferralBonusPaid
  | BalancesChanged;
