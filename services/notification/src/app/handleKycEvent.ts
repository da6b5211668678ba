import { emailsForKycEvent, isKycEmailEvent, kycEmailEventTypes } from '../domain/kycEmails.js';
import { directoryAdmins, directoryUser } from './directory.js';
import { emailEventHandler } from './queueEmail.js';

/** The kyc event types handleKycEvent acts on (the consumer skips the others without a transaction). */
export const KYC_EVENT_TYPES: readonly string[] = [...kycEmailEventTypes];

/**
 * Reacts to one kyc integration event (meridian.kyc.events, group 'notification'): queues the emails
 * it asks for (the user's name and email from the directory when the event has none; one email per
 * admin of a submission, keyed by the admin's id).
 */
export const handleKycEvent = emailEventHandler(isKycEmailEvent, async (event, tx) => {
  const userId = event.data.userId;
  const needsUser = !event.data.email || !event.data.name;
  const user = needsUser && userId ? await directoryUser(tx, userId) : null;
  const admins = event.type === 'KycSubmitted' ? await directoryAdmins(tx) : [];
  return emailsForKycEvent(event, { user, admins });
});
