/**
 * The email sender on replicas: two notification instances on ONE SQLite file (two store instances)
 * and one real SMTP server. The lease lets one of them send; each email goes out once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LEASES, type LeaseRecord } from '@meridian/platform/app/lease';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { sqliteReplicaStores } from '@meridian/platform/testing/replicaStores';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import { createSmtpMailer } from '../adapters/mailer.smtp.js';
import type { EmailRecord } from '../domain/email.js';
import { identityEvent, user } from '../testing/harness.js';
import { startSmtpTestServer, type SmtpTestServer } from '../testing/smtpTestServer.js';
import { EMAILS } from './collections.js';
import { EMAIL_SENDER_LEASE, startEmailSender, type EmailSender } from './emailSender.js';
import { handleIdentityEvent } from './handleIdentityEvent.js';

const dir = tempDir('meridian-email-sender-');
afterAll(() => dir.remove());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One key store for both replicas (as identity's vault is one). */
const vault = new MemoryPersonalDataKeys();
const personalData = new PersonalData(vault);
const passwordChanged = () => identityEvent('PasswordChanged', { ...user(), via: 'change', changedAt: '' });

async function queue(store: ServiceStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = passwordChanged();
    await store.transaction((tx) => handleIdentityEvent(event, tx, new Date(), personalData));
    ids.push(event.id);
  }
  return ids;
}

/**
 * An SMTP test server and `count` stores on one fresh SQLite file (replicas; `store` the first), all
 * closed after the test.
 */
async function smtpAndStores(
  count = 1,
): Promise<{ smtp: SmtpTestServer; stores: ServiceStore[]; store: ServiceStore }> {
  const smtp = await startSmtpTestServer();
  cleanups.push(() => smtp.close());
  const stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`), count);
  cleanups.push(() => Promise.all(stores.map((s) => s.close())));
  return { smtp, stores, store: stores[0] };
}

/** An email sender on `store` sending to `smtp` (stopped, with its mailer, after the test). */
function senderOn(
  store: ServiceStore,
  smtp: SmtpTestServer,
  options: Pick<Parameters<typeof startEmailSender>[0], 'lease' | 'batchSize'> & {
    personalData?: PersonalData;
  },
): EmailSender {
  const mailer = createSmtpMailer({ url: smtp.url, production: false, plainLoopback: true });
  const sender = startEmailSender({
    store,
    mailer,
    clock: () => new Date(),
    policy: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100 },
    from: 'Meridian <no-reply@meridian.test>',
    appUrl: 'http://app.meridian.test',
    openSecret: (s) => s,
    pollIntervalMs: 20,
    ...options,
    personalData: options.personalData ?? personalData,
  });
  cleanups.push(() => mailer.close());
  cleanups.push(() => sender.stop());
  return sender;
}

describe('email sender on two replicas sharing one store', () => {
  let smtp: SmtpTestServer;

  const replica = (store: ServiceStore, owner: string): EmailSender =>
    senderOn(store, smtp, { lease: { ttlMs: 2_000, pollMs: 20, owner } });

  const sentIds = () => smtp.accepted.map((m) => String(m.headers.get('x-meridian-email-id')));

  it('sends each pending email once, whichever replica queued it, and the standby takes over a stopped holder', async () => {
    const started = await smtpAndStores(2);
    smtp = started.smtp;
    const { stores } = started;
    const senders = stores.map((s, i) => replica(s, `replica-${i}`));

    const first = [...(await queue(stores[0], 10)), ...(await queue(stores[1], 10))];
    await waitFor(async () => (await stores[0].count(EMAILS, { status: 'sent' })) === 20, 'all 20 sent');
    expect(sentIds().sort()).toEqual([...first].sort());

    // the holder stops (a rolling update): the other one sends what comes next
    const lease = await stores[0].get<LeaseRecord>(LEASES, EMAIL_SENDER_LEASE);
    const holder = lease?.owner === 'replica-1' ? 1 : 0;
    expect(lease?.owner).toBe(`replica-${holder}`);
    await senders[holder].stop();
    const second = await queue(stores[holder], 5);
    await waitFor(
      async () => (await stores[1 - holder].count(EMAILS, { status: 'sent' })) === 25,
      'the next 5 sent',
    );
    expect(await stores[0].get<LeaseRecord>(LEASES, EMAIL_SENDER_LEASE)).toMatchObject({
      owner: `replica-${1 - holder}`,
    });
    expect(sentIds().sort()).toEqual([...first, ...second].sort());
    expect(smtp.attempts).toBe(25);
    for (const id of second)
      expect(await stores[1].get<EmailRecord>(EMAILS, id)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});

describe('email sender passes', () => {
  it('read one batch of the pending emails, the due ones first: a backlog is sent once, a retry waiting for later holds nothing back', async () => {
    const { smtp, store } = await smtpAndStores();
    // queued first, but its next attempt is an hour away (a retry waiting for its backoff)
    const [later] = await queue(store, 1);
    await store.transaction(async (tx) => {
      const email = (await tx.get<EmailRecord>(EMAILS, later!))!;
      await tx.put(EMAILS, later!, {
        ...email,
        nextAttemptAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
    });
    const backlog = await queue(store, 12);
    // what each pass reads from the outbox
    const read: number[] = [];
    const reads = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'find')
          return async (...args: Parameters<ServiceStore['find']>) => {
            const found = await target.find(...args);
            if (args[0] === EMAILS) read.push(found.length);
            return found;
          };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    senderOn(reads, smtp, { lease: false, batchSize: 5 });

    await waitFor(async () => (await store.count(EMAILS, { status: 'sent' })) === 12, 'the backlog sent');
    expect(smtp.accepted.map((m) => String(m.headers.get('x-meridian-email-id'))).sort()).toEqual(
      [...backlog].sort(),
    );
    expect(smtp.attempts).toBe(12);
    expect(await store.get<EmailRecord>(EMAILS, later!)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(read.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...read)).toBeLessThanOrEqual(5);
  });
});

describe("the recipient's key out of reach", () => {
  it('identity unreachable is not a deletion: the email waits for its key, then goes out once', async () => {
    const { smtp, store } = await smtpAndStores();
    const [id] = await queue(store, 1);
    // the sender's own key cache, over the vault, which answers UNAVAILABLE to its first two asks (identity away)
    let asked = 0;
    const remote = {
      find: async (userId: string) => {
        if (++asked <= 2) throw unavailable('identity is unreachable');
        return vault.find(userId);
      },
      findOrCreate: (userId: string) => vault.findOrCreate(userId),
      destroy: (userId: string) => vault.destroy(userId),
    };
    senderOn(store, smtp, { lease: false, personalData: new PersonalData(remote) });

    // two failed attempts (retried after their backoff, never dropped as a deletion), then sent once
    await waitFor(async () => (await store.get<EmailRecord>(EMAILS, id!))?.status !== 'pending', 'decided');
    expect(await store.get<EmailRecord>(EMAILS, id!)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(asked).toBe(3);
    expect(smtp.accepted).toHaveLength(1);
  });
});
