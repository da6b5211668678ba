/**
 * The outbox's sender loop: delivers due pending emails, marks them sent (EmailSent), schedules a
 * retry with exponential backoff after a failed attempt, and gives up after the policy's last
 * attempt (EmailFailed). It starts from whatever is pending in the store, so emails queued before a
 * crash are sent after the restart: at least once to SMTP (a crash between the SMTP answer and the
 * "sent" commit resends that one email).
 *
 * Replicas: only the holder of the lease `notification:email-sender` sends; the others stand by and
 * take over when it dies (about one ttl) or stops (at once). The holder checks the lease before each
 * email. The outcome's commit is not fenced on purpose: an email that went out must be recorded as
 * sent even if the lease was lost meanwhile (refusing it would make the successor send it again);
 * the commit's own compare (still pending, same attempt count) keeps it recorded once.
 */
import { startLeaseKeeperUnless, type LeaseSettings } from '@meridian/platform/app/lease';
import { failureKindOf } from '@meridian/platform/adapters/busShared';
import { metrics } from '@meridian/platform/metrics';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { extractTrace, inSpan, ROOT_CONTEXT, SpanKind, tracingEnabled } from '@meridian/platform/tracing';
import { SHREDDED, type PersonalData } from '@meridian/platform/personalData';
import {
  isDue,
  markAttemptFailed,
  markDelivered,
  markDropped,
  RECIPIENT_DELETED,
  toEmailStreamId,
  type EmailRecord,
  type RetryPolicy,
} from '../domain/email.js';
import { renderEmail, type TemplateData, type TemplateName } from '../domain/templates/registry.js';
import { EMAILS } from './collections.js';
import { MailDeliveryError, type Mailer, type OutgoingMail } from './ports.js';
import type { TracedEmail } from './queueEmail.js';

export interface EmailSenderOptions {
  store: ServiceStore;
  mailer: Mailer;
  clock: () => Date;
  policy: RetryPolicy;
  from: string;
  appUrl: string;
  /** Opens a sealed secret carried in an event (AES-256-GCM, SECRETS_KEY). Throws when it cannot. */
  openSecret: (sealed: string) => string;
  /** Opens the personal data the outbox keeps sealed (the address, names, texts) just before sending. */
  personalData: PersonalData;
  log?: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
  /** Pending emails read per pass. */
  batchSize?: number;
  /** The lease electing one sender among replicas (default on, ttl 10 s); false where one instance is guaranteed. */
  lease?: LeaseSettings | false;
  /**
   * The holder also re-reads the pending emails this often (ms), for emails queued by other replicas
   * (their appends do not wake this process). Default 1000.
   */
  pollIntervalMs?: number;
}

const emailsSent = metrics.counter('meridian_emails_sent_total', 'Emails the mail server accepted.', [
  'template',
]);
const emailsFailed = metrics.counter(
  'meridian_emails_failed_total',
  'Failed email delivery attempts, by template and outcome (retry, given_up, dropped: the recipient was deleted).',
  ['template', 'outcome'],
);

/** The lease the sender loop runs under (one per notification store). */
export const EMAIL_SENDER_LEASE = 'notification:email-sender';

export interface EmailSender {
  /** Wakes the loop (new pending email, or a test wanting an immediate pass). */
  wake(): void;
  stop(): Promise<void>;
}

/** Permanent: retrying cannot help (a secret that does not open, an unknown template). */
class UndeliverableError extends Error {}

/** The recipient was deleted (their personal-data key is gone): the email is dropped, never sent. */
export class RecipientDeletedError extends Error {}

/**
 * Builds the message for an email: opens its personal data (the address with the recipient's key: when
 * that key is gone the recipient was deleted, RecipientDeletedError; names and texts with their owners'
 * keys, '[deleted]' for an owner deleted since) and its sealed secrets, then renders its template.
 */
