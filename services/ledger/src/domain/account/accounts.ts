/**
 * The accounts of the ledger and the shape of a transaction (architecture.md §3): account kinds and ids,
 * entries, reasons, references, and the one rule of double entry (two or more entries on distinct
 * accounts summing to zero).
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { type Cents, isCents } from '@meridian/platform/money/money';

/**
 * Per-user accounts. `investment_hold` joins the four of architecture.md §3: it holds the funds of pending
 * investments as `withdrawal_hold` does for pending withdrawals.
 */
export const USER_ACCOUNT_KINDS = [
  'deposit',
  'invested',
  'profit',
  'withdrawal_hold',
  'investment_hold',
] as const;
export type UserAccountKind = (typeof USER_ACCOUNT_KINDS)[number];
export const PLATFORM_ACCOUNT_KINDS = ['cash', 'yield', 'referral', 'adjustment'] as const;
export type PlatformAccountKind = (typeof PLATFORM_ACCOUNT_KINDS)[number];

/** The accounts an admin may adjust, with the spec's names: Deposit Balance, Total Investment, Total Profit. */
export const ADJUSTABLE_ACCOUNTS = ['deposit', 'invested', 'profit'] as const;
export type AdjustableAccount = (typeof ADJUSTABLE_ACCOUNTS)[number];
export const ADJUSTMENT_OPERATIONS = ['add', 'deduct'] as const;
export type AdjustmentOperation = (typeof ADJUSTMENT_OPERATIONS)[number];

export const HOLD_PURPOSES = ['investment', 'withdrawal'] as const;
export type HoldPurpose = (typeof HOLD_PURPOSES)[number];

/** Account ids: `user:<userId>:<kind>` and `platform:<kind>`. */
export const userAccount = (userId: string, kind: UserAccountKind) => `user:${userId}:${kind}`;
export const platformAccount = (kind: PlatformAccountKind) => `platform:${kind}`;

export type ParsedAccountId =
  { owner: 'user'; userId: string; kind: UserAccountKind } | { owner: 'platform'; kind: PlatformAccountKind };

export function parseAccountId(accountId: string): ParsedAccountId | null {
  if (accountId.startsWith('platform:')) {
    const kind = accountId.slice('platform:'.length);
    return (PLATFORM_ACCOUNT_KINDS as readonly string[]).includes(kind)
      ? { owner: 'platform', kind: kind as PlatformAccountKind }
      : null;
  }
  if (accountId.startsWith('user:')) {
    const rest = accountId.slice('user:'.length);
    const cut = rest.lastIndexOf(':');
    if (cut <= 0) return null;
    const kind = rest.slice(cut + 1);
    if (!(USER_ACCOUNT_KINDS as readonly string[]).includes(kind)) return null;
    return { owner: 'user', userId: rest.slice(0, cut), kind: kind as UserAccountKind };
  }
  return null;
}

export const toAccountStreamId = (userId: string) => `ledger-${userId}`;

// ---------- transactions ----------

export type LedgerEntry = { accountId: string; amountCents: Cents };

export const LEDGER_REASONS = [
  'deposit_confirmed',
  'hold_placed',
  'hold_captured',
  'hold_released',
  'investment_matured',
  'admin_adjustment',
  'referral_bonus',
] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

/** What a transaction is about: the ids it refers to, each optional (read models keep one column per key). */
export const LEDGER_REFERENCE_KEYS = [
  'depositId',
  'investmentId',
  'withdrawalId',
  'holdId',
  'adminId',
  'refereeId',
] as const;
export type LedgerReferenceKey = (typeof LEDGER_REFERENCE_KEYS)[number];
export type LedgerReferences = Partial<Record<LedgerReferenceKey, string>>;

export type LedgerTransaction = {
  transactionId: string;
  idempotencyKey: string;
  reason: LedgerReason;
  /** Free text for people (the admin's reason on adjustments). */
  memo: string;
  references: LedgerReferences;
  entries: LedgerEntry[];
  /** ISO-8601 */
  postedAt: string;
};

/** Why a list of entries is not a valid transaction, or null when it is one. */
export function transactionProblem(entries: readonly LedgerEntry[]): string | null {
  if (entries.length < 2) return 'A transaction needs at least two entries';
  const seen = new Set<string>();
  let sum = 0n;
  for (const entry of entries) {
    if (parseAccountId(entry.accountId) === null) return `Unknown account ${entry.accountId}`;
    if (seen.has(entry.accountId)) return `Account ${entry.accountId} appears twice`;
    seen.add(entry.accountId);
    if (!isCents(entry.amountCents) || entry.amountCents === 0)
      return 'Every entry must be a non-zero whole number of cents';
    sum += BigInt(entry.amountCents);
  }
  return sum === 0n ? null : 'The entries of a transaction must sum to zero';
}

export function assertBalancedTransaction(entries: readonly LedgerEntry[]): void {
  const problem = transactionProblem(entries);
  if (problem) throw invalid(problem);
}
