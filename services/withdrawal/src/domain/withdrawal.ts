/**
 * A withdrawal (stream `withdrawal-<withdrawalId>`): pure decider — the held-money request lifecycle
 * (@meridian/held-request domain/lifecycle.ts) with the withdrawal's own rules (docs/architecture.md §3a, §4):
 *
 *   RequestWithdrawal -> WithdrawalSubmitted ('Pending'; the app then asks the ledger to hold the amount on
 *   Total Profit, with the withdrawal id as the idempotency key): a verified email, an approved KYC, at
 *   least $50, a wallet address of a plausible format (its network recorded), and the Total Profit
 *   RecordHoldPlaced -> HoldPlaced (now in the admin's queue) | RecordHoldRefused -> HoldRefused ('Rejected')
 *   ApproveWithdrawal -> WithdrawalApproved ('Approved'; the ledger captures the hold to cash: paid out)
 *   | RejectWithdrawal -> WithdrawalRejected ('Rejected'; the ledger releases the hold back to Total Profit)
 *   RecordHoldCaptured -> HoldCaptured, RecordHoldReleased -> HoldReleased (what the ledger confirmed).
 * Decided once: a second decision is refused with a clear message. `ledgerCallOwed(state)` is the ledger
 * call a state still owes: the process manager's to-do list, derived from the events alone.
 *
 * WithdrawalSubmitted is private; the published WithdrawalRequested is built from HoldPlaced. Streams
 * written before that rename hold `WithdrawalRequested` for WithdrawalSubmitted: read as the new name.
 */
import * as lc from '@meridian/held-request/domain/lifecycle';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';
import { invalid, precondition } from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { type Cents, dollars, isPositiveCents } from '@meridian/platform/money/money';
import { type WalletNetwork, walletNetworkOf } from './walletAddress.js';

export type { FundsOutcome, HoldOutcome } from '@meridian/held-request/domain/lifecycle';

/** Spec §4: compared case-sensitively. */
export const WITHDRAWAL_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export const MIN_WITHDRAWAL_CENTS = dollars(50);

export const toWithdrawalStreamId = (withdrawalId: string) => `withdrawal-${withdrawalId}`;

export const WITHDRAWAL_MESSAGES = {
  ...lc.SHARED_MESSAGES,
  notFound: 'Withdrawal not found',
  alreadyExists: 'This withdrawal already exists',
  holdNotPlaced: 'The funds for this withdrawal are not held yet',
  holdAlreadyRecorded: 'The outcome of this withdrawal request is already recorded',
  alreadyApproved: 'This withdrawal has already been approved',
  alreadyRejected: 'This withdrawal has already been rejected',
  notApproved: 'Only an approved withdrawal has its funds captured',
  notRejected: 'Only a rejected withdrawal with its funds held has them released',
  ownDecision: MAKER_CHECKER_MESSAGES.ownDecision('withdrawal'),
  submitted: 'Withdrawal request submitted successfully',
  approved: 'Withdrawal approved successfully',
  rejected: 'Withdrawal rejected successfully',
  idRequired: 'Withdrawal id is required',
  verifyEmail: 'Please verify your email before requesting a withdrawal',
  kycRequired: 'Your KYC verification must be approved before you can withdraw',
  minimum: 'Minimum withdrawal amount is $50',
  walletRequired: 'Please enter a wallet address',
  invalidWallet: 'Please enter a valid wallet address',
} as const;

// ---------- events and commands ----------

type Id = 'withdrawalId';
export type WithdrawalSubmitted = lc.RequestEvent<
  'WithdrawalSubmitted',
  Id,
  {
    walletAddress: string;
    /**
     * A keyed hash of the plain address (PersonalData.digest: HMAC under a key derived from the owner's key),
     * next to the sealed value: how a retry's terms are compared without opening anything (absent in
     * streams written before it).
     */
    walletAddressHash?: string;
    network: WalletNetwork;
    requestDate: string;
  }
>;
export type WithdrawalApproved = lc.RequestEvent<
  'WithdrawalApproved',
  Id,
  { walletAddress: string; approvedBy: string; approvedAt: string }
>;

/** The lifecycle's names for a withdrawal (HoldPlaced ... HoldReleased, WithdrawalRejected, the decisions). */
type WithdrawalKind = {
  id: Id;
  state: ExistingWithdrawal;
  approved: WithdrawalApproved;
  rejected: 'WithdrawalRejected';
  approve: 'ApproveWithdrawal';
  reject: 'RejectWithdrawal';
  ownCall: never;
};

export type WithdrawalEvent = WithdrawalSubmitted | lc.LifecycleEvent<WithdrawalKind>;

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
  /**
   * The same address sealed with the owner's personal-data key (crypto-shredding): what the events keep.
   * The plain `walletAddress` is only checked; absent, the events keep it as it is.
   */
  sealedWalletAddress?: string;
  /** The keyed hash of the trimmed plain address (see WithdrawalSubmitted): a retry has the same one. */
  walletAddressHash?: string;
  now: Date;
};
export type WithdrawalCommand = RequestWithdrawal | lc.LifecycleCommand<WithdrawalKind>;

