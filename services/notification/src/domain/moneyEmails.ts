/**
 * Which money integration event becomes which email (pure). One email per event (its id is the
 * event id), to the user the event is about; name and address come from the event when it carries
 * them, else from the directory notification keeps from identity's events. The plan name of an
 * investment is remembered from its InvestmentRequested (InvestmentRejected / Matured do not carry it).
 *
 *   meridian.ledger.events      DepositConfirmed → depositConfirmed    DepositRejected → depositRejected
 *                               ReferralBonusPaid → referralBonus (to the referrer; the referee's name)
 *   meridian.investment.events  InvestmentApproved → investmentApproved   InvestmentRejected → investmentRejected
 *                               InvestmentMatured → investmentMatured
 *   meridian.withdrawal.events  WithdrawalRequested → withdrawalRequested   WithdrawalApproved → withdrawalApproved
 *                               WithdrawalRejected → withdrawalRejected
 */
import type { EmailRequest } from './email.js';
import type { DirectoryEntry } from './kycEmails.js';

export const moneyEmailEventTypes: ReadonlySet<string> = new Set([
  'DepositConfirmed',
  'DepositRejected',
  'ReferralBonusPaid',
  'InvestmentApproved',
  'InvestmentRejected',
  'InvestmentMatured',
  'WithdrawalRequested',
  'WithdrawalApproved',
  'WithdrawalRejected',
]);

/** What notification remembers of an investment (from InvestmentRequested). */
export interface InvestmentFacts {
  investmentId: string;
  planName: string;
  amountCents: number;
}

export interface MoneyEmailLookups {
  /** The user the email goes to (the referrer for ReferralBonusPaid). */
  user: DirectoryEntry | null;
  /** The referee of a ReferralBonusPaid. */
  referee?: DirectoryEntry | null;
  investment?: InvestmentFacts | null;
}

type Data = Record<string, unknown>;
const str = (d: Data, k: string): string => (typeof d[k] === 'string' ? (d[k] as string) : '');
const cents = (d: Data, k: string): number => {
  const v = d[k];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return 0;
};

/** The id of the user an event's email goes to ('' when none). */
export const recipientIdOf = (event: { type: string; data: unknown }): string =>
  str((event.data ?? {}) as Data, 'userId');

export function emailForMoneyEvent(
  event: { type: string; data: unknown },
  lookups: MoneyEmailLookups,
): EmailRequest | null {
  if (!moneyEmailEventTypes.has(event.type)) return null;
  const d = (event.data ?? {}) as Data;
  const userId = str(d, 'userId');
  const to = str(d, 'userEmail') || lookups.user?.email || '';
  if (!userId || !to) return null;
  const name = str(d, 'userName') || lookups.user?.name || '';
  const planName = str(d, 'planName') || lookups.investment?.planName || 'investment';
  const mail = (template: EmailRequest['template'], data: Record<string, unknown>): EmailRequest => ({
    to,
    userId,
    template,
    data: { name, ...data },
  });
  switch (event.type) {
    case 'DepositConfirmed':
      return mail('depositConfirmed', {
        amountCents: cents(d, 'amountCents'),
        transactionId: str(d, 'depositId'),
      });
    case 'DepositRejected':
      return mail('depositRejected', {
        amountCents: cents(d, 'amountCents'),
        transactionId: str(d, 'depositId'),
        notes: str(d, 'notes') || undefined,
      });
    case 'ReferralBonusPaid':
      return mail('referralBonus', {
        amountCents: cents(d, 'amountCents'),
        refereeName: lookups.referee?.name || lookups.referee?.email || 'Someone you referred',
      });
    case 'InvestmentApproved':
      return mail('investmentApproved', {
        investmentId: str(d, 'investmentId'),
        planName,
        amountCents: cents(d, 'amountCents'),
        maturityAmountCents: cents(d, 'maturityAmountCents'),
        endDate: str(d, 'endDate'),
      });
    case 'InvestmentRejected':
      return mail('investmentRejected', {
        investmentId: str(d, 'investmentId'),
        planName,
        amountCents: cents(d, 'amountCents'),
      });
    case 'InvestmentMatured':
      return mail('investmentMatured', {
        investmentId: str(d, 'investmentId'),
        planName,
        maturityAmountCents: cents(d, 'maturityAmountCents'),
      });
    case 'WithdrawalRequested':
    case 'WithdrawalApproved':
      return mail(event.type === 'WithdrawalRequested' ? 'withdrawalRequested' : 'withdrawalApproved', {
        withdrawalId: str(d, 'withdrawalId'),
        amountCents: cents(d, 'amountCents'),
        walletAddress: str(d, 'walletAddress'),
      });
    case 'WithdrawalRejected':
      return mail('withdrawalRejected', {
        withdrawalId: str(d, 'withdrawalId'),
        amountCents: cents(d, 'amountCents'),
      });
    default:
      return null;
  }
}
