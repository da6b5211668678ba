/**
 * The notification service through its gRPC surface and the bus, on embedded adapters (SQLite
 * :memory: store, in-process bus) and real SMTP (the embedded catcher, or a local smtp-server).
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSecretsKey } from '@meridian/platform/crypto';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { callUnary, type RequestOf } from '@meridian/platform/grpc/index';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { expectStatus } from '@meridian/platform/testing/grpcStatus';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { NotificationServiceClient } from '@meridian/proto/meridian/notification/v1/notification';
import { CONSUMER_GROUP, EMAILS } from './app/collections.js';
import { handleIdentityEvent } from './app/handleIdentityEvent.js';
import { parseNotificationConfig } from './config.js';
import type { EmailRecord } from './domain/email.js';
import {
  APP_URL,
  createAdapters,
  identityEvent,
  sealedRequest,
  startNotificationHarness,
  user,
  type Adapters,
  type NotificationHarness as Booted,
} from './testing/harness.js';
import { startSmtpTestServer, type SmtpTestServer } from './testing/smtpTestServer.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The recipient's address in the outbox's events: sealed with their personal-data key. */
const SEALED = expect.stringMatching(/^pd1\./);

async function boot(env: Record<string, string> = {}, shared?: Adapters): Promise<Booted> {
  const b = await startNotificationHarness(env, shared);
  cleanups.push(() => b.close());
  return b;
}

/** A store, a bus and a secrets key that outlive the instances booted on them (a crash, a restart). */
function durable(): Adapters {
  const adapters = createAdapters();
  cleanups.push(() => adapters.close());
  return adapters;
}

const mailbox = (b: Booted, to: string) => b.mailbox(to);

describe('identity events become emails in the mailbox', () => {
  it('verification link, login code, reset link, password changed and role changed, newest first', async () => {
    const b = await boot();
    const u = user();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...u, role: 'subscriber' }),
      sealedRequest('EmailVerificationRequested', u, 'verify-tok-1', b.key, expiresAt),
      sealedRequest('LoginCodeRequested', u, '042917', b.key, expiresAt),
      sealedRequest('PasswordResetRequested', u, 'reset-tok-1', b.key, expiresAt),
      identityEvent('PasswordChanged', { ...u, via: 'reset', changedAt: new Date().toISOString() }),
      identityEvent('RoleChanged', { ...u, fromRole: 'subscriber', toRole: 'author', changedBy: 'admin-1' }),
    ]);

    // the lookup ignores case, as people type addresses
    const messages = await waitFor(
      async () => {
        const m = await mailbox(b, u.email.toLowerCase());
        return m.length === 5 ? m : null;
      },
      { message: 'five emails in the mailbox' },
    );

    // newest first
    const times = messages.map((m) => Date.parse(m.sentAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const bySubject = (re: RegExp) => messages.find((m) => re.test(m.subject))!;
    const verify = bySubject(/^Verify your email/);
    const code = bySubject(/login code/);
    const reset = bySubject(/^Reset your/);
    const changed = bySubject(/password was changed/);
    const role = bySubject(/role was changed/);
    expect(verify.subject).toBe('Verify your email address');
    expect(verify.to.toLowerCase()).toBe(u.email.toLowerCase());
    expect(verify.from).toContain('no-reply@meridian.local');
    expect(verify.links).toContain(`${APP_URL}/verify/verify-tok-1`);
    expect(verify.html).toContain(`href="${APP_URL}/verify/verify-tok-1"`);
    expect(verify.text).toContain(`${APP_URL}/verify/verify-tok-1`);
    expect(Date.parse(verify.sentAt)).not.toBeNaN();
    expect(verify.id).toBeTruthy();

    expect(code.text).toMatch(/\b042917\b/);
    expect(code.text).toContain('15 minutes');
    expect(reset.links).toContain(`${APP_URL}/resetPassword/reset-tok-1`);
    expect(changed.subject).toBe('Your Meridian password was changed');
    expect(role.text).toContain('New role: Author');

    // nobody else's mailbox shows them; EmailSent went out for each
    expect(await mailbox(b, 'someone.else@example.com')).toEqual([]);
    await waitFor(
      () => b.outEvents.filter((e) => e.type === 'EmailSent').length === 5,
      'five EmailSent events',
    );
    expect(b.outEvents.every((e) => e.type === 'EmailSent')).toBe(true);
    expect(JSON.stringify(b.outEvents)).not.toMatch(/verify-tok-1|042917|reset-tok-1/);
    // the outbox never held the secrets in clear text
    const stored = await b.store.find<EmailRecord>(EMAILS);
    expect(JSON.stringify(stored)).not.toMatch(/verify-tok-1|042917|reset-tok-1/);
  });

  it('the same event delivered twice sends one email', async () => {
    const b = await boot();
    const u = user();
    const event = sealedRequest('EmailVerificationRequested', u, 'tok-dup', b.key);
    await b.bus.publish(topicOf('identity'), [event]);
    await b.bus.publish(topicOf('identity'), [event]);
    await waitFor(
      () => b.bus.committed('notification', topicOf('identity')) === 2,
      'both deliveries handled',
    );
    await waitFor(() => b.outEvents.some((e) => e.type === 'EmailSent'), 'the email sent');
    // and once more after it was sent
    await b.bus.publish(topicOf('identity'), [event]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 3, 'third delivery handled');

    expect(await mailbox(b, u.email)).toHaveLength(1);
    expect(await b.store.count(EMAILS)).toBe(1);
    expect(b.outEvents.filter((e) => e.type === 'EmailSent')).toHaveLength(1);
  });

  it('an email whose secret cannot be opened (wrong SECRETS_KEY) fails with EmailFailed, never a broken link', async () => {
    const b = await boot();
    const u = user();
    await b.bus.publish(topicOf('identity'), [
      sealedRequest('PasswordResetRequested', u, 'tok', generateSecretsKey()),
    ]);
    const failed = await waitFor(() => b.outEvents.find((e) => e.type === 'EmailFailed'), 'EmailFailed');
    expect(failed.data).toMatchObject({ to: SEALED, template: 'resetPassword', attempts: 1 });
    expect(await b.personalData.open((failed.data as { to: string }).to)).toBe(u.email);
    expect(await mailbox(b, u.email)).toEqual([]);
  });
});