/** A request as the client made it: what validateRequest checks without any state. */
export type WithdrawalRequest = Omit<
  RequestWithdrawal,
  'type' | 'availableProfitCents' | 'sealedWalletAddress' | 'walletAddressHash'
>;

// ---------- state ----------

export type ExistingWithdrawal = lc.RequestState<Id, WithdrawalStatus> & {
  walletAddress: string;
  walletAddressHash?: string;
  network: WalletNetwork;
  requestDate: string;
};
export type WithdrawalState = { status: 'none' } | ExistingWithdrawal;

export const initialState = (): WithdrawalState => ({ status: 'none' });

/** The admins' decision commands, as the held-request flow names them (approve, reject). */
export const WITHDRAWAL_DECISIONS = { approve: 'ApproveWithdrawal', reject: 'RejectWithdrawal' } as const;

const lifecycle = lc.heldRequestLifecycle<WithdrawalKind>({
  idField: 'withdrawalId',
  streamIdOf: toWithdrawalStreamId,
  messages: WITHDRAWAL_MESSAGES,
  statuses: { pending: 'Pending', approved: 'Approved', rejected: 'Rejected' },
  capturedIn: ['Approved'],
  alreadyDecided: {
    Approved: WITHDRAWAL_MESSAGES.alreadyApproved,
    Rejected: WITHDRAWAL_MESSAGES.alreadyRejected,
  },
  types: {
    approved: 'WithdrawalApproved',
    rejected: 'WithdrawalRejected',
    ...WITHDRAWAL_DECISIONS,
  },
  facts: (s) => ({ withdrawalId: s.withdrawalId, userId: s.userId, amountCents: s.amountCents }),
  approve: (s, adminId, now, facts) => ({
    type: 'WithdrawalApproved',
    data: { ...facts, walletAddress: s.walletAddress, approvedBy: adminId, approvedAt: now.toISOString() },
  }),
  approved: (s, d) => ({ ...s, status: 'Approved', decidedBy: d.approvedBy, decidedAt: d.approvedAt }),
  formerNames: { WithdrawalRequested: 'WithdrawalSubmitted' },
});

export function evolve(state: WithdrawalState, event: WithdrawalEvent): WithdrawalState {
  const e = lifecycle.current(event);
  if (e.type !== 'WithdrawalSubmitted') return lifecycle.evolve(state, e);
  const { walletAddress, walletAddressHash, network, requestDate } = e.data;
  return {
    ...lifecycle.opened(e.data),
    withdrawalId: e.data.withdrawalId,
    walletAddress,
    ...(walletAddressHash ? { walletAddressHash } : {}),
    network,
    requestDate,
  };
}

// ---------- rules ----------

/** The request's amount (dollars, number or text) to cents; bounds are the decider's. */
export const parseWithdrawalAmount = lc.parseRequestAmount;

/** The ledger call a state still owes (the process manager's to-do list), 'none' when nothing is owed. */
export type LedgerCallOwed = lc.HeldCall;

export const ledgerCallOwed = (state: WithdrawalState): LedgerCallOwed => lifecycle.owed(state);

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

// ---------- decide ----------

export function decide(command: WithdrawalCommand, state: WithdrawalState): WithdrawalEvent[] {
  if (command.type !== 'RequestWithdrawal') return lifecycle.decide(command, state);
  const { withdrawalId, userId, amountCents } = command;
  const plain = (command.walletAddress ?? '').trim();
  const walletAddress = command.sealedWalletAddress || plain;
  const walletAddressHash = command.walletAddressHash || undefined;
  return lifecycle.submit(
    state,
    { id: withdrawalId, userId, amountCents, availableCents: command.availableProfitCents },
    {
      // a retry: the same keyed hash (sealing is randomised, two requests never seal alike); a stream
      // from before the hash: the same value as stored (an address kept in clear before sealing existed)
      sameTerms: (s) =>
        s.walletAddressHash && walletAddressHash
          ? s.walletAddressHash === walletAddressHash
          : s.walletAddress === walletAddress || s.walletAddress === plain,
      submitted: (): WithdrawalSubmitted => {
        const { network } = validateRequest(command);
        const requestDate = command.now.toISOString();
        return {
          type: 'WithdrawalSubmitted',
          data: {
            withdrawalId,
            userId,
            amountCents,
            walletAddress,
            ...(walletAddressHash ? { walletAddressHash } : {}),
            network,
            requestDate,
          },
        };
      },
    },
  );
}

/** The withdrawal as its read model sees it (ids, stream, pending status, evolve, the ledger call owed). */
export const WITHDRAWAL_KIND = lifecycle.described(evolve, ledgerCallOwed);

export const withdrawalDecider: Decider<WithdrawalCommand, WithdrawalEvent, WithdrawalState> = {
  decide,
  evolve,
  initialState,
};
