/**
 * A withdrawal (stream `withdrawal-<withdrawalId>`): pure decider.
 *
 * Lifecycle (DESIGN.md §3a, §4):
 *   RequestWithdrawal -> WithdrawalRequested ('Pending'; the app then asks the ledger to hold the amount on
 *   Total Profit, with the withdrawal id as the idempotency key)
 *   RecordHoldPlaced -> HoldPlaced (now in the admin's queue) | RecordHoldRefused -> HoldRefused ('Rejected')
 *   ApproveWithdrawal -> WithdrawalApproved ('Approved'; the ledger captures the hold to cash: paid out)
 *   | RejectWithdrawal -> WithdrawalRejected ('Rejected'; the ledger releases the hold back to Total Profit)
 * Decided once: a second decision is refused with a clear message.
 * What the ledger confirmed after the decision is a fact of the stream too: RecordHoldCaptured ->
 * HoldCaptured, RecordHoldReleased -> HoldReleased. `ledgerCallOwed(state)` is the ledger call a state
 * still owes: the process manager's to-do list, derived from the events alone.
 */
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { type Cents, dollars, isPositiveCents, parseDollarsToCents } from '@meridian/platform/money/money';
import { type WalletNetwork, walletNetworkOf } from './walletAddress.js';

/** Spec §4: compared case-sensitively. */
export const WITHDRAWAL_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
export type HoldOutcome = 'awaiting' | 'placed' | 'refused';
/** What the ledger confirmed it did with the held funds after the decision (null: nothing yet). */
export type FundsOutcome = 'captured' | 'released' | null;

export const MIN_WITHDRAWAL_CENTS = dollars(50);

export const toWithdrawalStreamId = (withdrawalId: string) => `withdrawal-${withdrawalId}`;

export const WITHDRAWAL_MESSAGES = {
  verifyEmail: 'Please verify your email before requesting a withdrawal',
  kycRequired: 'Your KYC verification must be approved before you can withdraw',
  amountRequired: 'Please enter an amount',
  invalidAmount: 'Please enter a valid amount',
  minimum: 'Minimum withdrawal amount is $50',
  insufficientBalance: 'Insufficient balance',
  walletRequired: 'Please enter a wallet address',
  invalidWallet: 'Please enter a valid wallet address',
  notFound: 'Withdrawal not found',
  alreadyExists: 'This withdrawal already exists',
  holdNotPlaced: 'The funds for this withdrawal are not held yet',
  holdAlreadyRecorded: 'The outcome of this withdrawal request is already recorded',
  alreadyApproved: 'This withdrawal has already been approved',
  alreadyRejected: 'This withdrawal has already been rejected',
  notAuthorized: 'Not authorized, admin only',
  missingId: 'Command is missing an id',
  notApproved: 'Only an approved withdrawal has its funds captured',
  notRejected: 'Only a rejected withdrawal with its funds held has them released',
} as const;

// ---------- events ----------

export type WithdrawalRequested = {
  type: 'WithdrawalRequested';
  data: {
    withdrawalId: string;
    userId: string;
    amountCents: Cents;
    walletAddress: string;
    network: WalletNetwork;
    requestDate: string;
  };
};
export type HoldPlaced = {
  type: 'HoldPlaced';
  data: { withdrawalId: string; userId: string; amountCents: Cents; placedAt: string };
};
export type HoldRefused = {
  type: 'HoldRefused';
  data: { withdrawalId: string; userId: string; amountCents: Cents; reason: string; refusedAt: string };
};
export type WithdrawalApproved = {
  type: 'WithdrawalApproved';
  data: {
    withdrawalId: string;
    userId: string;
    amountCents: Cents;
    walletAddress: string;
    approvedBy: string;
    approvedAt: string;
  };
};
export type WithdrawalRejected = {
  type: 'WithdrawalRejected';
  data: { withdrawalId: string; userId: string; amountCents: Cents; rejectedBy: string; rejectedAt: string };
};
/** The ledger confirmed the capture of the held funds (paid out) after the approval. */
export type HoldCaptured = {
  type: 'HoldCaptured';
  data: { withdrawalId: string; userId: string; amountCents: Cents; capturedAt: string };
};
/** The ledger confirmed the release of the held funds back to Total Profit after the rejection. */
export type HoldReleased = {
  type: 'HoldReleased';
  data: { withdrawalId: string; userId: string; amountCents: Cents; releasedAt: string };
};
export type WithdrawalEvent =
  | WithdrawalRequested
  | HoldPlaced
  | HoldRefused
  | WithdrawalApproved
  | WithdrawalRejected
  | HoldCaptured
  | HoldReleased;

// ---------- commands ----------