describe('kyc events become emails', () => {
  function kycEvent(type: string, data: Record<string, unknown>, id = randomUUID()): StoredEvent {
    return { ...identityEvent(type, data, id), streamId: `kyc-${String(data.userId)}` };
  }
  const subjects = async (b: Booted, to: string) => (await mailbox(b, to)).map((m) => m.subject);

  it('KycSubmitted goes to every current admin once, also when delivered twice', async () => {
    const b = await boot();
    const [admin1, admin2, demoted, applicant] = [user(), user(), user(), user()];
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...admin1, role: 'admin' }),
      identityEvent('UserRegistered', { ...admin2, role: 'subscriber' }),
      identityEvent('RoleChanged', {
        ...admin2,
        fromRole: 'subscriber',
        toRole: 'admin',
        changedBy: admin1.userId,
      }),
      identityEvent('UserRegistered', { ...demoted, role: 'admin' }),
      identityEvent('RoleChanged', {
        ...demoted,
        fromRole: 'admin',
        toRole: 'suspended',
        changedBy: admin1.userId,
      }),
      identityEvent('UserRegistered', { ...applicant, role: 'subscriber' }),
    ]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 6, 'directory up to date');
    const submitted = kycEvent('KycSubmitted', {
      userId: applicant.userId,
      name: 'Grace Hopper',
      email: applicant.email,
      submittedAt: new Date().toISOString(),
      frontDoc: `/api/users/kyc/document/${applicant.userId}/front`,
      backDoc: `/api/users/kyc/document/${applicant.userId}/back`,
      submissionId: randomUUID(),
    });
    await b.bus.publish(topicOf('kyc'), [submitted]);
    await b.bus.publish(topicOf('kyc'), [submitted]);
    await waitFor(() => b.bus.committed('notification', topicOf('kyc')) === 2, 'both deliveries handled');
    const kycSent = () =>
      b.outEvents.filter(
        (e) => e.type === 'EmailSent' && (e.data as { template: string }).template === 'kycSubmitted',
      );
    await waitFor(() => kycSent().length === 2, 'two kycSubmitted emails sent');

    for (const a of [admin1, admin2]) {
      const mails = (await mailbox(b, a.email)).filter((m) => /KYC/.test(m.subject));
      expect(mails.map((m) => m.subject)).toEqual(['New KYC documents to review']);
      expect(mails[0]!.text).toContain(`Grace Hopper (${applicant.email})`);
      expect(mails[0]!.links).toContain(`${APP_URL}/pending-kyc`);
    }
    expect((await subjects(b, demoted.email)).filter((t) => /KYC/.test(t))).toEqual([]);
    expect(await subjects(b, applicant.email)).toEqual([]);
    expect(await b.store.count(EMAILS, { template: 'kycSubmitted' })).toBe(2);
  });

  it('KycApproved and KycRejected go to the user once; a missing address comes from the directory', async () => {
    const b = await boot();
    const u = user();
    await b.bus.publish(topicOf('identity'), [identityEvent('UserRegistered', { ...u, role: 'subscriber' })]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 1, 'directory up to date');
    const approved = kycEvent('KycApproved', {
      userId: u.userId,
      name: u.name,
      email: u.email,
      approvedBy: 'a',
      approvedAt: '',
      submissionId: 's1',
    });
    const rejected = kycEvent('KycRejected', {
      userId: u.userId,
      name: '',
      email: '',
      reason: 'The photo is blurry',
      rejectedBy: 'a',
      rejectedAt: '',
      submissionId: 's0',
    });
    await b.bus.publish(topicOf('kyc'), [rejected, approved]);
    await b.bus.publish(topicOf('kyc'), [rejected, approved]);
    await waitFor(() => b.bus.committed('notification', topicOf('kyc')) === 4, 'four deliveries handled');
    await waitFor(() => b.outEvents.filter((e) => e.type === 'EmailSent').length === 2, 'two EmailSent');

    const mails = await mailbox(b, u.email);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      'Your KYC documents were not accepted',
      'Your identity is verified',
    ]);
    const rejection = mails.find((m) => m.subject.includes('not accepted'))!;
    expect(rejection.text).toContain('The photo is blurry');
    expect(rejection.text).toContain(u.name);
    expect(rejection.links).toContain(`${APP_URL}/upload-kyc`);
    expect(mails.find((m) => m.subject.includes('verified'))!.links).toContain(`${APP_URL}/dashboard`);
  });

  it('a deleted user leaves the directory (no address to write to)', async () => {
    const b = await boot();
    const u = user();
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...u, role: 'admin' }),
      identityEvent('UserDeleted', { userId: u.userId, deletedBy: 'x' }),
    ]);
    await waitFor(
      () => b.bus.committed('notification', topicOf('identity')) === 2,
      'identity events handled',
    );
    await b.bus.publish(topicOf('kyc'), [
      kycEvent('KycSubmitted', {
        userId: 'someone',
        name: 'N',
        email: 'n@example.com',
        submittedAt: '',
        frontDoc: '',
        backDoc: '',
        submissionId: 's',
      }),
      kycEvent('KycApproved', {
        userId: u.userId,
        name: '',
        email: '',
        approvedBy: 'a',
        approvedAt: '',
        submissionId: 's',
      }),
    ]);
    await waitFor(() => b.bus.committed('notification', topicOf('kyc')) === 2, 'kyc events handled');
    expect(await b.store.count(EMAILS)).toBe(0);
  });
});

