/**
 * A deposit ("payment" in the spec; stream `deposit-<depositId>`): pure decider.
 *
 * The investor sends crypto outside the system and declares the USD amount (RequestDeposit); an admin
 * confirms it (the ledger app then posts CreditDeposit: cash -> the user's deposit account) or rejects
 * it (no money moves). Decided once: the second decision is refused, so of two admins racing on the same
 * deposit one wins and the other gets a clear message.
 *
 * Also home of the referral bonus rule: $5 to the referrer, once, on the referee's FIRST confirmed
 * deposit when it is at least $50 (applied by account.ts when it credits a deposit).
 */
import { conflict, invalid, notFound, precondition } from '@meridian/platform/eventSourcing/errors';
import { unknownCommand, unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import { ADMIN_ONLY, requireAdminRole } from '@meridian/platform/eventSourcing/guards';
import type { Decider, DomainEvent } from '@meridian/platform/eventSourcing/types';
import {
  type Cents,
  MONEY_MESSAGES,
  dollars,
  isPositiveCents,
  parseDollarsToCents,
} from '@meridian/platform/money/money';

/** Spec §4: compared case-sensitively. */
export const DEPOSIT_STATUSES = ['Pending', 'Confirmed', 'Rejected'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

export const MAX_DEPOSIT_CENTS = dollars(1_000_000);
export const MAX_NOTES_LENGTH = 1000;

export const toDepositStreamId = (depositId: string) => `deposit-${depositId}`;

export const DEPOSIT_MESSAGES = {
  verifyEmail: 'Please verify your email before making a deposit',
  amountRequired: 'Please enter a deposit amount',
  amountNotPositive: 'Deposit amount must be greater than zero',
  amountTooLarge: 'The maximum deposit is $1,000,000',
  notFound: 'Deposit not found',
  alreadyExists: 'This deposit already exists',
  alreadyConfirmed: 'This deposit has already been confirmed',
  alreadyRejected: 'This deposit has already been rejected',
  notesTooLong: `Notes must be at most ${MAX_NOTES_LENGTH} characters`,
  notAuthorized: ADMIN_ONLY,
  missingId: 'Command is missing an id',
} as const;

// ---------- events ----------

/** The deposit address (support's address book) the funds were sent to, when the declaration names one. */
export type SentTo = { network: string; address: string; addressId: string };

export type DepositRequested = DomainEvent<
  'DepositRequested',
  { depositId: string; userId: string; amountCents: Cents; requestedAt: string } & Partial<SentTo>
>;
/** What both decisions carry: the deposit and the admin's notes. */
type DepositDecision = { depositId: string; userId: string; amountCents: Cents; notes: string };
export type DepositConfirmed = DomainEvent<
  'DepositConfirmed',
  DepositDecision & { confirmedBy: string; confirmedAt: string }
>;
export type DepositRejected = DomainEvent<
  'DepositRejected',
  DepositDecision & { rejectedBy: string; rejectedAt: string }
>;
export type DepositEvent = DepositRequested | DepositConfirmed | DepositRejected;

// ---------- commands ----------

export type RequestDeposit = {
  type: 'RequestDeposit';
  depositId: string;
  userId: string;
  /** From identity's user view at request time. */
  isVerified: boolean;
  amountCents: Cents;
  /** Checked by the caller: an address support gave this user. */
  sentTo?: SentTo;
  now: Date;
};
export type ConfirmDeposit = {
  type: 'ConfirmDeposit';
  adminId: string;
  actorRole: string;
  notes?: string;
  now: Date;
};
export type RejectDeposit = {
  type: 'RejectDeposit';
  adminId: string;
  actorRole: string;
  notes?: string;
  now: Date;
};
export type DepositCommand = RequestDeposit | ConfirmDeposit | RejectDeposit;

// ---------- state ----------

export type DepositState =
  | { status: 'none' }
  | {
      status: DepositStatus;
      depositId: string;
      userId: string;
      amountCents: Cents;
      requestedAt: string;
      notes: string;
      decidedBy: string | null;
      decidedAt: string | null;
      /** Absent when the declaration named no address. */
      sentTo?: SentTo;
    };

export const initialState = (): DepositState => ({ status: 'none' });

export function evolve(state: DepositState, event: DepositEvent): DepositState {
  switch (event.type) {
    case 'DepositRequested':
      return {
        status: 'Pending',
        depositId: event.data.depositId,
        userId: event.data.userId,
        amountCents: event.data.amountCents,
        requestedAt: event.data.requestedAt,
        notes: '',
        decidedBy: null,
        decidedAt: null,
        ...(event.data.addressId
          ? {
              sentTo: {
                network: event.data.network ?? '',
                address: event.data.address ?? '',
                addressId: event.data.addressId,
              },
            }
          : {}),
      };
    case 'DepositConfirmed':
      return state.status === 'none'
        ? state
        : {
            ...state,
            status: 'Confirmed',
            notes: event.data.notes,
            decidedBy: event.data.confirmedBy,
            decidedAt: event.data.confirmedAt,
          };
    case 'DepositRejected':
      return state.status === 'none'
        ? state
        : {
            ...state,
            status: 'Rejected',
            notes: event.data.notes,
            decidedBy: event.data.rejectedBy,
            decidedAt: event.data.rejectedAt,
          };
    default:
      return unknownEvent(event, state);
  }
}

// ---------- rules ----------

/** The deposit amount rule on cents: > 0 and at most $1,000,000. */
export function checkDepositAmountCents(amountCents: unknown): asserts amountCents is Cents {
  if (!isPositiveCents(amountCents)) throw invalid(DEPOSIT_MESSAGES.amountNotPositive);
  if (amountCents > MAX_DEPOSIT_CENTS) throw invalid(DEPOSIT_MESSAGES.amountTooLarge);
}

/**
 * The REST amount (dollars, number or text) to cents, with every deposit rule: required, a plain
 * number with at most 2 decimals, > 0, at most 1,000,000.
 */
export function parseDepositAmount(input: unknown): Cents {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
    throw invalid(DEPOSIT_MESSAGES.amountRequired);
  }
  let cents: Cents;
  try {
    cents = parseDollarsToCents(input);
  } catch (err) {
    // "Amount is too large" from the parser reads better as the deposit maximum.
    if (err instanceof Error && err.message === MONEY_MESSAGES.tooLarge)
      throw invalid(DEPOSIT_MESSAGES.amountTooLarge);
    throw err;
  }
  checkDepositAmountCents(cents);
  return cents;
}

export const REFERRAL_BONUS_CENTS = dollars(5);
/**
 * The least first confirmed deposit that earns the referrer the bonus (no bonus farming
 * with $0.01 deposits). The default of `LedgerContext.referralMinimumCents`; the service sets it from
 * LEDGER_REFERRAL_MIN_DEPOSIT_CENTS.
 */
export const REFERRAL_MIN_FIRST_DEPOSIT_CENTS = dollars(50);

export type ReferralBonus = { referrerId: string; refereeId: string; amountCents: Cents };

/**
 * The referral rule: the referrer earns $5 (500 cents) when the referee's FIRST confirmed deposit is
 * at least `minimumCents` ($50 by default), and never again for that referee (a smaller first deposit
 * earns nothing, nor do later ones). `confirmedDepositsBefore` counts the referee's confirmed deposits
 * before the one being confirmed now, `depositCents` is that one's amount.
 */
export function referralBonusFor(input: {
  referrerId: string | null | undefined;
  refereeId: string;
  confirmedDepositsBefore: number;
  depositCents: Cents;
  minimumCents?: Cents;
}): ReferralBonus | null {
  if (!input.referrerId || input.referrerId === input.refereeId) return null;
  if (input.confirmedDepositsBefore !== 0) return null;
  if (input.depositCents < (input.minimumCents ?? REFERRAL_MIN_FIRST_DEPOSIT_CENTS)) return null;
  return { referrerId: input.referrerId, refereeId: input.refereeId, amountCents: REFERRAL_BONUS_CENTS };
}

function checkNotes(notes: string | undefined): string {
  const text = (notes ?? '').trim();
  if (text.length > MAX_NOTES_LENGTH) throw invalid(DEPOSIT_MESSAGES.notesTooLong);
  return text;
}

// ---------- decide ----------

export function decide(command: DepositCommand, state: DepositState): DepositEvent[] {
  switch (command.type) {
    case 'RequestDeposit': {
      if (!command.depositId || !command.userId) throw invalid(DEPOSIT_MESSAGES.missingId);
      if (state.status !== 'none') {
        // A retry of the same request is answered with the deposit as it is; anything else is a clash of ids.
        if (state.userId === command.userId && state.amountCents === command.amountCents) return [];
        throw conflict(DEPOSIT_MESSAGES.alreadyExists);
      }
      if (!command.isVerified) throw precondition(DEPOSIT_MESSAGES.verifyEmail, 'EMAIL_NOT_VERIFIED');
      checkDepositAmountCents(command.amountCents);
      return [
        {
          type: 'DepositRequested',
          data: {
            depositId: command.depositId,
            userId: command.userId,
            amountCents: command.amountCents,
            requestedAt: command.now.toISOString(),
            ...(command.sentTo ? { ...command.sentTo } : {}),
          },
        },
      ];
    }
    case 'ConfirmDeposit':
    case 'RejectDeposit': {
      requireAdminRole(command.actorRole, DEPOSIT_MESSAGES.notAuthorized);
      if (state.status === 'none') throw notFound(DEPOSIT_MESSAGES.notFound);
      if (state.status === 'Confirmed') throw conflict(DEPOSIT_MESSAGES.alreadyConfirmed, 'ALREADY_DECIDED');
      if (state.status === 'Rejected') throw conflict(DEPOSIT_MESSAGES.alreadyRejected, 'ALREADY_DECIDED');
      const notes = checkNotes(command.notes);
      const at = command.now.toISOString();
      const base: DepositDecision = {
        depositId: state.depositId,
        userId: state.userId,
        amountCents: state.amountCents,
        notes,
      };
      return command.type === 'ConfirmDeposit'
        ? [{ type: 'DepositConfirmed', data: { ...base, confirmedBy: command.adminId, confirmedAt: at } }]
        : [{ type: 'DepositRejected', data: { ...base, rejectedBy: command.adminId, rejectedAt: at } }];
    }
    default:
      return unknownCommand(command);
  }
}

export const depositDecider: Decider<DepositCommand, DepositEvent, DepositState> = {
  decide,
  evolve,
  initialState,
};
