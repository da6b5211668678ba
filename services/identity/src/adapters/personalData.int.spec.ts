/**
 * Crypto-shredding in identity: personal values sealed with the user's own key in events and read models, the
 * email found by its blind index, the key destroyed with the user (then their values read '[deleted]', also in
 * the audit trail), the keys handed to services only (GetPersonalDataKeys with the service token; the remote
 * adapter of the other services), and the SQLite key vault leaving no copy of a destroyed key in its file.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { callUnary, createGrpcClient } from '@meridian/platform/grpc/index';
import {
  DEV_INTERNAL_SERVICE_TOKEN,
  isSealed,
  PersonalData,
  SERVICE_TOKEN_METADATA,
  SHREDDED,
  sealedOwner,
  UserKeyDestroyedError,
} from '@meridian/platform/personalData';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { RemotePersonalDataKeys } from '@meridian/platform/personalData.remote';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { AuditServiceClient } from '@meridian/proto/meridian/identity/v1/audit';
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import { AUDIT_ENTRIES, SECURITY_EVENTS, type AuditEntryDoc } from '../projections/audit.js';
import { EMAIL_INDEX, USERS, type UserView } from '../projections/userView.js';
import { identityPerTest } from '../testing/harness.js';
import { createSqlitePersonalDataKeys } from './personalDataKeys.sqlite.js';
import { createStorePersonalDataKeys, DESTROYED_PERSONAL_DATA_KEYS } from './personalDataKeys.store.js';

const h = identityPerTest();

/** The audit entries about `userId` of `action` (waits until there is one). */
async function auditOf(caller: Caller, userId: string, action: string) {
  const client = createGrpcClient(AuditServiceClient, 'identity', {
    channelOverride: h.client.getChannel(),
  });
  // over the harness's channel (closing this client would shut it): dropped with it
  return await waitFor(async () => {
    const res = await callUnary(client, 'listAuditEntries', {
      caller,
      adminId: '',
      userId,
      action,
      from: '',
      to: '',
      limit: 50,
      cursor: '',
    });
    return res.entries.length > 0 ? res.entries : null;
  }, `an audit entry ${action}`);
}

/** The service token as metadata (what another service sends). */
function withToken(token: string): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set(SERVICE_TOKEN_METADATA, token);
  return m;
}