describe('SMTP failures', () => {
  let smtp: SmtpTestServer;
  afterEach(async () => {
    await smtp?.close();
  });

  it('a server that refuses the first attempts gets the email once, after retries with backoff', async () => {
    smtp = await startSmtpTestServer({ rejectFirst: 2, rejectCode: 451 });
    const b = await boot({ SMTP_URL: smtp.url, EMAIL_MAX_ATTEMPTS: '5' });
    const u = user();
    const event = sealedRequest('LoginCodeRequested', u, '314159', b.key);
    await b.bus.publish(topicOf('identity'), [event]);

    const sent = await waitFor(
      () => b.outEvents.find((e) => e.type === 'EmailSent'),
      'EmailSent after retries',
    );
    expect(sent.data).toMatchObject({ to: SEALED, template: 'loginCode', causeEventId: event.id });
    expect(await b.personalData.open((sent.data as { to: string }).to)).toBe(u.email);
    expect(JSON.stringify(smtp.accepted[0].to).toLowerCase()).toContain(u.email.toLowerCase()); // opened just before sending
    expect(smtp.attempts).toBe(3);
    expect(smtp.accepted).toHaveLength(1);
    expect(smtp.accepted[0].text).toContain('314159');
    expect(smtp.accepted[0].subject).toContain('314159');
    const record = await b.store.get<EmailRecord>(EMAILS, event.id);
    expect(record).toMatchObject({ status: 'sent', attempts: 3 });
    expect(b.outEvents.some((e) => e.type === 'EmailFailed')).toBe(false);
    // no embedded mailbox when SMTP_URL is set
    expect(b.handle.smtpCatcherUrl).toBeNull();
  });

  it('gives up after the last attempt with EmailFailed', async () => {
    smtp = await startSmtpTestServer({ rejectFirst: Number.MAX_SAFE_INTEGER });
    const b = await boot({ SMTP_URL: smtp.url, EMAIL_MAX_ATTEMPTS: '3' });
    const u = user();
    const event = identityEvent('PasswordChanged', { ...u, via: 'change', changedAt: '' });
    await b.bus.publish(topicOf('identity'), [event]);

    const failed = await waitFor(() => b.outEvents.find((e) => e.type === 'EmailFailed'), 'EmailFailed');
    expect(failed.data).toMatchObject({
      to: SEALED,
      template: 'passwordChanged',
      causeEventId: event.id,
      attempts: 3,
    });
    expect(String((failed.data as { error: string }).error)).toContain('451');
    expect(smtp.attempts).toBe(3);
    expect(smtp.accepted).toHaveLength(0);
    expect(await b.store.get<EmailRecord>(EMAILS, event.id)).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('a permanent refusal (5xx) is not retried', async () => {
    smtp = await startSmtpTestServer({ rejectFirst: Number.MAX_SAFE_INTEGER, rejectCode: 550 });
    const b = await boot({ SMTP_URL: smtp.url, EMAIL_MAX_ATTEMPTS: '5' });
    const u = user();
    await b.bus.publish(topicOf('identity'), [
      identityEvent('RoleChanged', { ...u, fromRole: 'subscriber', toRole: 'admin', changedBy: 'a' }),
    ]);
    const failed = await waitFor(() => b.outEvents.find((e) => e.type === 'EmailFailed'), 'EmailFailed');
    expect(failed.data).toMatchObject({ attempts: 1 });
    expect(smtp.attempts).toBe(1);
  });

  it('after a crash, pending emails are sent on restart (once), and the mailbox survives the restart', async () => {
    const { store, bus, key, personalData } = durable();
    const u = user();
    const event = sealedRequest('EmailVerificationRequested', u, 'tok-crash', key);
    // the crashed process: it consumed the event and committed the pending email with the processed
    // marker, then died before sending and before committing the bus offset
    await bus.publish(topicOf('identity'), [event]);
    await store.transaction(async (tx) => {
      expect(await tx.markProcessed(CONSUMER_GROUP, event.id)).toBe(true);
      await handleIdentityEvent(event, tx, new Date(), personalData);
    });
    expect(await store.get<EmailRecord>(EMAILS, event.id)).toMatchObject({ status: 'pending', attempts: 0 });

    // restart: the bus redelivers the event (no second email), the sender sends the pending one
    const second = await boot({}, { store, bus, key, personalData });
    const [message] = await waitFor(async () => {
      const m = await mailbox(second, u.email);
      return m.length > 0 ? m : null;
    }, 'email delivered after restart');
    expect(message.links).toContain(`${APP_URL}/verify/tok-crash`);
    await waitFor(() => bus.committed(CONSUMER_GROUP, topicOf('identity')) === 1, 'redelivery handled');
    await waitFor(() => second.outEvents.some((e) => e.type === 'EmailSent'), 'EmailSent');
    await second.stop();

    const third = await boot({}, { store, bus, key, personalData });
    expect(await mailbox(third, u.email)).toHaveLength(1);
    expect(await store.get<EmailRecord>(EMAILS, event.id)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a retry waiting for its backoff survives a restart', async () => {
    const { store, bus, key, personalData } = durable();
    smtp = await startSmtpTestServer({ rejectFirst: 1 });
    const first = await boot(
      { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '300', EMAIL_RETRY_MAX_MS: '300' },
      { store, bus, key, personalData },
    );
    const u = user();
    const event = identityEvent('PasswordChanged', { ...u, via: 'change', changedAt: '' });
    await bus.publish(topicOf('identity'), [event]);
    await waitFor(
      async () => (await store.get<EmailRecord>(EMAILS, event.id))?.attempts === 1,
      'first attempt refused',
    );
    await first.stop();

    const second = await boot({ SMTP_URL: smtp.url }, { store, bus, key, personalData });
    await waitFor(() => second.outEvents.some((e) => e.type === 'EmailSent'), 'sent after restart');
    expect(smtp.attempts).toBe(2);
    expect(smtp.accepted).toHaveLength(1);
  });
});

describe('SendAutomatedEmail', () => {
  const caller = (userId: string) => ({
    userId,
    sessionId: 's1',
    impersonatorId: '',
    correlationId: randomUUID(),
  });
  const request = (u: ReturnType<typeof user>, overrides: Record<string, string> = {}) => ({
    caller: caller(u.userId),
    callerEmail: u.email,
    callerName: u.name,
    subject: 'Investment request received',
    sendTo: u.email,
    replyTo: '',
    template: 'investmentNotice',
    url: '/invest-status',
    ...overrides,
  });
  const send = (b: Booted, req: RequestOf<NotificationServiceClient, 'sendAutomatedEmail'>) =>
    callUnary(b.client, 'sendAutomatedEmail', req);

  it('sends an allowlisted template to the caller’s own address (any case)', async () => {
    const b = await boot();
    const u = user();
    const answer = await send(b, request(u, { sendTo: u.email.toUpperCase() }));
    expect(answer.message).toBe('Email sent successfully');
    const [message] = await waitFor(async () => {
      const m = await mailbox(b, u.email);
      return m.length > 0 ? m : null;
    }, 'automated email in the mailbox');
    expect(message.subject).toBe('Investment request received');
    expect(message.links).toContain(`${APP_URL}/invest-status`);
  });

  it('refuses another address with PERMISSION_DENIED', async () => {
    const b = await boot();
    const u = user();
    await expectStatus(
      send(b, request(u, { sendTo: 'victim@example.com' })),
      grpc.status.PERMISSION_DENIED,
      'You can only send emails to your own address',
    );
    expect(await b.store.count(EMAILS)).toBe(0);
  });

  it('refuses templates off the allowlist, links off the site and callers without a session', async () => {
    const b = await boot();
    const u = user();
    await expectStatus(send(b, request(u, { template: 'resetPassword' })), grpc.status.INVALID_ARGUMENT);
    await expectStatus(
      send(b, request(u, { url: 'https://evil.example/phish' })),
      grpc.status.INVALID_ARGUMENT,
      'The link must point to this site',
    );
    await expectStatus(send(b, { ...request(u), caller: undefined }), grpc.status.UNAUTHENTICATED);
    expect(await b.store.count(EMAILS)).toBe(0);
  });

  it('is rate-limited per user', async () => {
    const b = await boot({ AUTOMATED_EMAIL_LIMIT_PER_HOUR: '2' });
    const u = user();
    const other = user();
    await send(b, request(u));
    await send(b, request(u));
    await expectStatus(
      send(b, request(u)),
      grpc.status.RESOURCE_EXHAUSTED,
      'Too many emails, please try again later',
    );
    // another user has their own allowance
    await expect(send(b, request(other))).resolves.toMatchObject({ message: 'Email sent successfully' });
  });
});

describe('production mode', () => {
  it('refuses ListMailbox with FAILED_PRECONDITION and sends through SMTP_URL', async () => {
    const smtp = await startSmtpTestServer();
    cleanups.push(() => smtp.close());
    const b = await boot({ NODE_ENV: 'production', SMTP_URL: smtp.url });
    expect(b.handle.smtpCatcherUrl).toBeNull();
    await expectStatus(mailbox(b, 'ada@example.com'), grpc.status.FAILED_PRECONDITION);
    const u = user();
    await b.bus.publish(topicOf('identity'), [
      sealedRequest('EmailVerificationRequested', u, 'prod-tok', b.key),
    ]);
    await waitFor(() => smtp.accepted.length === 1, 'delivered to SMTP_URL');
    expect(smtp.accepted[0].text).toContain(`${APP_URL}/verify/prod-tok`);
  });

  it('the config refuses production without SMTP_URL and SECRETS_KEY, naming them', () => {
    expect(() => parseNotificationConfig({ NODE_ENV: 'production' })).toThrow(
      /SECRETS_KEY: is required in production.*SMTP_URL: is required in production/,
    );
    expect(() => parseNotificationConfig({ SMTP_URL: 'http://x' })).toThrow(/SMTP_URL/);
    expect(parseNotificationConfig({}).NOTIFICATION_GRPC_ADDR).toBe('0.0.0.0:50052');
  });
});
