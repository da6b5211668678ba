/** Names of this service's collections in its ServiceStore. */

// ---- read models: dropped and rebuilt from the events alone in projections/rebuild.int.spec.ts ----
/** The people notification writes to without an address in the event: { userId, email, name, role } from identity's events. */
export const DIRECTORY = 'directory';
/** Plan names and amounts of investments (from InvestmentRequested), for the emails of later investment events. */
export const MONEY_INVESTMENTS = 'moneyInvestments';

// ---- state of its own, not derived from events (never rebuilt) ----
/** The email outbox: each email's template data, sealed secrets and delivery attempts (the sender's state). */
export const EMAILS = 'emails';
/** The development mailbox: what the embedded SMTP catcher received (a mail server's store). */
export const MAILBOX = 'mailbox';
/** SendAutomatedEmail's hourly counters. */
export const RATE_LIMITS = 'rateLimits';

/**
 * The indexes behind this service's queries, so none reads a whole collection: the sender's due pending
 * emails, earliest first (emailSender.ts), and the admins of the directory (directory.ts).
 */
export const NOTIFICATION_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: EMAILS, fields: ['status', 'nextAttemptAt'] },
  { collection: DIRECTORY, fields: ['role', 'userId'] },
];

/** Consumer group (and processed-marker set) of this service on other services' topics. */
export const CONSUMER_GROUP = 'notification';