describe('personal data in identity', () => {
  it('is sealed with the user key in events and views, found by a blind index, and answered opened', async () => {
    const user = await h.register({ name: 'Petra Private', email: 'Petra.Private+news@Example.com' });
    const id = user.user!.id;
    expect(user.user).toMatchObject({ name: 'Petra Private', email: 'petra.private+news@example.com' });

    const registered = (await h.events('UserRegistered')).find(
      (e) => (e.data as { userId: string }).userId === id,
    )!;
    const data = registered.data as Record<string, string>;
    for (const field of ['name', 'email', 'phone', 'country']) {
      expect(isSealed(data[field]), field).toBe(true);
      expect(sealedOwner(data[field]!)).toBe(id);
    }
    const view = (await h.store.get<UserView>(USERS, id))!;
    expect(JSON.stringify(view)).not.toMatch(/petra/i);
    // the email index is keyed by an HMAC, never the address
    const index = await h.store.find<{ userId: string; email: string }>(EMAIL_INDEX, {
      where: { userId: id },
    });
    expect(index).toHaveLength(1);
    expect(index[0]!.email).toMatch(/^[0-9a-f]{64}$/);
    // login, uniqueness (case, plus-tags) and the forgot-password lookup go through it
    await h.loginTrusted({ ...user, email: 'PETRA.private@example.com' });
    await expect(h.register({ email: 'petra.private@EXAMPLE.com' })).rejects.toMatchObject({
      code: grpc.status.ALREADY_EXISTS,
    });

    // the admin's search finds a prefix of a word of the name or of the email (blind tokens, app/userSearch.ts)
    const caller = await h.adminCaller();
    const byName = await h.call('listUsers', { caller, limit: 10, query: 'petra pr' });
    expect(byName.users.map((u) => u.id)).toEqual([id]);
    expect(byName.users[0]).toMatchObject({
      name: 'Petra Private',
      phone: '+254700000000',
      country: 'Kenya',
    });
    const byEmail = await h.call('listUsers', { caller, limit: 10, query: 'PETRA.PRIVATE+' });
    expect(byEmail.users.map((u) => u.id)).toEqual([id]);
    const byWord = await h.call('listUsers', { caller, limit: 10, query: 'private' });
    expect(byWord.users.map((u) => u.id)).toEqual([id]);
    expect((await h.call('listUsers', { caller, limit: 10, query: 'rivate' })).users).toEqual([]);
  });

  it('deleting the user destroys the key: every copy reads [deleted], the audit trail keeps the row', async () => {
    const user = await h.register({ name: 'Gone Soon', email: 'gone.soon@example.com' });
    const id = user.user!.id;
    const caller = await h.adminCaller();
    await h.call('updateUser', { caller: await h.callerOf(user.sessionToken), bio: 'Secret bio' });
    const sealedName = ((await h.events('UserRegistered')).at(-1)!.data as { name: string }).name;
    expect(await h.personalData.open(sealedName)).toBe('Gone Soon');
    expect(await h.personalData.key(id)).toHaveLength(32);

    await h.call('deleteUser', { caller, userId: id });
    expect(await h.personalData.key(id)).toBeNull();
    expect(await h.personalData.open(sealedName)).toBe(SHREDDED);
    // the key never comes back: a writer sealing for the deleted user is refused, no new key is made
    await expect(h.personalData.seal(id, 'Gone Soon')).rejects.toBeInstanceOf(UserKeyDestroyedError);
    expect(await h.personalData.key(id)).toBeNull();
    for (const e of await h.events())
      if ((e.data as { userId?: string }).userId === id)
        for (const v of Object.values(e.data as Record<string, unknown>))
          if (typeof v === 'string' && isSealed(v)) expect(await h.personalData.openOrNull(v)).toBeNull();
    expect(await h.store.find(EMAIL_INDEX, { where: { userId: id } })).toEqual([]);

    // gone from the users list; the audit trail keeps the deletion, the person's email read as deleted
    const all = await h.call('listUsers', { caller, limit: 0, query: '', cursor: '' });
    expect(all.users.map((u) => u.id)).not.toContain(id);
    const entries = await auditOf(caller, id, 'UserDeleted');
    expect(entries[0]).toMatchObject({ action: 'UserDeleted', userId: id, userEmail: SHREDDED });
    expect(entries[0]!.adminEmail).toBe(h.admin.email);
  });

  it('hands keys to services holding the service token only; the remote adapter of the services uses them', async () => {
    const user = await h.register();
    const id = user.user!.id;
    const client = h.client;
    const ask = (metadata?: grpc.Metadata) =>
      callUnary(
        client,
        'getPersonalDataKeys',
        { userIds: [id, 'nobody'], createVisitorIds: [], destroyVisitorIds: [] },
        metadata ? { metadata } : {},
      );
    // the gateway's user-facing calls carry no token: refused
    await expect(ask()).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    await expect(ask(withToken('not-the-token-0123456789abcdef'))).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    const res = await ask(withToken(DEV_INTERNAL_SERVICE_TOKEN));
    expect(res.keys.map((k) => k.userId)).toEqual([id]);
    expect(Buffer.from(res.keys[0]!.key).equals((await h.personalData.key(id))!)).toBe(true);

    // another service: seals with identity's key for the user, identity opens it; unknown users have none
    const address = (client.getChannel() as unknown as { getTarget(): string })
      .getTarget()
      .replace(/^dns:/, '');
    const remote = new RemotePersonalDataKeys({ target: address, token: DEV_INTERNAL_SERVICE_TOKEN });
    try {
      const elsewhere = new PersonalData(remote);
      const sealed = await elsewhere.seal(id, 'bc1qwalletwalletwalletwalletwalletwallet');
      expect(await h.personalData.open(sealed)).toBe('bc1qwalletwalletwalletwalletwalletwallet');
      const [a, b] = await Promise.all([remote.find(id), remote.find('unknown-user')]);
      expect(a?.equals((await h.personalData.key(id))!)).toBe(true);
      expect(b).toBeNull();
      await expect(elsewhere.seal('unknown-user', 'x')).rejects.toBeInstanceOf(UserKeyDestroyedError);
      // after the deletion the key is gone for the services too
      await h.call('deleteUser', { caller: await h.adminCaller(), userId: id });
      elsewhere.forget(id);
      expect(await elsewhere.open(sealed)).toBe(SHREDDED);
      await expect(elsewhere.seal(id, 'bc1q')).rejects.toBeInstanceOf(UserKeyDestroyedError);

      // a support visitor (no account): identity makes their key on request; destroyed on request, for good
      const visitorId = `visitor-${randomUUID()}`;
      const fromVisitor = await elsewhere.seal(visitorId, 'Vera Visitor');
      expect(await h.personalData.open(fromVisitor)).toBe('Vera Visitor');
      await expect(elsewhere.seal('not-a-visitor-id', 'x')).rejects.toBeInstanceOf(UserKeyDestroyedError);
      await elsewhere.shred(visitorId);
      h.personalData.forget(visitorId);
      expect(await h.personalData.open(fromVisitor)).toBe(SHREDDED);
      await expect(elsewhere.seal(visitorId, 'again')).rejects.toBeInstanceOf(UserKeyDestroyedError);
    } finally {
      remote.close();
    }
  });

  it("keeps a user's sign-in and request addresses sealed with their key; deleted, they read [deleted]", async () => {
    const user = await h.register({ name: 'Ivo Address', email: 'ivo.address@example.com' });
    const id = user.user!.id;
    await h.call('sendLoginCode', { email: 'ivo.address@example.com' });
    const code = await h.latestSecret('LoginCodeRequested', 'ivo.address@example.com');
    const signedIn = await h.call('loginWithCode', {
      email: 'ivo.address@example.com',
      loginCode: code,
      deviceToken: '',
      clientIp: '192.0.2.77',
    });
    const caller = { ...(await h.callerOf(signedIn.sessionToken)), address: '198.51.100.23' };
    await h.call('changePassword', { caller, oldPassword: user.password, password: 'N3w-Passw0rd!x' });

    // stored sealed with the user's key: the events' actor, the security events, the audit read models
    const signIn = (await h.events('UserSignedIn')).find(
      (e) => (e.data as { userId: string }).userId === id,
    )!;
    expect(isSealed(signIn.actor?.address)).toBe(true);
    expect(sealedOwner(signIn.actor!.address!)).toBe(id);
    const docs = await waitFor(async () => {
      const d = await h.store.find<{ address: string; kind: string }>(SECURITY_EVENTS, {
        where: { userId: id },
      });
      return d.length >= 2 ? d : null;
    }, 'the security events');
    for (const d of docs) expect(isSealed(d.address) && sealedOwner(d.address) === id).toBe(true);
    const raw = JSON.stringify([await h.store.readAll(0, 100_000), docs, await h.store.find(AUDIT_ENTRIES)]);
    expect(raw).not.toContain('192.0.2.77');
    expect(raw).not.toContain('198.51.100.23');

    // the user's own security events answer them opened
    const audit = createGrpcClient(AuditServiceClient, 'identity', {
      channelOverride: h.client.getChannel(),
    });
    const own = await callUnary(audit, 'listSecurityEvents', { caller, limit: 50 });
    expect(own.events.map((e) => e.address).sort()).toEqual(['192.0.2.77', '198.51.100.23']);

    // deleted: every stored copy is unreadable
    await h.call('deleteUser', { caller: await h.adminCaller(), userId: id });
    for (const d of docs) expect(await h.personalData.open(d.address)).toBe(SHREDDED);
    expect(await h.personalData.open(signIn.actor!.address!)).toBe(SHREDDED);
  });

  it('keeps an address the gateway sent already sealed as it is (never sealed twice) and opens it', async () => {
    const user = await h.register({ name: 'Gia Gateway', email: 'gia.gateway@example.com' });
    const id = user.user!.id;
    const signedIn = await h.signInWithCode('gia.gateway@example.com');
    // what the gateway's Caller carries (gateway/src/http/auth.ts): sealed with the user's key
    const sealed = await h.personalData.seal(id, '203.0.113.250');
    const caller = { ...(await h.callerOf(signedIn.sessionToken)), address: sealed };
    await h.call('changePassword', { caller, oldPassword: user.password, password: 'N3w-Passw0rd!y' });

    const changed = (await h.events('PasswordChanged')).find(
      (e) => (e.data as { userId: string }).userId === id,
    )!;
    expect(changed.actor?.address).toBe(sealed);
    const audit = createGrpcClient(AuditServiceClient, 'identity', {
      channelOverride: h.client.getChannel(),
    });
    const own = await waitFor(async () => {
      const res = await callUnary(audit, 'listSecurityEvents', { caller, limit: 50 });
      return res.events.some((e) => e.address === '203.0.113.250') ? res.events : null;
    }, 'the password change among the security events, its address opened');
    expect(own.every((e) => !isSealed(e.address))).toBe(true);
  });

  it('the audit trail reads a deleted user as [deleted] and opens sealed details', async () => {
    const user = await h.register({ name: 'Audited Person', email: 'audited.person@example.com' });
    const id = user.user!.id;
    const caller = await h.adminCaller();
    await h.call('upgradeUser', { caller, userId: id, role: 'author' });
    // stored sealed (RoleChanged carries the person's email and name), answered opened
    const [changed] = await auditOf(caller, id, 'RoleChanged');
    const stored = (await h.store.get<AuditEntryDoc>(AUDIT_ENTRIES, changed!.id))!;
    expect(stored.details).not.toContain('audited.person');
    expect(JSON.parse(changed!.details)).toMatchObject({
      email: 'audited.person@example.com',
      name: 'Audited Person',
    });
    expect(changed!.userEmail).toBe('audited.person@example.com');

    await h.call('deleteUser', { caller, userId: id });
    await auditOf(caller, id, 'UserDeleted');
    const [after] = (await auditOf(caller, id, 'RoleChanged'))!;
    expect(after!.userEmail).toBe(SHREDDED);
    expect(JSON.parse(after!.details)).toMatchObject({ email: SHREDDED, name: SHREDDED, toRole: 'author' });
  });
});