export async function renderForDelivery(
  email: EmailRecord,
  options: Pick<EmailSenderOptions, 'from' | 'appUrl' | 'openSecret' | 'personalData'>,
): Promise<OutgoingMail> {
  const { personalData } = options;
  // a value that no longer opens (its key destroyed, or destroyed and made anew) is the owner's deletion; a
  // key that could not be fetched (identity unreachable) is not: openOrNull throws, the attempt fails and is
  // tried again
  const openOrNull = (value: string) => personalData.openOrNull(value);
  const to = await openOrNull(email.to);
  if (to === null) throw new RecipientDeletedError(RECIPIENT_DELETED);
  const replyTo = email.replyTo ? ((await openOrNull(email.replyTo)) ?? undefined) : undefined;
  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(email.data))
    data[field] = typeof value === 'string' ? ((await openOrNull(value)) ?? SHREDDED) : value;
  for (const [field, sealed] of Object.entries(email.sealed)) {
    try {
      data[field] = options.openSecret(sealed);
    } catch {
      throw new UndeliverableError(`sealed field "${field}" could not be opened (wrong SECRETS_KEY?)`);
    }
  }
  let rendered;
  try {
    rendered = renderEmail(email.template as TemplateName, data as unknown as TemplateData<TemplateName>, {
      appUrl: options.appUrl,
    });
  } catch (err) {
    throw new UndeliverableError(`template ${email.template} failed to render: ${(err as Error).message}`);
  }
  return {
    from: options.from,
    to,
    replyTo,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    headers: { 'X-Meridian-Email-Id': email.id, 'X-Meridian-Template': email.template },
  };
}

/** An error text as the outbox keeps it: without the recipient's address (a server may quote it). */
const withoutAddress = (message: string, address: string) =>
  address ? message.split(address).join('<recipient>') : message;

