/**
 * The user's ledger (stream `ledger-<userId>`): pure decider over the accounts of ONE user.
 *
 * Double entry (DESIGN.md §3): every money movement is a LedgerTransaction of two or more entries that
 * sum to zero. An account's balance is the sum of its entries. User accounts (`deposit`, `invested`,
 * `profit`, `withdrawal_hold`, `investment_hold`) never go negative; platform accounts (`cash`, `yield`,
 * `referral`, `adjustment`) are the counterparts and carry the opposite sign (cash goes negative as
 * money comes in from the outside world). Every transaction touches the accounts of one user at most,
 * so this one stream (optimistic concurrency on its version) serialises everything that could overdraw
 * them; platform balances are projections over all streams.
 *
 * Holds are two-phase postings: PlaceHold moves the amount from the source account (deposit for an
 * investment, profit for a withdrawal) into the matching hold account, so the shown balance drops at
 * request time and no second request can spend the same dollar; CaptureHold moves it on (to `invested`,
 * or to `cash` = paid out), ReleaseHold moves it back. Each happens at most once per hold.
 *
 * Idempotency: every money command carries an idempotency key (the id of the command or event that
 * caused it). The same key with the same payload fingerprint decides nothing new (the app answers with
 * the earlier result: `earlierResult`, `holdOf`); the same key with another payload is refused.
 * Refusals (insufficient balance) are thrown, not recorded: nothing moved, so a retry decides afresh.
 */
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { REFERRAL_BONUS_CENTS, referralBonusFor } from './deposit.js';
import { type Cents, assertPositiveCents, isCents } from '@meridian/platform/money/money';

// ---------- accounts ----------

/**
 * Per-user accounts. `investment_hold` joins the four of DESIGN.md §3: it holds the funds of pending
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

export type LedgerReferences = {
  depositId?: string;
  investmentId?: string;
  withdrawalId?: string;
  holdId?: string;
  adminId?: string;
  refereeId?: string;
};

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

// ---------- events (data mirror proto/meridian/ledger/v1/events.proto once it exists) ----------

export type Balances = Record<UserAccountKind, Cents>;

export type TransactionPosted = {
  type: 'TransactionPosted';
  data: LedgerTransaction & { userId: string; fingerprint: string };
};
export type FundsHeld = {
  type: 'FundsHeld';
  data: {
    userId: string;
    holdId: string;
    purpose: HoldPurpose;
    amountCents: Cents;
    transactionId: string;
    heldAt: string;
  };
};
export type FundsCaptured = {
  type: 'FundsCaptured';
  data: {
    userId: string;
    holdId: string;
    purpose: HoldPurpose;
    amountCents: Cents;
    transactionId: string;
    capturedAt: string;
  };
};
export type FundsReleased = {
  type: 'FundsReleased';
  data: {
    userId: string;
    holdId: string;
    purpose: HoldPurpose;
    amountCents: Cents;
    transactionId: string;
    releasedAt: string;
  };
};
export type ReferrerLinked = {
  type: 'ReferrerLinked';
  data: { userId: string; referrerId: string; linkedAt: string };
};
/** In the referee's stream: their first confirmed deposit earned the referrer a bonus (paid by PayReferralBonus). */
export type ReferralBonusEarned = {
  type: 'ReferralBonusEarned';
  data: { userId: string; referrerId: string; depositId: string; amountCents: Cents };
};
/** In the referrer's stream. */
export type ReferralBonusPaid = {
  type: 'ReferralBonusPaid';
  data: {
    userId: string;
    refereeId: string;
    depositId: string;
    amountCents: Cents;
    transactionId: string;
    paidAt: string;
  };
};
/**
 * The user's balances after a posting, for read models (identity's user view: balance = depositCents,
 * investmentBalance = investedCents, totalMaturityAmount = profitCents, each / 100 at the REST edge).
 */
export type BalancesChanged = {
  type: 'BalancesChanged';
  data: {
    userId: string;
    transactionId: string;
    depositCents: Cents;
    investedCents: Cents;
    profitCents: Cents;
    withdrawalHoldCents: Cents;
    investmentHoldCents: Cents;
  };
};

export type LedgerEvent =
  | TransactionPosted
  | FundsHeld
  | FundsCaptured
  | FundsReleased
  | ReferrerLinked
  | ReferralBonusEarned
  | ReferralBonusPaid
  | BalancesChanged;

