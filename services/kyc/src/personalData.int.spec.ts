/**
 * Crypto-shredding in kyc: the name, email and documents a submission carries are
 * stored sealed with the user's key (events, the read model, the document files), shown opened to the
 * admins, and unreadable once the key is destroyed, while ids, statuses and dates stay.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { identityAndServiceKeys } from '@meridian/platform/testing/personalDataCache';
import { createFsDocumentStore } from './adapters/documentStore.fs.js';
import { sealedDocumentStore } from './app/sealedDocuments.js';
import { CASES } from './app/collections.js';
import type { KycCaseView } from './projections/kycCaseView.js';
import {
  isSealed,
  isSealedBinary,
  MemoryPersonalDataKeys,
  PersonalData,
  SHREDDED,
  USER_DELETED_MESSAGE,
} from '@meridian/platform/personalData';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { describeDocumentStoreConformance } from './testing/documentStore.conformance.js';
import { startKycHarness, type KycHarness } from './testing/harness.js';
import { SAMPLES } from './testing/samples.js';

const NAME = 'Ada Shredded-Lovelace';
const EMAIL = 'ada.shredded@example.com';

let h: KycHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const documentFiles = (dataDir: string) =>
  readdirSync(join(dataDir, 'kyc'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => readFileSync(join(dataDir, 'kyc', f)));

describe('kyc personal data', () => {
  it('is stored sealed, shown opened, and unreadable after the key is shredded', async () => {
    h = await startKycHarness();
    const userId = `user-${randomUUID()}`;
    const front = SAMPLES.png;
    const back = SAMPLES.pdf;
    expect((await h.upload(userId, { front, back }, { name: NAME, email: EMAIL })).status).toBe(200);

    // stored: the read model, every stored event and the document files hold no plain text
    const view = (await h.store.get<KycCaseView>(CASES, userId))!;
    expect(isSealed(view.name) && isSealed(view.email)).toBe(true);
    const events = JSON.stringify(await h.store.readAll(0, 10_000));
    const readModel = JSON.stringify(await h.store.find(CASES));
    for (const raw of [events, readModel]) {
      expect(raw).not.toContain(NAME);
      expect(raw).not.toContain(EMAIL);
    }
    const files = documentFiles(h.dataDir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(isSealedBinary(file)).toBe(true);
      expect(file.indexOf(front)).toBe(-1);
      expect(file.indexOf(back)).toBe(-1);
    }
    const published = await waitFor(
      () => h!.kycEvents.find((e) => e.type === 'KycSubmitted'),
      'KycSubmitted published',
    );
    expect(JSON.stringify(published.data)).not.toContain(EMAIL);

    // read: opened for the admin and the owner
    const [pending] = (await h.call('listPending', h.asAdmin())).pendingUsers;
    expect(pending).toMatchObject({ userId, name: NAME, email: EMAIL, kycStatus: 'Pending' });
    const doc = await h.getDocument(userId, 'front', { userId });
    expect(doc.status).toBe(200);
    expect(Buffer.from(await doc.arrayBuffer()).equals(front)).toBe(true);
    expect(doc.headers.get('content-length')).toBe(String(front.length));

    // the key is destroyed: names read '[deleted]', documents are gone (404); ids, status, dates stay
    await h.personalData.shred(userId);
    const [after] = (await h.call('listPending', h.asAdmin())).pendingUsers;
    expect(after).toEqual({ ...pending, name: SHREDDED, email: SHREDDED });
    expect(after!.submittedAt).not.toBe('');
    for (const side of ['front', 'back']) {
      const gone = await h.getDocument(userId, side, { userId: 'admin-1', role: 'admin' });
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual({ message: 'Document not found' });
    }
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Pending');
  });

  it("a deleted user's upload is refused: no document stored, no new key made for them", async () => {
    h = await startKycHarness();
    const userId = `user-${randomUUID()}`;
    await h.personalData.shred(userId); // deleted (their key destroyed, the id kept as a tombstone)
    const res = await h.upload(
      userId,
      { front: SAMPLES.png, back: SAMPLES.pdf },
      { name: NAME, email: EMAIL },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: USER_DELETED_MESSAGE });
    expect(await h.personalData.key(userId)).toBeNull();
    expect(await h.store.get(CASES, userId)).toBeNull();
    const kycDir = join(h.dataDir, 'kyc');
    const files = existsSync(kycDir)
      ? readdirSync(kycDir, { recursive: true })
          .map(String)
          .filter((f) => f.endsWith('.bin'))
      : [];
    expect(files).toEqual([]);
    expect(JSON.stringify(await h.store.readAll(0, 10_000))).not.toContain(userId);
  });

  it("identity's UserDeleted drops the key this service had cached", async () => {
    const { identity, service: kyc } = identityAndServiceKeys();
    h = await startKycHarness({ personalData: kyc });
    const userId = `user-${randomUUID()}`;
    expect((await h.upload(userId, { front: SAMPLES.png, back: SAMPLES.pdf }, { name: NAME })).status).toBe(
      200,
    );
    const sealedName = (await h.store.get<KycCaseView>(CASES, userId))!.name;
    await identity.shred(userId); // identity destroys the key ...
    expect(await kyc.open(sealedName)).toBe(NAME); // ... kyc still holds it in its cache
    await h.publishIdentity([{ type: 'UserDeleted', data: { userId, deletedBy: 'admin-1' } }]);
    await waitFor(() => h!.identityConsumed(), 'UserDeleted consumed');
    expect(await kyc.open(sealedName)).toBe(SHREDDED);
  });
});

const roots: Array<{ remove(): void }> = [];
describeDocumentStoreConformance('files, sealed with the owner key', {
  create: async () => {
    const dir = tempDir('meridian-kyc-sealed-');
    roots.push(dir);
    return sealedDocumentStore(
      createFsDocumentStore({ root: join(dir.path, 'kyc') }),
      new PersonalData(new MemoryPersonalDataKeys()),
    );
  },
});