export type RequestWithdrawal = {
  type: 'RequestWithdrawal';
  withdrawalId: string;
  userId: string;
  /** From identity's user view. */
  isVerified: boolean;
  /** From identity's user view: 'Not Submitted' | 'Pending' | 'Approved' | 'Rejected'. */
  kycStatus: string;
  amountCents: Cents;
  /** Total Profit as the ledger last reported it (the ledger's hold decides for sure). */
  availableProfitCents: Cents;
  walletAddress: string;
  now: Date;
};
export type RecordHoldPlaced = { type: 'RecordHoldPlaced'; now: Date };
export type RecordHoldRefused = { type: 'RecordHoldRefused'; reason: string; now: Date };
export type ApproveWithdrawal = { type: 'ApproveWithdrawal'; adminId: string; actorRole: string; now: Date };
export type RejectWithdrawal = { type: 'RejectWithdrawal'; adminId: string; actorRole: string; now: Date };
export type RecordHoldCaptured = { type: 'RecordHoldCaptured'; now: Date };
export type RecordHoldReleased = { type: 'RecordHoldReleased'; now: Date };
export type WithdrawalCommand =
  | RequestWithdrawal
  | RecordHoldPlaced
  | RecordHoldRefused
  | ApproveWithdrawal
  | RejectWithdrawal
  | RecordHoldCaptured
  | RecordHoldReleased;

/** A request as the client made it: what validateRequest checks without any state. */
export type WithdrawalRequest = Omit<RequestWithdrawal, 'type' | 'availableProfitCents'>;

// ---------- state ----------

export type WithdrawalState =
  | { status: 'none' }
  | {
      status: WithdrawalStatus;
      withdrawalId: string;
      userId: string;
      amountCents: Cents;
      walletAddress: string;
      requestDate: string;
      hold: HoldOutcome;
      funds: FundsOutcome;
      refusal: string | null;
      decidedBy: string | null;
      decidedAt: string | null;
    };

export type ExistingWithdrawal = Exclude<WithdrawalState, { status: 'none' }>;

export const initialState = (): WithdrawalState => ({ status: 'none' });