// ---------- commands (ids, keys and time come in) ----------

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

// ---------- state ----------

export type HoldStatus = 'held' | 'captured' | 'released';
export type Hold = {
  holdId: string;
  purpose: HoldPurpose;
  amountCents: Cents;
  status: HoldStatus;
  transactionId: string;
};

export type LedgerState = {
  userId: string | null;
  balances: Balances;
  holds: Record<string, Hold>;
  /** idempotency key -> what it decided */
  processed: Record<string, { fingerprint: string; transactionId: string }>;
  referrerId: string | null;
  confirmedDeposits: number;
  creditedDeposits: Record<string, true>;
  settledInvestments: Record<string, true>;
  /** referee ids this user (as referrer) has been paid a bonus for */
  referralBonusesPaid: Record<string, true>;
};

const zeroBalances = (): Balances => ({
  deposit: 0,
  invested: 0,
  profit: 0,
  withdrawal_hold: 0,
  investment_hold: 0,
});

export const initialState = (): LedgerState => ({
  userId: null,
  balances: zeroBalances(),
  holds: {},
  processed: {},
  referrerId: null,
  confirmedDeposits: 0,
  creditedDeposits: {},
  settledInvestments: {},
  referralBonusesPaid: {},
});

/** A copy that `apply` may change without touching the original (hold records are replaced, never mutated). */
function draftOf(state: LedgerState): LedgerState {
  return {
    ...state,
    balances: { ...state.balances },
    holds: { ...state.holds },
    processed: { ...state.processed },
    creditedDeposits: { ...state.creditedDeposits },
    settledInvestments: { ...state.settledInvestments },
    referralBonusesPaid: { ...state.referralBonusesPaid },
  };
}

/** The one place events change state; it mutates a draft (see evolve and foldLedger). */
function apply(draft: LedgerState, event: LedgerEvent): void {
  if (draft.userId === null) draft.userId = event.data.userId;
  switch (event.type) {
    case 'TransactionPosted': {
      const tx = event.data;
      for (const entry of tx.entries) {
        const account = parseAccountId(entry.accountId);
        if (account?.owner === 'user' && account.userId === tx.userId)
          draft.balances[account.kind] += entry.amountCents;
      }
      draft.processed[tx.idempotencyKey] = { fingerprint: tx.fingerprint, transactionId: tx.transactionId };
      if (tx.reason === 'deposit_confirmed' && tx.references.depositId) {
        draft.confirmedDeposits += 1;
        draft.creditedDeposits[tx.references.depositId] = true;
      }
      if (tx.reason === 'investment_matured' && tx.references.investmentId)
        draft.settledInvestments[tx.references.investmentId] = true;
      return;
    }
    case 'FundsHeld': {
      const { holdId, purpose, amountCents, transactionId } = event.data;
      draft.holds[holdId] = { holdId, purpose, amountCents, transactionId, status: 'held' };
      return;
    }
    case 'FundsCaptured':
    case 'FundsReleased': {
      const hold = draft.holds[event.data.holdId];
      if (hold)
        draft.holds[hold.holdId] = {
          ...hold,
          status: event.type === 'FundsCaptured' ? 'captured' : 'released',
        };
      return;
    }
    case 'ReferrerLinked':
      draft.referrerId = event.data.referrerId;
      return;
    case 'ReferralBonusPaid':
      draft.referralBonusesPaid[event.data.refereeId] = true;
      return;
    case 'ReferralBonusEarned':
    case 'BalancesChanged':
      return;
    default: {
      const _exhaustive: never = event;
      return;
    }
  }
}

/** Pure: returns a new state, never changes `state`. O(size of state) per event. */
export function evolve(state: LedgerState, event: LedgerEvent): LedgerState {
  const draft = draftOf(state);
  apply(draft, event);
  return draft;
}

/**
 * The same as `events.reduce(evolve, from)`, in time linear in the number of events (one copy, then
 * in-place application): what the app layer uses to load a long ledger stream.
 */
export function foldLedger(events: readonly LedgerEvent[], from: LedgerState = initialState()): LedgerState {
  const draft = draftOf(from);
  for (const event of events) apply(draft, event);
  return draft;
}

// ---------- messages ----------