export function startEmailSender(options: EmailSenderOptions): EmailSender {
  const { store, mailer, clock, policy } = options;
  const batchSize = options.batchSize ?? 50;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let stopping = false;

  const wake = () => {
    woken = true;
    const w = wakeUp;
    wakeUp = null;
    w?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping) return resolve();
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const unlisten = store.onAppended(wake);
  const keeper = startLeaseKeeperUnless(options.lease, {
    store,
    name: EMAIL_SENDER_LEASE,
    onError: (err) =>
      options.log?.warn({ err: (err as Error).message }, 'email sender lease: store unreachable; retrying'),
  });
  const unwatch = keeper?.onChange(() => wake());
  const holds = () => keeper?.isHeld() ?? true;

  /** Commits the outcome of one attempt, unless the email changed meanwhile (stopped, or another pass). */
  const commit = async (
    before: EmailRecord,
    after: EmailRecord,
    event: ReturnType<typeof markDelivered>['event'] | null,
  ) => {
    await store.transaction(async (tx) => {
      const current = await tx.get<EmailRecord>(EMAILS, before.id);
      if (!current || current.status !== 'pending' || current.attempts !== before.attempts) return;
      await tx.put(EMAILS, after.id, after);
      if (event) {
        await tx.appendToStream(toEmailStreamId(after.id), 'any', [event], {
          correlationId: after.correlationId,
          causationId: after.causeEventId,
        });
      }
    });
  };

  /**
   * One attempt as a CLIENT span `send email`, in the trace of the event that queued the email (its
   * context is kept on the email document, queueEmail.ts): the end of an approval's trace.
   */
  const deliverTraced = (email: EmailRecord) => {
    const queuedIn = (email as TracedEmail).trace;
    if (!queuedIn && !tracingEnabled()) return deliver(email);
    return inSpan(
      'send email',
      {
        kind: SpanKind.CLIENT,
        parent: queuedIn ? extractTrace(queuedIn, ROOT_CONTEXT) : ROOT_CONTEXT,
        attributes: {
          'meridian.email.id': email.id,
          'meridian.email.template': email.template,
          'meridian.email.attempt': email.attempts + 1,
        },
      },
      () => deliver(email),
    );
  };

  const deliver = async (email: EmailRecord) => {
    let mail: OutgoingMail;
    try {
      mail = await renderForDelivery(email, options);
    } catch (err) {
      if (err instanceof RecipientDeletedError) {
        const dropped = markDropped(email, err.message);
        options.log?.info(
          { emailId: email.id, template: email.template },
          'email dropped: recipient deleted',
        );
        await commit(email, dropped.email, dropped.event);
        emailsFailed.inc({ template: email.template, outcome: 'dropped' });
        return;
      }
      if (failureKindOf(err) === 'transient') return attemptFailed(email, err, '', false);
      const failed = markAttemptFailed(email, (err as Error).message, clock(), policy, { permanent: true });
      options.log?.error(
        { emailId: email.id, template: email.template, err: (err as Error).message },
        'email cannot be delivered',
      );
      await commit(email, failed.email, failed.event);
      emailsFailed.inc({ template: email.template, outcome: 'given_up' });
      return;
    }
    try {
      const { messageId } = await mailer.send(mail);
      const sent = markDelivered(email, messageId, clock());
      await commit(email, sent.email, sent.event);
      emailsSent.inc({ template: email.template });
      options.log?.info(
        { emailId: email.id, template: email.template, attempts: sent.email.attempts },
        'email sent',
      );
    } catch (err) {
      await attemptFailed(email, err, mail.to, err instanceof MailDeliveryError && err.permanent);
    }
  };

  /** An attempt that failed: tried again after its backoff, or given up (permanent, or the last attempt). */
  const attemptFailed = async (email: EmailRecord, err: unknown, to: string, permanent: boolean) => {
    const message = withoutAddress(err instanceof Error ? err.message : String(err), to);
    const failed = markAttemptFailed(email, message, clock(), policy, { permanent });
    await commit(email, failed.email, failed.event);
    const outcome = failed.email.status === 'failed' ? 'given_up' : 'retry';
    emailsFailed.inc({ template: email.template, outcome });
    if (failed.email.status === 'failed') {
      options.log?.error(
        { emailId: email.id, template: email.template, attempts: failed.email.attempts, err: message },
        'email given up',
      );
    } else {
      options.log?.warn(
        {
          emailId: email.id,
          template: email.template,
          attempts: failed.email.attempts,
          retryAt: failed.email.nextAttemptAt,
          err: message,
        },
        'email delivery failed; will retry',
      );
    }
  };

  const loop = async () => {
    await keeper?.ready;
    while (!stopping) {
      woken = false;
      if (!holds()) {
        // standby: another replica sends; woken when the lease comes our way
        await sleep(pollIntervalMs);
        continue;
      }
      let nextDueInMs = pollIntervalMs;
      try {
        // the pending emails whose next attempt comes first, a batch at a time (NOTIFICATION_INDEXES): the
        // due ones lead, and a pass reads no more however long the outbox grows
        const pending = await store.find<EmailRecord>(EMAILS, {
          where: { status: 'pending' },
          orderBy: { field: 'nextAttemptAt', direction: 'asc' },
          limit: batchSize,
        });
        const now = clock();
        const due = pending.filter((e) => isDue(e, now));
        for (const email of due) {
          if (stopping) return;
          if (!holds()) break;
          await deliverTraced(email);
        }
        // after sending, read again: attempts just made moved their next try into the future
        if (due.length > 0) continue;
        for (const e of pending)
          nextDueInMs = Math.min(nextDueInMs, Math.max(0, Date.parse(e.nextAttemptAt) - now.getTime()));
      } catch (err) {
        options.log?.error({ err: (err as Error).message }, 'email sender pass failed; retrying');
        nextDueInMs = 1_000;
      }
      // sleep until woken (a new email), the next retry is due, or the next poll
      await sleep(nextDueInMs);
    }
  };
  const running = loop();

  return {
    wake,
    async stop() {
      stopping = true;
      unlisten();
      unwatch?.();
      wake();
      await running;
      await keeper?.stop();
    },
  };
}
