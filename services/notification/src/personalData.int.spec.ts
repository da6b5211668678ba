/**
 * Crypto-shredding in notification: the email outbox keeps the recipient's address,
 * the names and the texts sealed with their owners' keys; the sender opens them just before sending; the
 * dev mailbox keeps what it caught sealed with the recipient's key and finds it by a blind index of the
 * address. Once a user's key is destroyed nothing of theirs can be read anywhere in the service's store,
 * their mail is no longer listed, a new email to them is dropped unsent, and an admin's email naming them
 * says '[deleted]'.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { identityAndServiceKeys } from '@meridian/platform/testing/personalDataCache';
import { callUnary } from '@meridian/platform/grpc/index';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf } from '@meridian/platform/ports/eventBus';
import * as grpc from '@grpc/grpc-js';
import { isSealed, type PersonalData, SHREDDED, USER_DELETED_MESSAGE } from '@meridian/platform/personalData';
import { expectStatus } from '@meridian/platform/testing/grpcStatus';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { DIRECTORY, EMAILS, MAILBOX } from './app/collections.js';
import { RECIPIENT_DELETED, type EmailRecord } from './domain/email.js';
import {
  createAdapters,
  identityEvent,
  startNotificationHarness,
  user,
  type NotificationHarness,
} from './testing/harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function boot(personalData?: PersonalData): Promise<NotificationHarness> {
  const adapters = personalData ? { ...createAdapters(), personalData } : undefined;
  if (adapters) cleanups.push(() => adapters.close()); // after the service stopped (cleanups run in reverse)
  const b = await startNotificationHarness({}, adapters);
  cleanups.push(() => b.close());
  return b;
}

/** A user as identity's events carry them: name and email sealed with the user's own key. */
async function sealedUser(b: NotificationHarness, name: string) {
  const u = { ...user(), name };
  const sealed = {
    userId: u.userId,
    name: await b.personalData.seal(u.userId, u.name),
    email: await b.personalData.seal(u.userId, u.email),
  };
  return { plain: u, sealed };
}

/** Everything the service keeps in its store, and what it published, as text. */
async function everything(b: NotificationHarness): Promise<string> {
  return JSON.stringify([
    await b.store.readAll(0, 100_000),
    await b.store.find(EMAILS),
    await b.store.find(MAILBOX),
    await b.store.find(DIRECTORY),
    b.outEvents,
  ]).toLowerCase();
}

const kycEvent = (type: string, data: Record<string, unknown>): StoredEvent => ({
  ...identityEvent(type, data),
  streamId: `kyc-${String(data.userId)}`,
});