describe('the key vault in a store (MongoDB deployments)', () => {
  it('destroys a key and keeps its id as a tombstone: findOrCreate refuses it', async () => {
    const store = createSqliteServiceStore(':memory:');
    try {
      const vault = createStorePersonalDataKeys(store);
      const key = await vault.findOrCreate('u1');
      expect((await vault.findOrCreate('u1')).equals(key)).toBe(true);
      await vault.destroy('u1');
      await vault.destroy('u1');
      expect(await vault.find('u1')).toBeNull();
      await expect(vault.findOrCreate('u1')).rejects.toBeInstanceOf(UserKeyDestroyedError);
      expect(await store.get(DESTROYED_PERSONAL_DATA_KEYS, 'u1')).toEqual({ userId: 'u1' });
      expect(await vault.findOrCreate('u2')).toHaveLength(32);
    } finally {
      await store.close();
    }
  });
});

describe('the SQLite key vault', () => {
  it('keeps one key per user and leaves no copy of a destroyed key in its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meridian-vault-'));
    try {
      const path = join(dir, 'identity-keys.sqlite');
      const vault = createSqlitePersonalDataKeys(path);
      const key = await vault.findOrCreate('u1');
      expect(key).toHaveLength(32);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect((await vault.findOrCreate('u1')).equals(key)).toBe(true);
      const other = await vault.findOrCreate('u2');
      vault.close();
      expect(readFileSync(path).includes(key)).toBe(true); // the scan can see a key
      const reopened = createSqlitePersonalDataKeys(path);
      expect((await reopened.find('u1'))?.equals(key)).toBe(true);
      await reopened.destroy('u1');
      await reopened.destroy('u1'); // idempotent
      expect(await reopened.find('u1')).toBeNull();
      reopened.close();
      expect(readFileSync(path).includes(key)).toBe(false);
      expect(readFileSync(path).includes(other)).toBe(true);
      // the tombstone (the id only) outlives a re-open: no new key for the destroyed user, ever
      const again = createSqlitePersonalDataKeys(path);
      await expect(again.findOrCreate('u1')).rejects.toBeInstanceOf(UserKeyDestroyedError);
      expect(await again.find('u1')).toBeNull();
      expect((await again.findOrCreate('u2')).equals(other)).toBe(true);
      expect(await again.findOrCreate('u3')).toHaveLength(32);
      again.close();
      expect(readFileSync(path).includes(key)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('keys asked for at once: one per user, a destroyed id refused alone, every key answered is on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meridian-vault-'));
    try {
      const path = join(dir, 'identity-keys.sqlite');
      const vault = createSqlitePersonalDataKeys(path);
      await vault.findOrCreate('gone');
      await vault.destroy('gone');
      const ids = Array.from({ length: 60 }, (_, i) => `u${i % 50}`); // ten asked twice
      const asked = [...ids, 'gone'].map((id) => vault.findOrCreate(id).catch((err: unknown) => err));
      const keys = await Promise.all(asked);
      expect(keys.at(-1)).toBeInstanceOf(UserKeyDestroyedError); // refused alone, the others made
      const made = keys.slice(0, -1) as Buffer[];
      for (let i = 0; i < 10; i++) expect(made[50 + i]!.equals(made[i]!)).toBe(true); // one key per user
      expect(new Set(made.map((k) => k.toString('hex'))).size).toBe(50);
      vault.close();
      const reopened = createSqlitePersonalDataKeys(path); // every key answered was committed
      for (let i = 0; i < 50; i++) expect((await reopened.find(`u${i}`))?.equals(made[i]!)).toBe(true);
      expect(await reopened.find('gone')).toBeNull();
      reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
