/**
 * The Mailer port over SMTP (nodemailer). Production sends to SMTP_URL with TLS certificate
 * verification always on; the embedded default sends to the in-process catcher over loopback
 * through the very same code path.
 */
import nodemailer from 'nodemailer';
import { MailDeliveryError, type Mailer, type OutgoingMail } from '../app/ports.js';

export interface SmtpMailerOptions {
  /** smtp://host:port or smtps://user:pass@host:port */
  url: string;
  /** NODE_ENV=production: certificates are always verified. */
  production: boolean;
  /** The embedded catcher speaks plain SMTP on loopback: skip STARTTLS. */
  plainLoopback?: boolean;
  timeoutsMs?: { connection?: number; greeting?: number; socket?: number };
  /** Connections kept open to the server at most (default 2). */
  maxConnections?: number;
}

/** Codes that mean the server or network, not this message: always worth a retry. */
const TRANSIENT_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'EAUTH',
  'ETLS',
  'EPROTOCOL',
]);

export function toDeliveryError(err: unknown): MailDeliveryError {
  const e = err as { message?: string; code?: string; responseCode?: number; response?: string };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const permanent =
    responseCode !== undefined &&
    responseCode >= 500 &&
    responseCode < 600 &&
    !TRANSIENT_CODES.has(e.code ?? '');
  const detail = e.response ?? e.message ?? String(err);
  return new MailDeliveryError(
    `SMTP ${e.code ?? 'error'}${responseCode ? ` ${responseCode}` : ''}: ${detail}`,
    permanent,
    responseCode,
  );
}

export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const t = options.timeoutsMs ?? {};
  const transport = nodemailer.createTransport({
    url: options.url,
    // pooled: the emails of a sending pass share open connections (a connection, greeting and EHLO per
    // email before); a connection the server closed is replaced on the next email
    pool: true,
    maxConnections: options.maxConnections ?? 2,
    maxMessages: 500,
    connectionTimeout: t.connection ?? 10_000,
    greetingTimeout: t.greeting ?? 10_000,
    socketTimeout: t.socket ?? 30_000,
    ...(options.plainLoopback ? { ignoreTLS: true } : {}),
    tls: {
      // never disabled in production; outside it, local servers (Mailpit, dev relays) may use self-signed certs
      rejectUnauthorized: options.production,
      minVersion: 'TLSv1.2',
    },
  });
  return {
    async send(mail: OutgoingMail) {
      try {
        const info = await transport.sendMail({
          from: mail.from,
          to: mail.to,
          replyTo: mail.replyTo,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
          // the same Message-ID when a crash makes us send it again, so receivers see one message
          ...(mail.headers?.['X-Meridian-Email-Id']
            ? { messageId: `<${mail.headers['X-Meridian-Email-Id']}@meridian.email>` }
            : {}),
        });
        if (info.rejected && info.rejected.length > 0) {
          throw Object.assign(new Error(`recipient refused: ${info.rejected.join(', ')}`), {
            code: 'EENVELOPE',
            responseCode: 550,
          });
        }
        return { messageId: info.messageId };
      } catch (err) {
        throw toDeliveryError(err);
      }
    },
    async close() {
      transport.close();
    },
  };
}