describe('notification personal data', () => {
  it('is sealed in the outbox and the mailbox, opened to send, and unreadable once the key is shredded', async () => {
    const b = await boot();
    const { plain: u, sealed } = await sealedUser(b, 'Nora Shredded-Recipient');
    const changed = identityEvent('PasswordChanged', { ...sealed, via: 'change', changedAt: '' });
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...sealed, role: 'subscriber' }),
      changed,
    ]);
    // the automated email: the gateway sends the caller's address and name in clear; sealed on arrival
    await callUnary(b.client, 'sendAutomatedEmail', {
      caller: { userId: u.userId, sessionId: 's', impersonatorId: '', correlationId: randomUUID() },
      callerEmail: u.email,
      callerName: u.name,
      subject: `Notice for ${u.name}`,
      sendTo: u.email,
      replyTo: '',
      template: 'investmentNotice',
      url: '/invest-status',
    });

    // sent, opened: the mailbox finds both by the address and shows them in clear
    const messages = await waitFor(async () => {
      const m = await callUnary(b.client, 'listMailbox', { to: u.email });
      return m.messages.length === 2 ? m.messages : null;
    }, 'both emails in the mailbox');
    expect(messages.every((m) => m.to.toLowerCase() === u.email.toLowerCase())).toBe(true);
    expect(messages.some((m) => m.text.includes(u.name))).toBe(true);
    expect(messages.some((m) => m.subject === `Notice for ${u.name}`)).toBe(true);
    await waitFor(() => b.outEvents.filter((e) => e.type === 'EmailSent').length === 2, 'EmailSent x2');

    // stored sealed: outbox, mailbox, directory, every stored and published event
    const record = (await b.store.get<EmailRecord>(EMAILS, changed.id))!;
    expect(record.status).toBe('sent');
    expect(isSealed(record.to) && isSealed(record.data.name)).toBe(true);
    const raw = await everything(b);
    expect(raw).not.toContain(u.email.toLowerCase());
    expect(raw).not.toContain(u.name.toLowerCase());

    // the key is destroyed: the mailbox lists nothing of theirs; ids, templates and statuses stay
    await b.personalData.shred(u.userId);
    expect((await callUnary(b.client, 'listMailbox', { to: u.email })).messages).toEqual([]);
    expect(await b.store.get<EmailRecord>(EMAILS, changed.id)).toMatchObject({
      id: changed.id,
      template: 'passwordChanged',
      status: 'sent',
    });

    // an email to the deleted user (an event still naming them) is dropped, unsent, with the reason
    const late = identityEvent('PasswordChanged', { ...sealed, via: 'reset', changedAt: '' });
    await b.bus.publish(topicOf('identity'), [late]);
    const dropped = await waitFor(async () => {
      const r = await b.store.get<EmailRecord>(EMAILS, late.id);
      return r?.status === 'dropped' ? r : null;
    }, 'the email dropped');
    expect(dropped).toMatchObject({ lastError: RECIPIENT_DELETED, attempts: 0 });
    const failed = await waitFor(
      () =>
        b.outEvents.find(
          (e) => e.type === 'EmailFailed' && (e.data as { causeEventId: string }).causeEventId === late.id,
        ),
      'EmailFailed for the dropped email',
    );
    expect(failed.data).toMatchObject({ template: 'passwordChanged', error: RECIPIENT_DELETED });
    expect(isSealed((failed.data as { to: string }).to)).toBe(true);
    expect(await b.store.count(MAILBOX)).toBe(2);
  });

  it("an admin's email naming a deleted user says [deleted]; the admin's own address still works", async () => {
    const b = await boot();
    const admin = await sealedUser(b, 'Ada Admin');
    const applicant = await sealedUser(b, 'Gus Shredded-Applicant');
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...admin.sealed, role: 'admin' }),
      identityEvent('UserRegistered', { ...applicant.sealed, role: 'subscriber' }),
    ]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 2, 'directory up to date');
    await b.personalData.shred(applicant.plain.userId);
    await b.bus.publish(topicOf('kyc'), [
      kycEvent('KycSubmitted', {
        userId: applicant.plain.userId,
        name: applicant.sealed.name,
        email: applicant.sealed.email,
        submittedAt: new Date().toISOString(),
        frontDoc: '',
        backDoc: '',
        submissionId: randomUUID(),
      }),
    ]);
    const [message] = await waitFor(async () => {
      const m = (await callUnary(b.client, 'listMailbox', { to: admin.plain.email })).messages;
      return m.length > 0 ? m : null;
    }, "the admin's email");
    expect(message!.text).toContain(SHREDDED);
    expect(message!.text).not.toContain(applicant.plain.name);
    expect(message!.text).toContain(admin.plain.name);
  });

  it('never makes a deleted user a new key: an email to them in clear is dropped, their own request refused', async () => {
    const b = await boot();
    const { plain: u, sealed } = await sealedUser(b, 'Tomb Stoned-Recipient');
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', { ...sealed, role: 'subscriber' }),
    ]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 1, 'directory up to date');
    await b.personalData.shred(u.userId);
    // an event naming them in clear (written before sealing existed): nothing queued, no key made for them
    const late = identityEvent('PasswordChanged', {
      userId: u.userId,
      name: u.name,
      email: u.email,
      via: 'reset',
    });
    await b.bus.publish(topicOf('identity'), [late]);
    await waitFor(
      () => b.bus.committed('notification', topicOf('identity')) === 2,
      'the late event consumed',
    );
    expect(await b.store.get(EMAILS, late.id)).toBeNull();
    expect(await b.personalData.key(u.userId)).toBeNull();
    // the deleted user's own request (a session still open): refused with the reason, nothing counted or queued
    await expectStatus(
      callUnary(b.client, 'sendAutomatedEmail', {
        caller: { userId: u.userId, sessionId: 's', impersonatorId: '', correlationId: randomUUID() },
        callerEmail: u.email,
        callerName: u.name,
        subject: 'Hello',
        sendTo: u.email,
        replyTo: '',
        template: 'investmentNotice',
        url: '/invest-status',
      }),
      grpc.status.FAILED_PRECONDITION,
      USER_DELETED_MESSAGE,
    );
    expect(await b.store.count(EMAILS)).toBe(0);
    expect(await b.personalData.key(u.userId)).toBeNull();
    expect((await everything(b)).includes(u.email.toLowerCase())).toBe(false);
  });

  it("identity's UserDeleted drops the key this service had cached", async () => {
    const { identity, service: notification } = identityAndServiceKeys();
    const b = await boot(notification);
    const u = user();
    const name = await identity.seal(u.userId, u.name);
    expect(await notification.open(name)).toBe(u.name); // cached from now on
    await identity.shred(u.userId);
    expect(await notification.open(name)).toBe(u.name);
    await b.bus.publish(topicOf('identity'), [
      identityEvent('UserDeleted', { userId: u.userId, deletedBy: 'a' }),
    ]);
    await waitFor(() => b.bus.committed('notification', topicOf('identity')) === 1, 'UserDeleted consumed');
    expect(await notification.open(name)).toBe(SHREDDED);
  });
});
