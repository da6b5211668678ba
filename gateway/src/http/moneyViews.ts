/**
 * The money records as the SPA knows them (spec §3; web/src/features/live/README.md for the queue items).
 * Money is dollars as JSON numbers (cents / 100). Used by the REST routes (moneyRoutes.ts) and by the
 * live pushes (gateway/src/live/moneyPushes.ts), so a pushed queue item has exactly the shape of one
 * element of that queue's GET list.
 */
import type { Deposit } from '@meridian/proto/meridian/ledger/v1/ledger';
import type { Investment, Plan } from '@meridian/proto/meridian/investment/v1/investment';
import type { Withdrawal } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import type {
  BalancesAnswer,
  DepositAnswer,
  InvestmentAnswer,
  PersonAnswer,
  PlanAnswer,
  WithdrawalAnswer,
  WithdrawalDetailAnswer,
} from './answers.js';
import { dollars } from './userView.js';

const orNull = (s: string | undefined): string | null => (s ? s : null);

/** `initiatedBy` (the impersonating admin who opened the record) when there is one; nothing otherwise. */
const initiator = (initiatedBy: string | undefined): { initiatedBy?: string } =>
  initiatedBy ? { initiatedBy } : {};

const person = (userId: string, name: string, email: string): PersonAnswer => ({
  _id: userId,
  name,
  email,
});

/** Transaction (deposit): transactionId and _id are the deposit id. */
export function depositJson(
  d: Pick<
    Deposit,
    | 'depositId'
    | 'userId'
    | 'amountCents'
    | 'status'
    | 'notes'
    | 'requestedAt'
    | 'decidedAt'
    | 'userName'
    | 'userEmail'
  > &
    Partial<Pick<Deposit, 'initiatedBy' | 'network' | 'address' | 'addressId'>>,
): DepositAnswer {
  return {
    _id: d.depositId,
    transactionId: d.depositId,
    amount: dollars(d.amountCents),
    status: d.status,
    notes: d.notes ?? '',
    createdAt: d.requestedAt,
    decidedAt: orNull(d.decidedAt),
    user: person(d.userId, d.userName ?? '', d.userEmail ?? ''),
    ...initiator(d.initiatedBy),
    ...(d.addressId
      ? { sentTo: { network: d.network ?? '', address: d.address ?? '', addressId: d.addressId } }
      : {}),
  };
}

/**
 * An investment's start and end: set at approval; while it waits for approval, the projected ones (the request's
 * time and that plus the plan's term, `datesProjected`), so a client never shows a missing date.
 */
function datesOf(
  i: Pick<Investment, 'status' | 'startDate' | 'endDate' | 'requestedAt' | 'durationMs'>,
): Pick<InvestmentAnswer, 'startDate' | 'endDate' | 'datesProjected'> {
  const requested = Date.parse(i.requestedAt);
  if (!i.startDate && i.status === 'pending' && Number.isFinite(requested))
    return {
      startDate: new Date(requested).toISOString(),
      endDate: new Date(requested + Number(i.durationMs ?? 0)).toISOString(),
      datesProjected: true,
    };
  return { startDate: orNull(i.startDate), endDate: orNull(i.endDate), datesProjected: false };
}

/**
 * Investment: maturityAmount is principal plus profit, as the investment service projects it from the
 * request on (and fixes at approval); clients format it on every screen, so it is always a number.
 */
export function investmentJson(
  i: Pick<
    Investment,
    | 'investmentId'
    | 'userId'
    | 'userName'
    | 'userEmail'
    | 'planName'
    | 'amountCents'
    | 'rateBps'
    | 'durationMs'
    | 'status'
    | 'maturityAmountCents'
    | 'startDate'
    | 'endDate'
    | 'requestedAt'
    | 'maturedAt'
  > &
    Partial<Pick<Investment, 'initiatedBy'>>,
  balanceCents?: number,
): InvestmentAnswer {
  const user = person(i.userId, i.userName ?? '', i.userEmail ?? '');
  if (balanceCents !== undefined) user.balance = dollars(balanceCents);
  return {
    _id: i.investmentId,
    investmentId: i.investmentId,
    plan: i.planName,
    status: i.status,
    amount: dollars(i.amountCents),
    maturityAmount: dollars(i.maturityAmountCents ?? 0),
    ratePercent: (i.rateBps ?? 0) / 100,
    durationMs: Number(i.durationMs ?? 0),
    ...datesOf(i),
    createdAt: i.requestedAt,
    maturedAt: orNull(i.maturedAt),
    user,
    ...initiator(i.initiatedBy),
  };
}

type WithdrawalRecord = Pick<
  Withdrawal,
  | 'withdrawalId'
  | 'userId'
  | 'userName'
  | 'userEmail'
  | 'amountCents'
  | 'walletAddress'
  | 'status'
  | 'requestDate'
  | 'decidedAt'
> &
  Partial<Pick<Withdrawal, 'network' | 'initiatedBy'>>;

/** Withdrawal: `user` is {name, email} in lists and a single value (the name, else the email) in the detail. */
export function withdrawalJson(w: WithdrawalRecord, shape?: 'list'): WithdrawalAnswer;
export function withdrawalJson(w: WithdrawalRecord, shape: 'detail'): WithdrawalDetailAnswer;
export function withdrawalJson(
  w: WithdrawalRecord,
  shape: 'list' | 'detail' = 'list',
): WithdrawalAnswer | WithdrawalDetailAnswer {
  const base = {
    _id: w.withdrawalId,
    amount: dollars(w.amountCents),
    walletAddress: w.walletAddress,
    network: w.network ?? '',
    status: w.status,
    requestDate: w.requestDate,
    decidedAt: orNull(w.decidedAt),
    ...initiator(w.initiatedBy),
  };
  return shape === 'detail'
    ? { ...base, user: w.userName || w.userEmail, userId: w.userId, userEmail: w.userEmail }
    : { ...base, user: person(w.userId, w.userName ?? '', w.userEmail ?? '') };
}

export function planJson(p: Plan): PlanAnswer {
  return {
    _id: p.name,
    name: p.name,
    minAmount: dollars(p.minAmountCents),
    maxAmount: dollars(p.maxAmountCents),
    ratePercent: p.rateBps / 100,
    durationMs: Number(p.durationMs),
    range: p.rangeText,
  };
}

/** Balances in dollars as the user view and balances/changed name them. */
export function balancesJson(b: {
  depositCents: number;
  investedCents: number;
  profitCents: number;
}): BalancesAnswer {
  return {
    balance: dollars(b.depositCents),
    investmentBalance: dollars(b.investedCents),
    totalMaturityAmount: dollars(b.profitCents),
  };
}
