/** Names of this service's read-model collections in its ServiceStore. */
export const EMAILS = 'emails';
export const MAILBOX = 'mailbox';
export const RATE_LIMITS = 'rateLimits';

/** Consumer group (and processed-marker set) of this service on other services' topics. */
export const CONSUMER_GROUP = 'notification';
/** The people notification writes to without an address in the event: { userId, email, name, role } from identity's events. */
export const DIRECTORY = 'directory';