export const LEDGER_MESSAGES = {
  insufficientBalance: 'Insufficient balance',
  insufficientForDeduction: 'Insufficient balance for this deduction',
  insufficientInvested: 'Insufficient invested balance to settle this investment',
  idempotencyConflict: 'Idempotency key reused with a different request',
  holdNotFound: 'Hold not found',
  holdAlreadyPlaced: 'Funds are already held for this request',
  holdAlreadyCaptured: 'This hold has already been captured',
  holdAlreadyReleased: 'This hold has already been released',
  notAuthorized: 'Not authorized, admin only',
  invalidOperation: 'Operation must be add or deduct',
  invalidAccount: 'Balance must be one of deposit, invested or profit',
  amountNotPositive: 'Amount must be greater than zero',
  maturityBelowPrincipal: 'The maturity amount cannot be less than the principal',
  reasonTooLong: 'Reason is too long',
  selfReferral: 'A user cannot refer themselves',
  referrerRequired: 'Referrer is required',
  alreadyReferred: 'This user already has a different referrer',
  wrongLedger: "This command is for another user's ledger",
  missingId: 'Command is missing an id',
} as const;

// ---------- helpers for the app layer ----------

export const balancesOf = (state: LedgerState): Balances => ({ ...state.balances });

/** What an idempotency key decided earlier, if anything (the answer to repeat on a retry). */
export function earlierResult(state: LedgerState, idempotencyKey: string) {
  return state.processed[idempotencyKey];
}

export const holdOf = (state: LedgerState, holdId: string): Hold | undefined => state.holds[holdId];

const VOLATILE_KEYS = new Set(['idempotencyKey', 'transactionId', 'now']);

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

// ---------- decide ----------

type MoneyCommand = Exclude<LedgerCommand, LinkReferrer>;

function posting(
  state: LedgerState,
  command: MoneyCommand,
  reason: LedgerReason,
  references: LedgerReferences,
  entries: LedgerEntry[],
  refusal: string,
  memo = '',
): { posted: TransactionPosted; after: LedgerState } {
  // The one guard of "a user account never goes negative": every posting passes through here.
  assertBalancedTransaction(entries);
  const posted: TransactionPosted = {
    type: 'TransactionPosted',
    data: {
      userId: command.userId,
      transactionId: command.transactionId,
      idempotencyKey: command.idempotencyKey,
      fingerprint: fingerprintOf(command),
      reason,
      memo,
      references,
      entries,
      postedAt: command.now.toISOString(),
    },
  };
  const after = evolve(state, posted);
  for (const kind of USER_ACCOUNT_KINDS) {
    if (!Number.isSafeInteger(after.balances[kind])) throw invalid('Amount is too large');
    if (after.balances[kind] < 0) throw precondition(refusal, 'INSUFFICIENT_FUNDS');
  }
  return { posted, after };
}

function balancesChanged(state: LedgerState, transactionId: string): BalancesChanged {
  const b = state.balances;
  return {
    type: 'BalancesChanged',
    data: {
      userId: state.userId ?? '',
      transactionId,
      depositCents: b.deposit,
      investedCents: b.invested,
      profitCents: b.profit,
      withdrawalHoldCents: b.withdrawal_hold,
      investmentHoldCents: b.investment_hold,
    },
  };
}

const sourceOf = (purpose: HoldPurpose): UserAccountKind => (purpose === 'investment' ? 'deposit' : 'profit');
const holdAccountOf = (purpose: HoldPurpose): UserAccountKind =>
  purpose === 'investment' ? 'investment_hold' : 'withdrawal_hold';
const holdReferences = (hold: { holdId: string; purpose: HoldPurpose }): LedgerReferences =>
  hold.purpose === 'investment'
    ? { holdId: hold.holdId, investmentId: hold.holdId }
    : { holdId: hold.holdId, withdrawalId: hold.holdId };

function checkCommon(command: MoneyCommand, state: LedgerState): 'repeat' | 'new' {
  if (!command.userId || !command.idempotencyKey || !command.transactionId)
    throw invalid(LEDGER_MESSAGES.missingId);
  if (state.userId !== null && state.userId !== command.userId) throw invalid(LEDGER_MESSAGES.wrongLedger);
  const earlier = state.processed[command.idempotencyKey];
  if (!earlier) return 'new';
  if (earlier.fingerprint === fingerprintOf(command)) return 'repeat';
  throw conflict(LEDGER_MESSAGES.idempotencyConflict, 'IDEMPOTENCY_CONFLICT');
}

