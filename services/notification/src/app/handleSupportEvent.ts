import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  emailForSupportEvent,
  isSupportEmailEvent,
  supportEmailEventTypes,
} from '../domain/supportEmails.js';
import { queueEmailFor } from './queueEmail.js';

/** The support event types handleSupportEvent acts on (the consumer skips the others without a transaction). */
export const SUPPORT_EVENT_TYPES: readonly string[] = [...supportEmailEventTypes];

/**
 * Reacts to one support integration event (meridian.support.events, group 'notification'): queues the
 * email it asks for inside the transaction that records the event as processed (the email id is the event
 * id), so a redelivered event queues nothing again.
 */
export async function handleSupportEvent(
  event: StoredEvent,
  tx: StoreTx,
  now: Date,
  personalData: PersonalData,
): Promise<void> {
  const candidate = { type: event.type, data: event.data };
  if (!isSupportEmailEvent(candidate)) return;
  const request = emailForSupportEvent(candidate);
  if (request) await queueEmailFor(tx, request, event, now, personalData, '');
}