export function evolve(state: WithdrawalState, event: WithdrawalEvent): WithdrawalState {
  if (event.type === 'WithdrawalRequested') {
    const d = event.data;
    return {
      status: 'Pending',
      withdrawalId: d.withdrawalId,
      userId: d.userId,
      amountCents: d.amountCents,
      walletAddress: d.walletAddress,
      requestDate: d.requestDate,
      hold: 'awaiting',
      funds: null,
      refusal: null,
      decidedBy: null,
      decidedAt: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'HoldPlaced':
      return { ...state, hold: 'placed' };
    case 'HoldRefused':
      return {
        ...state,
        hold: 'refused',
        status: 'Rejected',
        refusal: event.data.reason,
        decidedAt: event.data.refusedAt,
      };
    case 'WithdrawalApproved':
      return {
        ...state,
        status: 'Approved',
        decidedBy: event.data.approvedBy,
        decidedAt: event.data.approvedAt,
      };
    case 'WithdrawalRejected':
      return {
        ...state,
        status: 'Rejected',
        decidedBy: event.data.rejectedBy,
        decidedAt: event.data.rejectedAt,
      };
    case 'HoldCaptured':
      return { ...state, funds: 'captured' };
    case 'HoldReleased':
      return { ...state, funds: 'released' };
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

// ---------- rules ----------

/** The request's amount (dollars, number or text) to cents; bounds are the decider's. */
export function parseWithdrawalAmount(input: unknown): Cents {
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
    throw invalid(WITHDRAWAL_MESSAGES.amountRequired);
  }
  return parseDollarsToCents(input);
}

/** The ledger call a state still owes (the process manager's to-do list), 'none' when nothing is owed. */
export type LedgerCallOwed = 'none' | 'hold' | 'capture' | 'release';

export function ledgerCallOwed(state: WithdrawalState): LedgerCallOwed {
  if (state.status === 'none') return 'none';
  if (state.hold === 'awaiting') return 'hold';
  const { status } = state;
  switch (status) {
    case 'Pending':
      return 'none';
    case 'Approved':
      return state.funds === null ? 'capture' : 'none';
    case 'Rejected':
      return state.hold === 'placed' && state.funds === null ? 'release' : 'none';
    default: {
      const _exhaustive: never = status;
      return 'none';
    }
  }
}

/**
 * Every rule of a new request that needs no state (no stream, no balance), with the decider's
 * messages: a bad request is refused before anyone asks the ledger. Returns the trimmed address and
 * its network.
 */
export function validateRequest(request: WithdrawalRequest): {
  walletAddress: string;
  network: WalletNetwork;
} {
  if (!request.withdrawalId || !request.userId) throw invalid(WITHDRAWAL_MESSAGES.missingId);
  if (!request.isVerified) throw precondition(WITHDRAWAL_MESSAGES.verifyEmail, 'EMAIL_NOT_VERIFIED');
  if (request.kycStatus !== 'Approved')
    throw precondition(WITHDRAWAL_MESSAGES.kycRequired, 'KYC_NOT_APPROVED');
  if (!isPositiveCents(request.amountCents)) throw invalid(WITHDRAWAL_MESSAGES.invalidAmount);
  if (request.amountCents < MIN_WITHDRAWAL_CENTS) throw invalid(WITHDRAWAL_MESSAGES.minimum);
  const walletAddress = (request.walletAddress ?? '').trim();
  if (!walletAddress) throw invalid(WITHDRAWAL_MESSAGES.walletRequired);
  const network = walletNetworkOf(walletAddress);
  if (!network) throw invalid(WITHDRAWAL_MESSAGES.invalidWallet);
  return { walletAddress, network };
}

function existing(state: WithdrawalState): ExistingWithdrawal {
  if (state.status === 'none') throw notFound(WITHDRAWAL_MESSAGES.notFound);
  return state;
}

// ---------- decide ----------

export function decide(command: WithdrawalCommand, state: WithdrawalState): WithdrawalEvent[] {
  switch (command.type) {
    case 'RequestWithdrawal': {
      if (!command.withdrawalId || !command.userId) throw invalid(WITHDRAWAL_MESSAGES.missingId);
      const walletAddress = (command.walletAddress ?? '').trim();
      if (state.status !== 'none') {
        const same =
          state.userId === command.userId &&
          state.amountCents === command.amountCents &&
          state.walletAddress === walletAddress;
        if (same) return [];
        throw conflict(WITHDRAWAL_MESSAGES.alreadyExists);
      }
      // the stateless rules first (the request path runs them before asking the ledger), then the balance
      const { network } = validateRequest(command);
      if (command.amountCents > command.availableProfitCents) {
        throw precondition(WITHDRAWAL_MESSAGES.insufficientBalance, 'INSUFFICIENT_FUNDS');
      }
      return [
        {
          type: 'WithdrawalRequested',
          data: {
            withdrawalId: command.withdrawalId,
            userId: command.userId,
            amountCents: command.amountCents,
            walletAddress,
            network,
            requestDate: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordHoldPlaced':
    case 'RecordHoldRefused': {
      const s = existing(state);
      const placing = command.type === 'RecordHoldPlaced';
      if (s.hold === (placing ? 'placed' : 'refused')) return [];
      if (s.hold !== 'awaiting') throw conflict(WITHDRAWAL_MESSAGES.holdAlreadyRecorded);
      const at = command.now.toISOString();
      const base = { withdrawalId: s.withdrawalId, userId: s.userId, amountCents: s.amountCents };
      return placing
        ? [{ type: 'HoldPlaced', data: { ...base, placedAt: at } }]
        : [
            {
              type: 'HoldRefused',
              data: {
                ...base,
                reason: command.reason || WITHDRAWAL_MESSAGES.insufficientBalance,
                refusedAt: at,
              },
            },
          ];
    }

    case 'ApproveWithdrawal':
    case 'RejectWithdrawal': {
      if (command.actorRole !== 'admin') throw forbidden(WITHDRAWAL_MESSAGES.notAuthorized);
      const s = existing(state);
      if (s.status === 'Approved') throw conflict(WITHDRAWAL_MESSAGES.alreadyApproved, 'ALREADY_DECIDED');
      if (s.status === 'Rejected') throw conflict(WITHDRAWAL_MESSAGES.alreadyRejected, 'ALREADY_DECIDED');
      if (s.hold !== 'placed') throw precondition(WITHDRAWAL_MESSAGES.holdNotPlaced);
      const at = command.now.toISOString();
      const base = { withdrawalId: s.withdrawalId, userId: s.userId, amountCents: s.amountCents };
      return command.type === 'ApproveWithdrawal'
        ? [
            {
              type: 'WithdrawalApproved',
              data: { ...base, walletAddress: s.walletAddress, approvedBy: command.adminId, approvedAt: at },
            },
          ]
        : [{ type: 'WithdrawalRejected', data: { ...base, rejectedBy: command.adminId, rejectedAt: at } }];
    }

    case 'RecordHoldCaptured': {
      const s = existing(state);
      if (s.funds === 'captured') return [];
      if (s.status !== 'Approved' || s.funds !== null) throw precondition(WITHDRAWAL_MESSAGES.notApproved);
      return [
        {
          type: 'HoldCaptured',
          data: {
            withdrawalId: s.withdrawalId,
            userId: s.userId,
            amountCents: s.amountCents,
            capturedAt: command.now.toISOString(),
          },
        },
      ];
    }

    case 'RecordHoldReleased': {
      const s = existing(state);
      if (s.funds === 'released') return [];
      if (s.status !== 'Rejected' || s.hold !== 'placed' || s.funds !== null)
        throw precondition(WITHDRAWAL_MESSAGES.notRejected);
      return [
        {
          type: 'HoldReleased',
          data: {
            withdrawalId: s.withdrawalId,
            userId: s.userId,
            amountCents: s.amountCents,
            releasedAt: command.now.toISOString(),
          },
        },
      ];
    }

    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const withdrawalDecider: Decider<WithdrawalCommand, WithdrawalEvent, WithdrawalState> = {
  decide,
  evolve,
  initialState,
};
