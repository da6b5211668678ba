import { onlyEmail } from '../domain/email.js';
import {
  emailForSupportEvent,
  isSupportEmailEvent,
  supportEmailEventTypes,
} from '../domain/supportEmails.js';
import { emailEventHandler } from './queueEmail.js';

/** The support event types handleSupportEvent acts on (the consumer skips the others without a transaction). */
export const SUPPORT_EVENT_TYPES: readonly string[] = [...supportEmailEventTypes];

/**
 * Reacts to one support integration event (meridian.support.events, group 'notification'): queues the
 * email it asks for (its id is the event's id).
 */
export const handleSupportEvent = emailEventHandler(isSupportEmailEvent, (event) =>
  onlyEmail(emailForSupportEvent(event)),
);
