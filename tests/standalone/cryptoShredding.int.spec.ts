/**
 * Crypto-shredding on the standalone target: personal data (name, email, phone, bio, KYC
 * documents, wallet addresses, support messages and their attachments) is sealed with a key per user wherever it is stored; deleting the user destroys
 * the key, so nothing of the person can be read anywhere while the ledger keeps its amounts and ids.
 *
 * Started as `make start` starts it (tests/support/standalone.ts) on a fresh DATA_DIR, with a 1.5 s Starter plan:
 * - another investor deposits $300 (confirmed), so there is money that is not the deleted user's;
 * - the user (a distinctive name, email, phone, bio) first writes to support as a visitor (pre-chat name and
 *   email: the conversation is sealed with a key of the visitor's own id), then registers, verifies by the emailed link, uploads KYC
 *   documents (whose bytes carry the name, like a scan of a passport) which the admin approves, deposits $500
 *   (confirmed), invests $100 (approved, matures), asks to withdraw $60 to a distinctive wallet address (approved)
 *   and receives the emails of each step; every request of theirs comes from a distinctive client address (an
 *   IPv6 address given as X-Forwarded-For, honoured because the target runs with TRUST_PROXY=loopback and the
 *   test connects from loopback): the gateway seals it with the person's key into the Caller every service
 *   keeps in its events' metadata; they sign in from a new browser at that address and see it among their
 *   security events; their support conversation joins their account once verified, they write again signed
 *   in and support answers; they attach a screenshot of their transfer (their name on it and in its file name),
 *   once as the visitor and once signed in, which they and the admin download;
 * - before the deletion: the admin sees the name, email and wallet (opened from what is stored sealed); every
 *   file under DATA_DIR (databases with their -wal/-shm/-journal, the bus, uploads, secrets) scanned as bytes holds
 *   none of the values in clear (utf-8 as typed, lower and upper case, utf-16, base64 and URL-encoded email), and
 *   a value planted in clear in a file under DATA_DIR IS found (the scanner can fail);
 * - the admin deletes the user; the standalone stops (SIGTERM: everything checkpointed and closed);
 * - the support attachments' files are removed and no longer served (404, the admin included);
 * - every file under DATA_DIR is scanned again: nothing; every event of every service's store, read through the
 *   store (data, integration event and actor), holds nothing either; the person's own requests' events in the
 *   money services carry the address sealed with the person's key, now unopenable; the deleted user's events are
 *   still there with their amounts (the deposit, the
 *   withdrawal); the ledger's invariants hold (every transaction and all accounts together sum to zero, every
 *   balance equals its entries); identity's key vault no longer holds the user's key but still the others';
 * - restarted on the same DATA_DIR, the other investor's balance is intact.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { isSealed, sealedOwner } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { ledgerInvariantProblems } from '@meridian/ledger/testing/invariants';
import {
  HttpSession,
  listMail,
  loginCodeOf,
  signIn,
  waitForMail,
} from '@meridian/gateway/testing/composition';
import { approveKyc, uploadKyc } from '@meridian/gateway/testing/kyc';
import { SERVICES } from '@meridian/platform/services';
import { backupStore, KEY_VAULT, restoreStore } from '../../scripts/backup.js';
import { describeTargetJourney, restartableTarget } from '../support/apiJourney.js';
import { stopTarget } from '../support/standalone.js';
import {
  ADMIN,
  PLANS_JSON,
  tag,
  PERSON,
  PNG,
  TRANSFER,
  transferForm,
  needlesOf,
  filesUnder,
  scan,
  eventsOf,
  stringsIn,
  ok,
  personsBrowser,
  register,
  deposit,
  balanceOf,
  mailSubjects,
} from '../support/shredding.js';

const shredTarget = restartableTarget('shred', {
  adminEmail: ADMIN.email,
  adminPassword: ADMIN.password,
  // X-Forwarded-For from the test's own loopback connection is the client address (a proxy in front)
  env: { PLANS_JSON, TRUST_PROXY: 'loopback' },
});
const { dataDir, start } = shredTarget;
const backupsDir = mkdtempSync(join(tmpdir(), 'meridian-shred-backups-'));
afterAll(() => rmSync(backupsDir, { recursive: true, force: true }));

describeTargetJourney(
  shredTarget,
  {
    title: 'crypto-shredding on the standalone target',
    journey:
      'after a user is deleted, no file under DATA_DIR and no stored event holds their email, name, phone or wallet',
    timeout: 300_000,
  },
  async (firstStart) => {
    let target = firstStart;
    const url = target.url;
    const admin = new HttpSession(url);
    await signIn(admin, ADMIN.email, ADMIN.password);

    // ---- another investor, whose money must stay as it is
    const other = await register(url, {
      name: 'Olga Other',
      email: `olga.${tag}@example.com`,
      phone: '+15550111',
      password: 'Olga-Passw0rd!',
    });
    await deposit(other, admin, 300);
    await waitFor(async () => (await balanceOf(other)) === 300, 'the other investor is funded');

    // ---- the person's whole journey: support first, as a visitor
    const visitor = personsBrowser(url);
    const chat = ok(
      await visitor.post('/api/support/conversations/visitor', {
        name: PERSON.name,
        email: PERSON.email,
        text: PERSON.chatAsVisitor,
      }),
      201,
      'visitor starts a support conversation',
    ).body as { conversation: { _id: string; visitorId: string } };
    const conversationId = chat.conversation._id;
    const visitorId = chat.conversation.visitorId;
    // the visitor attaches the screenshot of their transfer (sealed with the visitor's key)
    const visitorFile = ok(
      await visitor.postForm('/api/support/conversations/mine/attachments', transferForm()),
      201,
      'the visitor attaches a screenshot',
    ).body.message.attachment as { url: string; name: string };
    expect(visitorFile.name).toBe(`${PERSON.name} transfer.png`);
    const user = await register(url, PERSON, personsBrowser(url));
    const joined = ok(await user.browser.get('/api/support/conversations/mine'), 200, 'mine').body as {
      conversation: { _id: string; userId: string };
    };
    expect(joined.conversation).toMatchObject({ _id: conversationId, userId: user.id });
    ok(
      await user.browser.post('/api/support/conversations/mine/messages', { text: PERSON.chatSignedIn }),
      201,
      'the person writes to support',
    );
    // signed in, they attach it again (sealed with their own key)
    const userFile = ok(
      await user.browser.postForm('/api/support/conversations/mine/attachments', transferForm()),
      201,
      'the person attaches a screenshot',
    ).body.message.attachment as { url: string };
    const attachmentUrls = [visitorFile.url, userFile.url];
    for (const reader of [admin, user.browser])
      for (const fileUrl of attachmentUrls) {
        const res = await fetch(new URL(fileUrl, url), { headers: { cookie: reader.cookieHeader() } });
        expect(res.status, `${fileUrl} before the deletion`).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(TRANSFER)).toBe(true);
      }
    const inbox = ok(await admin.get(`/api/support/conversations/${conversationId}`), 200, 'inbox').body;
    expect(JSON.stringify(inbox)).toContain(PERSON.chatAsVisitor); // opened for the admin
    expect(JSON.stringify(inbox)).toContain(PERSON.email);
    ok(
      await admin.post(`/api/support/conversations/${conversationId}/messages`, {
        text: 'Noted, thank you',
      }),
      201,
      'support replies',
    );
    ok(
      await user.browser.request('PATCH', '/api/users/updateUser', { body: { bio: PERSON.bio } }),
      200,
      'bio',
    );
    const passport = {
      front: PNG,
      back: PNG,
      frontName: 'passport front.png',
      backName: 'passport back.png',
    };
    ok(await uploadKyc(user, passport), 200, 'kyc upload');
    const pendingKyc = ok(await admin.get('/api/users/kyc/pending'), 200, 'kyc pending').body;
    expect(JSON.stringify(pendingKyc)).toContain(PERSON.email); // opened for the admin
    await approveKyc(admin, user);

    await deposit(user, admin, 500);
    await waitFor(async () => (await balanceOf(user)) === 500, 'the person is funded');
    const started = ok(
      await user.browser.post('/api/invest/start-invest', { amount: 100, planName: 'Starter' }),
      201,
      'invest',
    );
    const investmentId = started.body.investment._id as string;
    ok(await admin.put(`/api/invest/${investmentId}/approve`), 200, 'approve investment');
    await waitFor(
      async () => {
        await user.browser.get('/api/invest/deposit-maturity');
        return (await user.browser.get('/api/users/getUser')).body.totalMaturityAmount === 112;
      },
      { timeoutMs: 30_000, intervalMs: 300, message: 'the investment matured' },
    );
    const requested = ok(
      await user.browser.post('/api/withDraw/create', { amount: '60', walletAddress: PERSON.wallet }),
      201,
      'withdraw',
    );
    const withdrawalId = requested.body.withdrawal._id as string;
    const pendingW = ok(await admin.get('/api/withDraw/pending'), 200, 'pending withdrawals').body;
    expect(JSON.stringify(pendingW)).toContain(PERSON.wallet); // opened for the admin
    ok(await admin.put(`/api/withDraw/approve/${withdrawalId}`), 200, 'approve withdrawal');
    await waitFor(
      async () => (await mailSubjects(url, PERSON.email)).includes('Your withdrawal was approved'),
      { timeoutMs: 30_000, message: 'the withdrawal email' },
    );
    const subjects = await mailSubjects(url, PERSON.email);
    expect(subjects).toEqual(
      expect.arrayContaining(['We received your withdrawal request', 'Your investment has matured']),
    );

    // the person signs in from a new browser at a distinctive address and sees it in their security events
    const afar = personsBrowser(url);
    const knownMail = new Set((await listMail(url, PERSON.email)).map((m) => m.id));
    ok(
      await afar.post(`/api/users/sendLoginCode/${encodeURIComponent(PERSON.email)}`),
      200,
      'send the person a code',
    );
    const personCode = await waitForMail(
      url,
      PERSON.email,
      (m) => !knownMail.has(m.id) && /\b\d{6}\b/.test(m.text),
      60_000,
    );
    ok(
      await afar.request('POST', `/api/users/loginWithCode/${encodeURIComponent(PERSON.email)}`, {
        body: { loginCode: loginCodeOf(personCode) },
      }),
      200,
      'sign in from afar',
    );
    const security = await waitFor(async () => {
      const body = ok(await afar.get('/api/users/securityEvents'), 200, 'security events').body as {
        events: Array<{ address: string }>;
      };
      return body.events.some((e) => e.address === PERSON.address) ? body : null;
    }, 'the sign-in among the security events, with its address');
    expect(security.events.length).toBeGreaterThan(0);

    // the admin's users list finds the person by a prefix of the name and of the email (opened, then matched)
    const byName = ok(
      await admin.get(`/api/users/getUsers?q=${encodeURIComponent('zebulon quix')}&limit=10`),
      200,
      'users search',
    ).body;
    expect(JSON.stringify(byName)).toContain(PERSON.email);

    // ---- before the deletion: stored only sealed; the scanner finds a value planted in clear
    const needles = needlesOf({
      email: PERSON.email,
      name: PERSON.name,
      phone: PERSON.phone,
      wallet: PERSON.wallet,
      bio: PERSON.bio,
      address: PERSON.address,
      chatAsVisitor: PERSON.chatAsVisitor,
      chatSignedIn: PERSON.chatSignedIn,
    });
    const before = scan(dataDir, needles);
    expect(before.files).toBeGreaterThan(8);
    expect(before.found, 'plaintext before the deletion').toEqual([]);
    const planted = join(dataDir, 'zz-planted');
    mkdirSync(planted);
    writeFileSync(
      join(planted, 'note.bin'),
      Buffer.concat([
        Buffer.from([0, 1, 2]),
        Buffer.from(`x${PERSON.email.toUpperCase()}y`),
        Buffer.from([3]),
      ]),
    );
    writeFileSync(join(planted, 'b64.txt'), `data:${Buffer.from(`to=${PERSON.email};`).toString('base64')}`);
    const sanity = scan(dataDir, needles).found;
    expect(sanity).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^zz-planted\/note\.bin: email upper case \(utf-8\)$/),
        expect.stringMatching(/^zz-planted\/b64\.txt: email base64/),
      ]),
    );
    rmSync(planted, { recursive: true });
    // the identity events about the person carry the values sealed with the person's own key
    const identityBefore = (await eventsOf(dataDir, 'identity')).filter(
      (e) => (e.data as { userId?: string }).userId === user.id && e.type === 'UserRegistered',
    );
    expect(identityBefore).toHaveLength(1);
    const registered = identityBefore[0]!.data as { name: string; email: string; phone: string };
    for (const v of [registered.name, registered.email, registered.phone]) {
      expect(isSealed(v)).toBe(true);
      expect(sealedOwner(v)).toBe(user.id);
    }

    // a backup taken now (online, as `make backup`): it holds the data, never the key vault
    const backup = await backupStore({ dataDir, outDir: backupsDir });
    expect(backup.manifest.databases.map((d) => d.path)).toEqual(expect.arrayContaining(['identity.sqlite']));
    expect(filesUnder(backup.dir).some((f) => f.includes(KEY_VAULT))).toBe(false);
    expect(scan(backup.dir, needles).found, 'plaintext in the backup').toEqual([]);

    // ---- the admin deletes the person
    ok(await admin.delete(`/api/users/${user.id}?cancelPending=true`), 200, 'delete user');
    await waitFor(async () => {
      const users = ok(await admin.get('/api/users/getUsers'), 200, 'users').body;
      return !JSON.stringify(users).includes(user.id);
    }, 'the user is gone from the users list');
    // the audit trail still lists what the admin did about the person, their email read as deleted
    const audit = ok(await admin.get(`/api/admin/audit?user=${user.id}`), 200, 'audit').body as {
      entries: Array<{ action: string; userEmail: string; details?: string }>;
    };
    const deleted = audit.entries.find((e) => e.action === 'UserDeleted');
    expect(deleted?.userEmail).toBe('[deleted]');
    expect(JSON.stringify(audit)).not.toContain(PERSON.email);
    // the consumers of UserDeleted have run (kyc erased the documents; everything published)
    await waitFor(async () => {
      const kycFolder = join(dataDir, 'kyc');
      const files = (() => {
        try {
          return filesUnder(kycFolder);
        } catch {
          return [];
        }
      })();
      return files.length === 0 || files.every((f) => !readFileSync(f).includes(Buffer.from(PERSON.name)));
    }, 'kyc documents of the user erased or sealed');
    // the support attachments: removed from DATA_DIR/support-attachments, and no longer served to anyone
    await waitFor(async () => {
      try {
        return filesUnder(join(dataDir, 'support-attachments')).length === 0;
      } catch {
        return true;
      }
    }, 'support attachments of the user removed');
    for (const fileUrl of attachmentUrls) {
      const res = await fetch(new URL(fileUrl, url), { headers: { cookie: admin.cookieHeader() } });
      expect(res.status, `${fileUrl} after the deletion`).toBe(404);
    }

    expect(await stopTarget(target)).toBe(0);

    // ---- after the deletion: nothing, in any file
    const after = scan(dataDir, needles);
    expect(after.files).toBeGreaterThan(8);
    expect(after.found, 'plaintext after the deletion').toEqual([]);
    for (const f of filesUnder(dataDir)) expect(statSync(f).isFile()).toBe(true);

    // ---- every stored event, read through the stores: nothing either; the person's money facts remain
    const texts = needles.map((n) => n.bytes.toString('utf8')).filter((t) => /^[\x20-\x7e]+$/.test(t));
    const byService: Record<string, StoredEvent[]> = {};
    for (const service of SERVICES) {
      const events = await eventsOf(dataDir, service);
      byService[service] = events;
      for (const e of events) {
        const json = JSON.stringify({
          data: e.data,
          integration: (e as { integration?: unknown }).integration,
          actor: e.actor,
        });
        for (const t of texts)
          expect(json.includes(t), `${service} ${e.type} ${e.id} holds ${t}`).toBe(false);
      }
    }
    // the support conversation is gone from the inbox's read models; its events keep only sealed values, the
    // visitor's part sealed with the visitor's key, which went with the person
    const supportOfPerson = byService.support!.flatMap((e) => stringsIn(e.data)).filter(isSealed);
    expect(supportOfPerson.some((v) => sealedOwner(v) === visitorId)).toBe(true);
    expect(supportOfPerson.some((v) => sealedOwner(v) === user.id)).toBe(true);
    // the sealed values the person's events still carry can no longer be opened (their key is gone)
    const sealedOfPerson = SERVICES.flatMap((s) => byService[s]!)
      .flatMap((e) => stringsIn(e.data))
      .filter((v) => isSealed(v) && sealedOwner(v) === user.id);
    expect(sealedOfPerson.length).toBeGreaterThan(0);
    // the person's own requests (deposit, investment, withdrawal) reached each money service with the address
    // the gateway sealed with the person's key (http/auth.ts): in the events' actor, sealed, never in clear
    for (const service of ['ledger', 'investment', 'withdrawal'] as const) {
      const ownAddresses = byService[service]!.filter(
        (e) => e.actor?.userId === user.id && !e.actor.impersonatorId && e.actor.address,
      ).map((e) => e.actor!.address!);
      expect(
        ownAddresses.length,
        `${service}: the person's own requests, with their address`,
      ).toBeGreaterThan(0);
      for (const address of ownAddresses) expect(sealedOwner(address), service).toBe(user.id);
    }
    // and no event of any service keeps anyone's address in clear (the admin's are sealed with the admin's key)
    const clearAddresses = SERVICES.flatMap((s) =>
      byService[s]!.filter((e) => e.actor?.address && !isSealed(e.actor.address)).map(
        (e) => `${s} ${e.type}: ${e.actor!.address}`,
      ),
    );
    expect(clearAddresses, 'addresses in clear in event metadata').toEqual([]);
    // identity's blind search tokens (services/identity projections/searchTokens.ts): none of the person's left
    const identityDb = new Database(join(dataDir, 'identity.sqlite'), { readonly: true });
    try {
      const tokensOf = (id: string) =>
        (
          identityDb
            .prepare(
              "SELECT count(*) AS n FROM documents WHERE collection = 'search-tokens' AND json_extract(json, '$.userId') = ?",
            )
            .get(id) as { n: number }
        ).n;
      expect(tokensOf(user.id)).toBe(0);
      expect(tokensOf(other.id)).toBeGreaterThan(0);
    } finally {
      identityDb.close();
    }
    const vault = new Database(join(dataDir, 'identity-keys.sqlite'), { readonly: true });
    try {
      const keyOf = (id: string) =>
        vault.prepare('SELECT key FROM personal_data_keys WHERE user_id = ?').get(id) as
          { key: Buffer } | undefined;
      expect(keyOf(user.id)).toBeUndefined();
      expect(keyOf(visitorId)).toBeUndefined();
      expect(keyOf(other.id)?.key).toHaveLength(32);
    } finally {
      vault.close();
    }
    // the ledger keeps the person's deposit and withdrawal with their amounts and ids
    const ledgerOfPerson = byService.ledger!.filter((e) => JSON.stringify(e.data).includes(user.id));
    expect(ledgerOfPerson.map((e) => e.type)).toEqual(
      expect.arrayContaining(['DepositConfirmed', 'TransactionPosted']),
    );
    expect(JSON.stringify(ledgerOfPerson)).toContain('50000');
    const withdrawalOfPerson = byService.withdrawal!.filter((e) =>
      JSON.stringify(e.data).includes(withdrawalId),
    );
    expect(withdrawalOfPerson.length).toBeGreaterThan(0);
    expect(JSON.stringify(withdrawalOfPerson)).toContain('6000');
    // every ledger transaction sums to zero, all accounts together too, every balance equals its entries
    const ledgerStore = createSqliteServiceStore(join(dataDir, 'ledger.sqlite'));
    try {
      expect(await ledgerInvariantProblems(ledgerStore)).toEqual([]);
    } finally {
      await ledgerStore.close();
    }

    // ---- restarted: the other investor's money is as it was
    target = await start();
    const olga = new HttpSession(target.url);
    await signIn(olga, other.email, other.password);
    expect(
      (ok(await olga.get('/api/users/getUser'), 200, 'getUser').body as { balance: number }).balance,
    ).toBe(300);
    expect(await stopTarget(target)).toBe(0);

    // ---- the backup from before the deletion, restored: the live vault stays, so the person stays unreadable
    restoreStore({ backupDir: backup.dir, dataDir });
    target = await start();
    const admin2 = new HttpSession(target.url);
    // a new browser: the login code is mailed once the restored outbox's lease expires (about 10 s)
    expect((await admin2.post('/api/users/login', ADMIN)).status).toBe(400);
    const known = new Set((await listMail(target.url, ADMIN.email)).map((m) => m.id));
    ok(await admin2.post(`/api/users/sendLoginCode/${encodeURIComponent(ADMIN.email)}`), 200, 'send code');
    const codeMail = await waitForMail(
      target.url,
      ADMIN.email,
      (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text),
      60_000,
    );
    ok(
      await admin2.post(`/api/users/loginWithCode/${encodeURIComponent(ADMIN.email)}`, {
        loginCode: loginCodeOf(codeMail),
      }),
      200,
      'login with code',
    );
    const users = ok(await admin2.get('/api/users/getUsers'), 200, 'users after the restore').body as
      Array<Record<string, unknown>> | { users: Array<Record<string, unknown>> };
    const list = Array.isArray(users) ? users : users.users;
    expect(list.find((u) => u._id === user.id)).toMatchObject({ name: '[deleted]', email: '[deleted]' });
    expect(JSON.stringify(list)).not.toContain(PERSON.email);
    expect(list.find((u) => u._id === other.id)).toMatchObject({ name: 'Olga Other' });
  },
);
