import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  emailForMoneyEvent,
  moneyEmailEventTypes,
  recipientIdOf,
  type InvestmentFacts,
} from '../domain/moneyEmails.js';
import { directoryUser } from './directory.js';
import { queueEmail } from './queueEmail.js';

/** Plan names of investments (from InvestmentRequested), for the emails of later investment events. */
export const MONEY_INVESTMENTS = 'moneyInvestments';

/**
 * Reacts to one money integration event (meridian.{ledger,investment,withdrawal}.events, group
 * 'notification'): queues its email inside the transaction that records the event as processed, so a
 * redelivered event queues nothing again (and queueEmail refuses a second email with the same id).
 */
export async function handleMoneyEvent(event: StoredEvent, tx: StoreTx, now: Date): Promise<void> {
  const d = (event.data ?? {}) as Record<string, unknown>;
  if (event.type === 'InvestmentRequested') {
    const investmentId = typeof d.investmentId === 'string' ? d.investmentId : '';
    if (investmentId) {
      await tx.put<InvestmentFacts>(MONEY_INVESTMENTS, investmentId, {
        investmentId,
        planName: typeof d.planName === 'string' ? d.planName : '',
        amountCents: typeof d.amountCents === 'number' ? d.amountCents : 0,
      });
    }
    return;
  }
  if (!moneyEmailEventTypes.has(event.type)) return;
  const userId = recipientIdOf(event);
  if (!userId) return;
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
  if (!request) return;
  await queueEmail(
    tx,
    request,
    { id: event.id, correlationId: event.correlationId, actor: event.actor ?? undefined },
    now,
  );
}
