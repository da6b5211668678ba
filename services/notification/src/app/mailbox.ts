/**
 * The local development mailbox: what the embedded SMTP catcher received, kept in the service's
 * store (so it survives restarts). Never served in production.
 */
import { randomUUID } from 'node:crypto';
import { precondition } from '@meridian/platform/eventSourcing/errors';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { extractLinks } from '../domain/links.js';
import { MAILBOX } from './collections.js';
import type { ReceivedMail } from './ports.js';

export interface MailboxMessage {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
  sentAt: string;
}

interface MailboxDoc extends MailboxMessage {
  /** lower-cased `to`, the lookup key */
  toKey: string;
  /** arrival order, for newest first */
  seq: number;
  messageId: string | null;
}

export const MAILBOX_UNAVAILABLE = 'The mailbox is only available outside production';
export const MAILBOX_LIMIT = 200;

/**
 * Stores one received message, one entry per envelope recipient. A message that carries our email id
 * (X-Meridian-Email-Id) is kept once per recipient: SMTP is at least once (the sender may crash after the
 * server accepted a message and before it recorded that), and a mailbox de-duplicates the resend, as mail
 * clients do by Message-ID.
 */
export async function recordReceivedMail(store: ServiceStore, mail: ReceivedMail, now: Date): Promise<void> {
  const links = extractLinks(mail.html, mail.text);
  await store.transaction(async (tx) => {
    let seq = (await tx.count(MAILBOX)) + 1;
    for (const rcpt of new Set(mail.recipients.map((r) => r.trim()).filter(Boolean))) {
      const id = mail.emailId ? `${mail.emailId}:${rcpt.toLowerCase()}` : randomUUID();
      if (mail.emailId && (await tx.get(MAILBOX, id))) continue;
      const doc: MailboxDoc = {
        id,
        to: rcpt,
        toKey: rcpt.toLowerCase(),
        from: mail.from,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        links,
        sentAt: now.toISOString(),
        seq: seq++,
        messageId: mail.messageId,
      };
      await tx.put(MAILBOX, doc.id, doc);
    }
  });
}

/** Newest first; every message when `to` is empty. */
export async function listMailbox(
  store: ServiceStore,
  to: string,
  options: { production: boolean; limit?: number },
): Promise<MailboxMessage[]> {
  if (options.production) throw precondition(MAILBOX_UNAVAILABLE, 'mailbox_disabled');
  const key = to.trim().toLowerCase();
  const docs = await store.find<MailboxDoc>(MAILBOX, {
    ...(key ? { where: { toKey: key } } : {}),
    orderBy: { field: 'seq', direction: 'desc' },
    limit: options.limit ?? MAILBOX_LIMIT,
  });
  return docs.map(({ id, to: rcpt, from, subject, text, html, links, sentAt }) => ({
    id,
    to: rcpt,
    from,
    subject,
    text,
    html,
    links,
    sentAt,
  }));
}
