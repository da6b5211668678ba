/**
 * The embedded SMTP catcher (development and tests, when no SMTP_URL is given): an in-process
 * smtp-server on 127.0.0.1 that parses each message with mailparser and hands it to `onMessage`
 * (which stores it in the local mailbox). Plain SMTP on loopback only, no AUTH, no STARTTLS.
 */
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { ReceivedMail } from '../app/ports.js';

export interface SmtpCatcher {
  host: string;
  port: number;
  url: string;
  close(): Promise<void>;
}

export interface SmtpCatcherOptions {
  host?: string;
  port?: number;
  onMessage: (mail: ReceivedMail) => Promise<void>;
}

const addressText = (a: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(a) ? a : a ? [a] : []).map((x) => x.text).join(', ');

export async function startSmtpCatcher(options: SmtpCatcherOptions): Promise<SmtpCatcher> {
  const host = options.host ?? '127.0.0.1';
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    banner: 'Meridian development mail catcher',
    size: 10 * 1024 * 1024,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (parsed) => {
          const recipients = session.envelope.rcptTo.map((r) => r.address);
          await options.onMessage({
            recipients,
            from:
              addressText(parsed.from) ||
              (session.envelope.mailFrom ? session.envelope.mailFrom.address : ''),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId ?? null,
            emailId: headerText(parsed.headers.get('x-meridian-email-id')),
          });
        })
        .then(
          () => callback(),
          (err: Error & { responseCode?: number }) => {
            if (!err.responseCode) err.responseCode = 451; // our own failure: transient, the sender retries
            callback(err);
          },
        );
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  server.on('error', () => {}); // connection-level errors are the client's problem, never a crash
  return {
    host,
    port,
    url: `smtp://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function headerText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}
