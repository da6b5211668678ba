import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { listMailbox, recordReceivedMail } from './mailbox.js';
import type { ReceivedMail } from './ports.js';

const deps = {
  personalData: new PersonalData(new MemoryPersonalDataKeys()),
  secretsKey: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
};
const mail = (over: Partial<ReceivedMail> = {}): ReceivedMail => ({
  recipients: ['Ann@Example.com'],
  from: 'Meridian <no-reply@meridian.local>',
  subject: 'Verify your email',
  text: 'Open http://localhost:8080/verify/abc',
  html: '',
  messageId: '<e-1@meridian.email>',
  emailId: 'e-1',
  ...over,
});

describe('the dev mailbox', () => {
  let store: ServiceStore;
  afterEach(() => store?.close());

  it('keeps a message resent after a crash (same email id) once per recipient', async () => {
    store = createSqliteServiceStore(':memory:');
    const now = new Date('2026-11-22T10:00:00Z');
    await recordReceivedMail(store, mail(), now, deps);
    await recordReceivedMail(store, mail(), new Date(now.getTime() + 1_000), deps); // the resend
    await recordReceivedMail(
      store,
      mail({ emailId: 'e-2', messageId: '<e-2@meridian.email>', subject: 'Another' }),
      now,
      deps,
    );
    const got = await listMailbox(store, 'ann@example.com', { production: false, ...deps });
    expect(got.map((m) => m.subject).sort()).toEqual(['Another', 'Verify your email']);
  });

  it('keeps every message that carries no email id (mail from elsewhere)', async () => {
    store = createSqliteServiceStore(':memory:');
    const now = new Date('2026-11-22T10:00:00Z');
    await recordReceivedMail(store, mail({ emailId: null, messageId: null }), now, deps);
    await recordReceivedMail(store, mail({ emailId: null, messageId: null }), now, deps);
    expect(await listMailbox(store, 'ann@example.com', { production: false, ...deps })).toHaveLength(2);
  });
});
