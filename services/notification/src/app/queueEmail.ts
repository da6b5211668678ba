import type { EventMeta, StoredEvent, TraceCarrier } from '@meridian/platform/eventSourcing/types';
import { injectTrace } from '@meridian/platform/tracing';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { newEmail, toEmailStreamId, type EmailRecord, type EmailRequest } from '../domain/email.js';
import { EMAILS } from './collections.js';

export type EmailQueued = {
  type: 'EmailQueued';
  data: { emailId: string; template: string; to: string; causeEventId: string };
};

/** An email document with the W3C trace context it was queued in (the sender's span joins that trace). */
export type TracedEmail = EmailRecord & { trace?: TraceCarrier };

/**
 * Records a pending email in the outbox, inside the caller's transaction: the email document plus
 * an EmailQueued event on the email's stream (whose commit wakes the sender through onAppended).
 * expectedVersion 0: one email per cause id, a second queue of the same cause is refused.
 */
export async function queueEmail(
  tx: StoreTx,
  request: EmailRequest,
  cause: { id: string; correlationId: string; actor?: EventMeta['actor']; emailId?: string },
  now: Date,
): Promise<EmailRecord> {
  const email = newEmail(request, cause, now);
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
  key = '',
): Promise<EmailRecord> {
  const cause = { id: event.id, correlationId: event.correlationId, actor: event.actor ?? undefined };
  return queueEmail(tx, request, { ...cause, emailId: key ? `${event.id}:${key}` : event.id }, now);
}
