/**
 * The local development mailbox: what the embedded SMTP catcher received, kept in the service's
 * store (so it survives restarts). Never served in production.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { precondition } from '@meridian/platform/eventSourcing/errors';
import type { PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { EmailRecord } from '../domain/email.js';
import { extractLinks } from '../domain/links.js';
import { EMAILS, MAILBOX } from './collections.js';
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
  /** the recipient's address, blinded (mailboxAddressKey): the lookup key, never the address itself */
  toKey: string;
  /** arrival order, for newest first */
  seq: number;
  messageId: string | null;
  /** the recipient user (from the outbox email the message carries the id of), when known */
  userId?: string;
  /**
   * The message (to, from, subject, text, html, links) sealed with the recipient's personal-data key; the
   * plain fields are then empty. Unreadable (and no longer listed) once the recipient is deleted.
   */
  sealed?: string;
}

type Content = Pick<MailboxMessage, 'to' | 'from' | 'subject' | 'text' | 'html' | 'links'>;

/** What the mailbox needs to keep messages of people unreadable once they are deleted. */
export interface MailboxDeps {
  personalData: PersonalData;
  /** SECRETS_KEY (64 hex characters): keys the blind index of addresses. */
  secretsKey: string;
}

export const MAILBOX_UNAVAILABLE = 'The mailbox is only available outside production';
export const MAILBOX_LIMIT = 200;

/**
 * The blind index of an address: HMAC-SHA256 of the lower-cased address under a key derived from
 * SECRETS_KEY. Looks a message up by its recipient without keeping the address in clear.
 */
export function mailboxAddressKey(secretsKey: string, address: string): string {
  const key = createHmac('sha256', Buffer.from(secretsKey, 'hex'))
    .update('meridian/mailbox/address/v1')
    .digest();
  return createHmac('sha256', key).update(address.trim().toLowerCase(), 'utf8').digest('base64url');
}

/**
 * Stores one received message, one entry per envelope recipient. A message that carries our email id
 * (X-Meridian-Email-Id) is kept once per recipient: SMTP is at least once (the sender may crash after the
 * server accepted a message and before it recorded that), and a mailbox de-duplicates the resend, as mail
 * clients do by Message-ID. A message of ours is kept sealed with its recipient's personal-data key (the
 * outbox email names the recipient), so a deleted user's mail is unreadable here too (crypto-shredding);
 * mail from elsewhere is kept as it came.
 */
export async function recordReceivedMail(
  store: ServiceStore,
  mail: ReceivedMail,
  now: Date,
  deps: MailboxDeps,
): Promise<void> {
  const links = extractLinks(mail.html, mail.text);
  const owner = mail.emailId ? (await store.get<EmailRecord>(EMAILS, mail.emailId))?.userId : undefined;
  const entries: Array<Omit<MailboxDoc, 'seq'>> = [];
  for (const rcpt of new Set(mail.recipients.map((r) => r.trim()).filter(Boolean))) {
    const toKey = mailboxAddressKey(deps.secretsKey, rcpt);
    const content: Content = {
      to: rcpt,
      from: mail.from,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      links,
    };
    const id = mail.emailId ? `${mail.emailId}:${toKey}` : randomUUID();
    const common = { id, toKey, sentAt: now.toISOString(), messageId: mail.messageId };
    entries.push(
      owner
        ? {
            ...common,
            to: '',
            from: '',
            subject: '',
            text: '',
            html: '',
            links: [],
            userId: owner,
            sealed: await deps.personalData.seal(owner, JSON.stringify(content)),
          }
        : { ...common, ...content },
    );
  }
  await store.transaction(async (tx) => {
    let seq = (await tx.count(MAILBOX)) + 1;
    for (const entry of entries) {
      if (mail.emailId && (await tx.get(MAILBOX, entry.id))) continue;
      await tx.put<MailboxDoc>(MAILBOX, entry.id, { ...entry, seq: seq++ });
    }
  });
}

/** Newest first; every message when `to` is empty. Messages of deleted recipients are left out. */
export async function listMailbox(
  store: ServiceStore,
  to: string,
  options: { production: boolean; limit?: number } & MailboxDeps,
): Promise<MailboxMessage[]> {
  if (options.production) throw precondition(MAILBOX_UNAVAILABLE, 'mailbox_disabled');
  const key = to.trim() ? mailboxAddressKey(options.secretsKey, to) : '';
  const docs = await store.find<MailboxDoc>(MAILBOX, {
    ...(key ? { where: { toKey: key } } : {}),
    orderBy: { field: 'seq', direction: 'desc' },
    limit: options.limit ?? MAILBOX_LIMIT,
  });
  const messages: MailboxMessage[] = [];
  for (const doc of docs) {
    let content: Content = doc;
    if (doc.sealed) {
      const opened = await options.personalData.openOrNull(doc.sealed);
      if (opened === null) continue; // the recipient was deleted
      content = JSON.parse(opened) as Content;
    }
    const { id, sentAt } = doc;
    const { to: rcpt, from, subject, text, html, links } = content;
    messages.push({ id, to: rcpt, from, subject, text, html, links, sentAt });
  }
  return messages;
}
