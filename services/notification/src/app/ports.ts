/** What the notification use cases need from the outside world (implemented in adapters/). */

export interface OutgoingMail {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** Headers such as X-Meridian-Email-Id (lets a receiving mailbox de-duplicate a resend). */
  headers?: Record<string, string>;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with a MailDeliveryError otherwise. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

/** A failed SMTP delivery. `permanent` (a 5xx answer to the message) means retrying cannot help. */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

/** A message as the local SMTP catcher received and parsed it. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  recipients: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string | null;
  /** X-Meridian-Email-Id of the message: the same on a resend after a crash between sending and recording it. */
  emailId?: string | null;
}