export function decide(command: LedgerCommand, state: LedgerState): LedgerEvent[] {
  if (command.type === 'LinkReferrer') {
    if (!command.userId) throw invalid(LEDGER_MESSAGES.missingId);
    if (!command.referrerId) throw invalid(LEDGER_MESSAGES.referrerRequired);
    if (command.referrerId === command.userId) throw invalid(LEDGER_MESSAGES.selfReferral);
    if (state.userId !== null && state.userId !== command.userId) throw invalid(LEDGER_MESSAGES.wrongLedger);
    if (state.referrerId === command.referrerId) return [];
    if (state.referrerId !== null) throw conflict(LEDGER_MESSAGES.alreadyReferred);
    return [
      {
        type: 'ReferrerLinked',
        data: { userId: command.userId, referrerId: command.referrerId, linkedAt: command.now.toISOString() },
      },
    ];
  }

  if (checkCommon(command, state) === 'repeat') return [];
  const { userId } = command;
  const at = command.now.toISOString();

  switch (command.type) {
    case 'CreditDeposit': {
      assertPositiveCents(command.amountCents, LEDGER_MESSAGES.amountNotPositive);
      if (!command.depositId) throw invalid(LEDGER_MESSAGES.missingId);
      if (state.creditedDeposits[command.depositId]) return [];
      const { posted, after } = posting(
        state,
        command,
        'deposit_confirmed',
        { depositId: command.depositId },
        [
          { accountId: platformAccount('cash'), amountCents: -command.amountCents },
          { accountId: userAccount(userId, 'deposit'), amountCents: command.amountCents },
        ],
        LEDGER_MESSAGES.insufficientBalance,
      );
      const events: LedgerEvent[] = [posted, balancesChanged(after, command.transactionId)];
      const bonus = referralBonusFor({
        referrerId: state.referrerId,
        refereeId: userId,
        confirmedDepositsBefore: state.confirmedDeposits,
      });
      if (bonus) {
        events.push({
          type: 'ReferralBonusEarned',
          data: {
            userId,
            referrerId: bonus.referrerId,
            depositId: command.depositId,
            amountCents: bonus.amountCents,
          },
        });
      }
      return events;
    }

    case 'PlaceHold': {
      assertPositiveCents(command.amountCents, LEDGER_MESSAGES.amountNotPositive);
      if (!command.holdId) throw invalid(LEDGER_MESSAGES.missingId);
      if (!(HOLD_PURPOSES as readonly string[]).includes(command.purpose))
        throw invalid('Unknown hold purpose');
      if (state.holds[command.holdId]) throw conflict(LEDGER_MESSAGES.holdAlreadyPlaced);
      const source = sourceOf(command.purpose);
      const { posted, after } = posting(
        state,
        command,
        'hold_placed',
        holdReferences(command),
        [
          { accountId: userAccount(userId, source), amountCents: -command.amountCents },
          {
            accountId: userAccount(userId, holdAccountOf(command.purpose)),
            amountCents: command.amountCents,
          },
        ],
        LEDGER_MESSAGES.insufficientBalance,
      );
      return [
        posted,
        {
          type: 'FundsHeld',
          data: {
            userId,
            holdId: command.holdId,
            purpose: command.purpose,
            amountCents: command.amountCents,
            transactionId: command.transactionId,
            heldAt: at,
          },
        },
        balancesChanged(after, command.transactionId),
      ];
    }

    case 'CaptureHold':
    case 'ReleaseHold': {
      const hold = state.holds[command.holdId];
      if (!hold) throw notFound(LEDGER_MESSAGES.holdNotFound);
      const capturing = command.type === 'CaptureHold';
      if (hold.status === (capturing ? 'captured' : 'released')) return [];
      if (hold.status !== 'held')
        throw conflict(capturing ? LEDGER_MESSAGES.holdAlreadyReleased : LEDGER_MESSAGES.holdAlreadyCaptured);
      const destination = capturing
        ? hold.purpose === 'investment'
          ? userAccount(userId, 'invested')
          : platformAccount('cash')
        : userAccount(userId, sourceOf(hold.purpose));
      const { posted, after } = posting(
        state,
        command,
        capturing ? 'hold_captured' : 'hold_released',
        holdReferences(hold),
        [
          { accountId: userAccount(userId, holdAccountOf(hold.purpose)), amountCents: -hold.amountCents },
          { accountId: destination, amountCents: hold.amountCents },
        ],
        LEDGER_MESSAGES.insufficientBalance,
      );
      const data = {
        userId,
        holdId: hold.holdId,
        purpose: hold.purpose,
        amountCents: hold.amountCents,
        transactionId: command.transactionId,
      };
      const outcome: LedgerEvent = capturing
        ? { type: 'FundsCaptured', data: { ...data, capturedAt: at } }
        : { type: 'FundsReleased', data: { ...data, releasedAt: at } };
      return [posted, outcome, balancesChanged(after, command.transactionId)];
    }

    case 'SettleMaturity': {
      assertPositiveCents(command.principalCents, LEDGER_MESSAGES.amountNotPositive);
      assertPositiveCents(command.maturityAmountCents, LEDGER_MESSAGES.amountNotPositive);
      if (!command.investmentId) throw invalid(LEDGER_MESSAGES.missingId);
      if (command.maturityAmountCents < command.principalCents)
        throw invalid(LEDGER_MESSAGES.maturityBelowPrincipal);
      if (state.settledInvestments[command.investmentId]) return [];
      const profit = command.maturityAmountCents - command.principalCents;
      const entries: LedgerEntry[] = [
        { accountId: userAccount(userId, 'invested'), amountCents: -command.principalCents },
      ];
      if (profit > 0) entries.push({ accountId: platformAccount('yield'), amountCents: -profit });
      entries.push({ accountId: userAccount(userId, 'profit'), amountCents: command.maturityAmountCents });
      const { posted, after } = posting(
        state,
        command,
        'investment_matured',
        { investmentId: command.investmentId },
        entries,
        LEDGER_MESSAGES.insufficientInvested,
      );
      return [posted, balancesChanged(after, command.transactionId)];
    }

    case 'AdjustBalance': {
      if (command.actorRole !== 'admin') throw forbidden(LEDGER_MESSAGES.notAuthorized);
      if (!command.adminId) throw invalid(LEDGER_MESSAGES.missingId);
      if (!(ADJUSTMENT_OPERATIONS as readonly string[]).includes(command.operation))
        throw invalid(LEDGER_MESSAGES.invalidOperation);
      if (!(ADJUSTABLE_ACCOUNTS as readonly string[]).includes(command.account))
        throw invalid(LEDGER_MESSAGES.invalidAccount);
      assertPositiveCents(command.amountCents, LEDGER_MESSAGES.amountNotPositive);
      const reason = (command.reason ?? '').trim();
      if (reason.length > 500) throw invalid(LEDGER_MESSAGES.reasonTooLong);
      const signed = command.operation === 'add' ? command.amountCents : -command.amountCents;
      const { posted, after } = posting(
        state,
        command,
        'admin_adjustment',
        { adminId: command.adminId },
        [
          { accountId: platformAccount('adjustment'), amountCents: -signed },
          { accountId: userAccount(userId, command.account), amountCents: signed },
        ],
        LEDGER_MESSAGES.insufficientForDeduction,
        reason || `Admin ${command.operation} on ${command.account}`,
      );
      return [posted, balancesChanged(after, command.transactionId)];
    }

    case 'PayReferralBonus': {
      if (!command.refereeId || !command.depositId) throw invalid(LEDGER_MESSAGES.missingId);
      if (command.refereeId === userId) throw invalid(LEDGER_MESSAGES.selfReferral);
      if (state.referralBonusesPaid[command.refereeId]) return [];
      const { posted, after } = posting(
        state,
        command,
        'referral_bonus',
        { refereeId: command.refereeId, depositId: command.depositId },
        [
          { accountId: platformAccount('referral'), amountCents: -REFERRAL_BONUS_CENTS },
          { accountId: userAccount(userId, 'deposit'), amountCents: REFERRAL_BONUS_CENTS },
        ],
        LEDGER_MESSAGES.insufficientBalance,
      );
      return [
        posted,
        {
          type: 'ReferralBonusPaid',
          data: {
            userId,
            refereeId: command.refereeId,
            depositId: command.depositId,
            amountCents: REFERRAL_BONUS_CENTS,
            transactionId: command.transactionId,
            paidAt: at,
          },
        },
        balancesChanged(after, command.transactionId),
      ];
    }

    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const accountDecider: Decider<LedgerCommand, LedgerEvent, LedgerState> = {
  decide,
  evolve,
  initialState,
};
