import type { EventMeta, StoredEvent, TraceCarrier } from '@meridian/platform/eventSourcing/types';
import { isSealed, isUserKeyDestroyed, type PersonalData } from '@meridian/platform/personalData';
import { injectTrace } from '@meridian/platform/tracing';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  newEmail,
  toEmailStreamId,
  type EmailRecord,
  type EmailRequest,
  type KeyedEmailRequest,
} from '../domain/email.js';
import { EMAILS } from './collections.js';

export type EmailQueued = {
  type: 'EmailQueued';
  data: { emailId: string; template: string; to: string; causeEventId: string };
};

/** An email document with the W3C trace context it was queued in (the sender's span joins that trace). */
export type TracedEmail = EmailRecord & { trace?: TraceCarrier };

/**
 * The request as the outbox keeps it (crypto-shredding): the address, the reply-to and
 * every text of the template data sealed with the recipient's personal-data key, so that once the
 * recipient is deleted nothing in the outbox, its events or its backups can be read. Values that arrive
 * sealed (identity's names and emails, a KYC submitter's name in an admin's email: each with its own
 * owner's key) are kept as they are; numbers stay clear. The sender opens them just before sending.
 *
 * A recipient already deleted (the sealed address no longer opens) gets an email without any data: it is
 * queued only to be dropped by the sender with the reason. Resolves to null when the key store refuses
 * the recipient a key (deleted: identity keeps their id as a tombstone and never makes them a new key):
 * nothing is queued. Any other failure (identity unreachable) is thrown, so the event is retried.
 */
export async function sealEmailRequest(
  personalData: PersonalData,
  request: EmailRequest,
): Promise<EmailRequest | null> {
  const owner = request.userId;
  if (!owner) return request;
  const to = request.to.trim();
  if (isSealed(to) && (await personalData.openOrNull(to)) === null)
    return { template: request.template, to, userId: owner, data: {} };
  const seal = async (value: string): Promise<string> =>
    !value || isSealed(value) ? value : personalData.seal(owner, value);
  try {
    const data: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(request.data))
      data[field] = typeof value === 'string' ? await seal(value) : value;
    return {
      ...request,
      to: await seal(to),
      ...(request.replyTo ? { replyTo: await seal(request.replyTo) } : {}),
      data,
    };
  } catch (err) {
    // the key store refused a key for this user (deleted): an email to them is never sent
    if (isUserKeyDestroyed(err)) return null;
    throw err;
  }
}

/**
 * Records a pending email in the outbox, inside the caller's transaction: the email document (its
 * personal data sealed, sealEmailRequest) plus an EmailQueued event on the email's stream (whose commit
 * wakes the sender through onAppended). expectedVersion 0: one email per cause id, a second queue of the
 * same cause is refused. Resolves to null when the recipient was deleted (nothing queued).
 */
export async function queueEmail(
  tx: StoreTx,
  request: EmailRequest,
  cause: { id: string; correlationId: string; actor?: EventMeta['actor']; emailId?: string },
  now: Date,
  personalData: PersonalData,
): Promise<EmailRecord | null> {
  const sealed = await sealEmailRequest(personalData, request);
  if (!sealed) return null;
  const email = newEmail(sealed, cause, now);
  const trace = injectTrace();
  await tx.put<TracedEmail>(EMAILS, email.id, trace ? { ...email, trace } : email);
  await tx.appendToStream<EmailQueued>(
    toEmailStreamId(email.id),
    0,
    [
      {
        type: 'EmailQueued',
        data: { emailId: email.id, template: email.template, to: email.to, causeEventId: email.causeEventId },
      },
    ],
    { correlationId: cause.correlationId, causationId: cause.id, actor: cause.actor },
  );
  return email;
}

/**
 * Queues an email an integration event asks for. Its id is the event's id (`<event id>:<key>` for one
 * of several emails of the event), so a redelivered event queues nothing twice.
 */
export function queueEmailFor(
  tx: StoreTx,
  request: EmailRequest,
  event: StoredEvent,
  now: Date,
  personalData: PersonalData,
  key = '',
): Promise<EmailRecord | null> {
  const cause = { id: event.id, correlationId: event.correlationId, actor: event.actor ?? undefined };
  return queueEmail(
    tx,
    request,
    { ...cause, emailId: key ? `${event.id}:${key}` : event.id },
    now,
    personalData,
  );
}

/** A consumer's handler of one event of another service, run in the transaction that marks it processed. */
export type EmailEventHandler = (
  event: StoredEvent,
  tx: StoreTx,
  now: Date,
  personalData: PersonalData,
) => Promise<void>;

/**
 * The handler queueing the emails an event of another service asks for: an event `isWanted` narrows
 * (the others queue nothing) becomes `emailsOf` it (read through tx when they need the directory), each
 * queued by queueEmailFor in the transaction that records the event as processed, so a redelivered event
 * queues nothing again.
 */
export function emailEventHandler<E extends { type: string; data: unknown }>(
  isWanted: (candidate: { type: string; data: unknown }) => candidate is E,
  emailsOf: (event: E, tx: StoreTx) => Promise<readonly KeyedEmailRequest[]> | readonly KeyedEmailRequest[],
): EmailEventHandler {
  return async (event, tx, now, personalData) => {
    const candidate = { type: event.type, data: event.data };
    if (!isWanted(candidate)) return;
    for (const { key, request } of await emailsOf(candidate, tx)) {
      await queueEmailFor(tx, request, event, now, personalData, key);
    }
  };
}
