/**
 * The SMTP mailer against a real SMTP server on loopback: emails share pooled connections, and a
 * connection the server ended is replaced without losing the next email.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { startSmtpTestServer, type SmtpTestServer } from '../testing/smtpTestServer.js';
import { createSmtpMailer } from './mailer.smtp.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const mail = (i: number) => ({
  from: 'Meridian <no-reply@meridian.test>',
  to: `investor${i}@example.com`,
  subject: `Message ${i}`,
  text: `Body ${i}`,
  html: `<p>Body ${i}</p>`,
  headers: { 'X-Meridian-Email-Id': `mail-${i}` },
});

async function setup(): Promise<{ smtp: SmtpTestServer; mailer: ReturnType<typeof createSmtpMailer> }> {
  const smtp = await startSmtpTestServer();
  cleanups.push(() => smtp.close());
  const mailer = createSmtpMailer({
    url: smtp.url,
    production: false,
    plainLoopback: true,
    maxConnections: 1,
  });
  cleanups.push(() => mailer.close());
  return { smtp, mailer };
}

describe('the SMTP mailer', () => {
  it('sends one email after another over one pooled connection', async () => {
    const { smtp, mailer } = await setup();
    for (let i = 0; i < 12; i++) await mailer.send(mail(i));
    expect(smtp.accepted.map((m) => m.subject)).toEqual(Array.from({ length: 12 }, (_, i) => `Message ${i}`));
    expect(smtp.connections).toBe(1);
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => mailer.send(mail(100 + i))));
    expect(new Set(ids.map((r) => r.messageId)).size).toBe(6);
    expect(smtp.accepted).toHaveLength(18);
    expect(smtp.connections).toBe(1);
  });

  it('replaces a connection the server ended and delivers the next email', async () => {
    const { smtp, mailer } = await setup();
    await mailer.send(mail(1));
    smtp.dropConnections();
    await waitFor(() => smtp.closedConnections === 1);
    await mailer.send(mail(2));
    expect(smtp.accepted.map((m) => m.subject)).toEqual(['Message 1', 'Message 2']);
    expect(smtp.connections).toBe(2);
  });
});
