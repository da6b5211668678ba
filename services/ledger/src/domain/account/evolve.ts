/**
 * The state of a user's ledger and how events change it: balances per user account, holds, what each
 * idempotency key decided, the referrer link and the once-only facts (deposits credited, investments
 * settled, referral bonuses paid).
 */
import { unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import type { Cents } from '@meridian/platform/money/money';
import { type HoldPurpose, parseAccountId } from './accounts.js';
import type { Balances, LedgerEvent } from './events.js';

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
    default:
      return unknownEvent(event, undefined);
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

// ---------- reads for the app layer ----------

export const balancesOf = (state: LedgerState): Balances => ({ ...state.balances });

/** What an idempotency key decided earlier, if anything (the answer to repeat on a retry). */
export function earlierResult(state: LedgerState, idempotencyKey: string) {
  return state.processed[idempotencyKey];
}

export const holdOf = (state: LedgerState, holdId: string): Hold | undefined => state.holds[holdId];

/**
 * The principal of the user's active investments: captured investment holds (hold id = investment id)
 * not settled yet. Their settlement takes it out of `invested`, so nothing else may.
 */
export function activePrincipalOf(state: LedgerState): Cents {
  let total = 0;
  for (const hold of Object.values(state.holds)) {
    if (hold.purpose === 'investment' && hold.status === 'captured' && !state.settledInvestments[hold.holdId])
      total += hold.amountCents;
  }
  return total;
}
