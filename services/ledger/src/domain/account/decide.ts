/**
 * decide(command, state) -> events for a user's ledger. Every posting passes through `posting`, the one
 * guard of "a user account never goes negative". Refusals are thrown, not recorded: nothing moved, so a
 * retry decides afresh.
 */
import { conflict, invalid, notFound, precondition } from '@meridian/platform/eventSourcing/errors';
import { unknownCommand } from '@meridian/platform/eventSourcing/exhaustive';
import { ADMIN_ONLY, requireAdminRole } from '@meridian/platform/eventSourcing/guards';
import { assertPositiveCents } from '@meridian/platform/money/money';
import { REFERRAL_BONUS_CENTS, referralBonusFor } from '../deposit.js';
import {
  ADJUSTABLE_ACCOUNTS,
  ADJUSTMENT_OPERATIONS,
  HOLD_PURPOSES,
  type HoldPurpose,
  type LedgerEntry,
  type LedgerReason,
  type LedgerReferences,
  USER_ACCOUNT_KINDS,
  type UserAccountKind,
  assertBalancedTransaction,
  platformAccount,
  userAccount,
} from './accounts.js';
import { type LedgerCommand, type MoneyCommand, fingerprintOf } from './commands.js';
import type { BalancesChanged, LedgerEvent, TransactionPosted } from './events.js';
import { type LedgerState, activePrincipalOf, evolveUnlinked } from './evolve.js';

export const LEDGER_MESSAGES = {
  insufficientBalance: 'Insufficient balance',
  insufficientForDeduction: 'Insufficient balance for this deduction',
  insufficientInvested: 'Insufficient invested balance to settle this investment',
  idempotencyConflict: 'Idempotency key reused with a different request',
  holdNotFound: 'Hold not found',
  holdAlreadyPlaced: 'Funds are already held for this request',
  holdAlreadyCaptured: 'This hold has already been captured',
  holdAlreadyReleased: 'This hold has already been released',
  notAuthorized: ADMIN_ONLY,
  invalidOperation: 'Operation must be add or deduct',
  invalidAccount: 'Balance must be one of deposit, invested or profit',
  amountNotPositive: 'Amount must be greater than zero',
  maturityBelowPrincipal: 'The maturity amount cannot be less than the principal',
  belowActivePrincipal:
    'This deduction would take Total Investment below the principal of active investments',
  reasonTooLong: 'Reason is too long',
  selfReferral: 'A user cannot refer themselves',
  referrerRequired: 'Referrer is required',
  alreadyReferred: 'This user already has a different referrer',
  wrongLedger: "This command is for another user's ledger",
  missingId: 'Command is missing an id',
} as const;

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
  const after = evolveUnlinked(state, posted);
  for (const kind of USER_ACCOUNT_KINDS) {
    if (!Number.isSafeInteger(after.balances[kind])) throw invalid('Amount is too large');
    if (after.balances[kind] < 0) throw precondition(refusal, 'INSUFFICIENT_FUNDS');
  }
  return { posted, after };
}

/** The user's balances as `state` has them, after the transaction `transactionId`. */
export function balancesChanged(state: LedgerState, transactionId: string): BalancesChanged {
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
        depositCents: command.amountCents,
        minimumCents: command.referralMinimumCents,
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
      requireAdminRole(command.actorRole, LEDGER_MESSAGES.notAuthorized);
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
      // Active investments settle their principal out of `invested`: it must stay there.
      if (command.account === 'invested' && after.balances.invested < activePrincipalOf(state))
        throw precondition(LEDGER_MESSAGES.belowActivePrincipal, 'ACTIVE_PRINCIPAL');
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

    default:
      return unknownCommand(command);
  }
}
