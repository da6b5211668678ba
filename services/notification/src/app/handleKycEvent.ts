import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { emailsForKycEvent, isKycEmailEvent, kycEmailEventTypes } from '../domain/kycEmails.js';

/** The kyc event types handleKycEvent acts on (the consumer skips the others without a transaction). */
export const KYC_EVENT_TYPES: readonly string[] = [...kycEmailEventTypes];
import { directoryAdmins, directoryUser } from './directory.js';
import { queueEmailFor } from './queueEmail.js';

/**
 * Reacts to one kyc integration event (meridian.kyc.events, group 'notification'): queues the emails
 * it asks for, inside the transaction that records the event as processed, so a redelivered event
 * queues nothing again. Email ids are the event id (or `<event id>:<admin id>` for one per admin).
 */
export async function handleKycEvent(
  event: StoredEvent,
  tx: StoreTx,
  now: Date,
  personalData: PersonalData,
): Promise<void> {
  const candidate = { type: event.type, data: event.data };
  if (!isKycEmailEvent(candidate)) return;
  const userId = candidate.data.userId;
  const needsUser = !candidate.data.email || !candidate.data.name;
  const user = needsUser && userId ? await directoryUser(tx, userId) : null;
  const admins = candidate.type === 'KycSubmitted' ? await directoryAdmins(tx) : [];
  for (const { key, request } of emailsForKycEvent(candidate, { user, admins })) {
    await queueEmailFor(tx, request, event, now, personalData, key);
  }
}
