import { onlyEmail } from '../domain/email.js';
import {
  emailForIdentityEvent,
  identityEmailEventTypes,
  isIdentityEmailEvent,
} from '../domain/identityEmails.js';
import { DIRECTORY_EVENT_TYPES, updateDirectory } from './directory.js';
import { emailEventHandler, type EmailEventHandler } from './queueEmail.js';

/**
 * Reacts to one identity integration event: queues the email it asks for. Runs inside the
 * transaction that records the event as processed (subscribeIdempotent), so a redelivered event
 * queues nothing a second time. The email's id is the causing event's id. Also keeps the directory
 * (app/directory.ts) of users and admins (names and emails copied as identity sealed them), and on
 * UserDeleted drops the user's personal-data key from this process's cache (identity destroyed it).
 */
/** The identity event types handleIdentityEvent acts on: the directory's and the emails' (the others are skipped). */
export const IDENTITY_EVENT_TYPES: readonly string[] = [...DIRECTORY_EVENT_TYPES, ...identityEmailEventTypes];

const queueIdentityEmails = emailEventHandler(isIdentityEmailEvent, (event) =>
  onlyEmail(emailForIdentityEvent(event)),
);

export const handleIdentityEvent: EmailEventHandler = async (event, tx, now, personalData) => {
  await updateDirectory(event, tx);
  personalData.forgetIfDeleted(event);
  await queueIdentityEmails(event, tx, now, personalData);
};
