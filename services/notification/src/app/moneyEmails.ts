import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  emailForMoneyEvent,
  moneyEmailEventTypes,
  recipientIdOf,
  type InvestmentFacts,
} from '../domain/moneyEmails.js';
import { MONEY_INVESTMENTS } from './collections.js';
import { directoryUser } from './directory.js';
import { queueEmailFor } from './queueEmail.js';

/** The money event types handleMoneyEvent acts on: the emails' and InvestmentRequested (the others are skipped). */
export const MONEY_EVENT_TYPES: readonly string[] = ['InvestmentRequested', ...moneyEmailEventTypes];

const str = (d: Record<string, unknown>, k: string): string =>
  typeof d[k] === 'string' ? (d[k] as string) : '';

/**
 * The investments notification knows (collection `moneyInvestments`: plan name and amount from
 * InvestmentRequested, for the emails of later investment events): a read model rebuilt by replaying
 * the investment topic through this function alone.
 */
export async function rememberInvestment(event: StoredEvent, tx: StoreTx): Promise<void> {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const investmentId = str(d, 'investmentId');
  if (event.type !== 'InvestmentRequested' || !investmentId) return;
  await tx.put<InvestmentFacts>(MONEY_INVESTMENTS, investmentId, {
    investmentId,
    planName: str(d, 'planName'),
    amountCents: typeof d.amountCents === 'number' ? d.amountCents : 0,
  });
}

/**
 * Reacts to one money integration event (meridian.{ledger,investment,withdrawal}.events, group
 * 'notification'): queues its email inside the transaction that records the event as processed, so a
 * redelivered event queues nothing again (and queueEmail refuses a second email with the same id).
 */
export async function handleMoneyEvent(
  event: StoredEvent,
  tx: StoreTx,
  now: Date,
  personalData: PersonalData,
): Promise<void> {
  await rememberInvestment(event, tx);
  if (!moneyEmailEventTypes.has(event.type)) return;
  const userId = recipientIdOf(event);
  if (!userId) return;
  const d = (event.data ?? {}) as Record<string, unknown>;
  const user = await directoryUser(tx, userId);
  const referee =
    event.type === 'ReferralBonusPaid' && typeof d.refereeId === 'string'
      ? await directoryUser(tx, d.refereeId)
      : null;
  const investment =
    typeof d.investmentId === 'string' && d.investmentId
      ? await tx.get<InvestmentFacts>(MONEY_INVESTMENTS, d.investmentId)
      : null;
  const request = emailForMoneyEvent(event, { user, referee, investment });
  if (request) await queueEmailFor(tx, request, event, now, personalData);
}
