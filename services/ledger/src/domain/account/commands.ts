/**
 * The commands of a user's ledger (ids, idempotency keys and time come in), and the payload
 * fingerprint an idempotency key is bound to.
 */
import type { Cents } from '@meridian/platform/money/money';
import type { AdjustableAccount, AdjustmentOperation, HoldPurpose } from './accounts.js';

type MoneyCommandBase = {
  userId: string;
  /** Id of the command or event that caused this posting; the same key never moves money twice. */
  idempotencyKey: string;
  /** Id for the transaction this command would post (fresh per attempt; not part of the fingerprint). */
  transactionId: string;
  now: Date;
};

/** Confirmed deposit: cash -> deposit. */
export type CreditDeposit = MoneyCommandBase & {
  type: 'CreditDeposit';
  depositId: string;
  amountCents: Cents;
  /** The least first deposit that earns a referral bonus (configuration; default REFERRAL_MIN_FIRST_DEPOSIT_CENTS). */
  referralMinimumCents?: Cents;
};
/** holdId = the id of the investment or withdrawal the funds are reserved for. */
export type PlaceHold = MoneyCommandBase & {
  type: 'PlaceHold';
  holdId: string;
  purpose: HoldPurpose;
  amountCents: Cents;
};
export type CaptureHold = MoneyCommandBase & { type: 'CaptureHold'; holdId: string };
export type ReleaseHold = MoneyCommandBase & { type: 'ReleaseHold'; holdId: string };
/** Maturity: principal from invested, profit from yield, both to profit (Total Profit). */
export type SettleMaturity = MoneyCommandBase & {
  type: 'SettleMaturity';
  investmentId: string;
  principalCents: Cents;
  maturityAmountCents: Cents;
};
export type AdjustBalance = MoneyCommandBase & {
  type: 'AdjustBalance';
  adminId: string;
  /** The caller's role as the service looked it up (never from a request body). */
  actorRole: string;
  account: AdjustableAccount;
  operation: AdjustmentOperation;
  amountCents: Cents;
  reason?: string;
};
/** On the referrer's ledger. */
export type PayReferralBonus = MoneyCommandBase & {
  type: 'PayReferralBonus';
  refereeId: string;
  depositId: string;
};
/** From identity's UserRegistered(referredBy). */
export type LinkReferrer = { type: 'LinkReferrer'; userId: string; referrerId: string; now: Date };

export type LedgerCommand =
  | CreditDeposit
  | PlaceHold
  | CaptureHold
  | ReleaseHold
  | SettleMaturity
  | AdjustBalance
  | PayReferralBonus
  | LinkReferrer;

/** Every command but LinkReferrer moves money, under an idempotency key. */
export type MoneyCommand = Exclude<LedgerCommand, LinkReferrer>;

/** Not part of what a key is bound to: the key itself, per-attempt values and configuration. */
const VOLATILE_KEYS = new Set(['idempotencyKey', 'transactionId', 'now', 'referralMinimumCents']);

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * The payload fingerprint bound to an idempotency key: a canonical text of the command without its
 * key, transaction id and time (a retry carries a fresh transaction id and clock).
 */
export function fingerprintOf(command: LedgerCommand): string {
  const payload = Object.fromEntries(Object.entries(command).filter(([k]) => !VOLATILE_KEYS.has(k)));
  return canonical(payload);
}
