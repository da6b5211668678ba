/**
 * The kyc service through its HTTP (behind the gateway's proxy) and gRPC surfaces, on SQLite
 * ':memory:', the in-process bus and files under a fresh DATA_DIR.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { KycStatus } from '@meridian/proto/meridian/kyc/v1/kyc';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { FILE_MESSAGES } from './domain/fileType.js';
import { DEFAULT_REJECTION_REASON } from './domain/kycCase.js';
import { startKycHarness, type KycHarness } from './testing/harness.js';
import { bytes, IMPOSTORS, pad, sampleImage, SAMPLES } from './testing/samples.js';

let h: KycHarness;
let userId: string;
beforeEach(async () => {
  h = await startKycHarness();
  userId = `user-${randomUUID()}`;
});
afterEach(async () => {
  await h.stop();
});

const kycFiles = () =>
  readdirSync(join(h.dataDir, 'kyc'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.bin'));
const grpcError = (code: grpc.status, details: string) => expect.objectContaining({ code, details });
const uploadOk = async (id = userId, files = { front: SAMPLES.png, back: SAMPLES.pdf }) => {
  const res = await h.upload(id, files, { name: 'Ada Lovelace', email: 'ada@example.com' });
  expect(res).toEqual({ status: 200, body: { message: 'KYC documents uploaded successfully!' } });
};

describe('upload', () => {
  it('stores both sides, marks the case Pending and lists it for admins without secrets', async () => {
    await uploadOk();
    const status = await h.call('getStatus', { userId });
    expect(status).toMatchObject({ status: KycStatus.KYC_STATUS_PENDING, kycStatus: 'Pending' });

    const { pendingUsers } = await h.call('listPending', h.asAdmin());
    expect(pendingUsers).toHaveLength(1);
    expect(pendingUsers[0]).toEqual({
      userId,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      kycStatus: 'Pending',
      frontDoc: `/api/users/kyc/document/${userId}/front`,
      backDoc: `/api/users/kyc/document/${userId}/back`,
      submittedAt: expect.any(String),
    });
    const text = JSON.stringify(pendingUsers);
    for (const secret of ['password', 'token', 'secret', 'documentId', h.dataDir])
      expect(text).not.toContain(secret);

    const submitted = await waitFor(
      () => h.kycEvents.find((e) => e.type === 'KycSubmitted'),
      'KycSubmitted published',
    );
    // the name and email go out sealed with the user's key (crypto-shredding)
    expect(submitted.data).toEqual({
      userId,
      name: expect.stringMatching(/^pd1\./),
      email: expect.stringMatching(/^pd1\./),
      submittedAt: expect.any(String),
      frontDoc: `/api/users/kyc/document/${userId}/front`,
      backDoc: `/api/users/kyc/document/${userId}/back`,
      submissionId: expect.any(String),
    });
    const data = submitted.data as { name: string; email: string };
    expect(await h.personalData.open(data.name)).toBe('Ada Lovelace');
    expect(await h.personalData.open(data.email)).toBe('ada@example.com');
    expect(kycFiles()).toHaveLength(2);
  });

  it('takes name and email from identity events when the gateway sends none', async () => {
    await h.publishIdentity([
      {
        type: 'UserRegistered',
        data: { userId, name: 'Grace', email: 'grace@example.com', role: 'subscriber' },
      },
    ]);
    await waitFor(() => h.identityConsumed(), 'UserRegistered consumed');
    expect((await h.upload(userId, { front: SAMPLES.jpeg, back: SAMPLES.heic })).status).toBe(200);
    const { pendingUsers } = await h.call('listPending', h.asAdmin());
    expect(pendingUsers[0]).toMatchObject({ name: 'Grace', email: 'grace@example.com' });
  });

  it('accepts every allowed kind by content, whatever the file is called', async () => {
    const res = await h.upload(
      userId,
      { front: SAMPLES.webp, back: SAMPLES.bmp },
      { filenames: { front: 'scan.txt', back: 'noext' } },
    );
    expect(res.status).toBe(200);
  });

  it('refuses a file named .png that holds HTML, and keeps nothing', async () => {
    const res = await h.upload(
      userId,
      { front: IMPOSTORS.html, back: SAMPLES.png },
      { filenames: { front: 'id.png', back: 'back.png' } },
    );
    expect(res).toEqual({
      status: 400,
      body: { message: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.' },
    });
    const res2 = await h.upload(userId, { front: SAMPLES.png, back: IMPOSTORS.svg });
    expect(res2.body.message).toBe('Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.');
    expect(kycFiles()).toEqual([]);
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Not Submitted');
  });

  it('reads each image’s dimensions from its header: a 3-byte "JPEG", a header with none and a side under 200 pixels are refused, and nothing is kept', async () => {
    const refused = async (front: Buffer, message: string) => {
      const res = await h.upload(userId, { front, back: SAMPLES.png });
      expect(res, message).toEqual({ status: 400, body: { message } });
    };
    await refused(bytes([0xff, 0xd8, 0xff]), FILE_MESSAGES.unreadableImage);
    await refused(
      pad(bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF'), 4096),
      FILE_MESSAGES.unreadableImage,
    );
    await refused(
      sampleImage('jpeg', 199, 800),
      'The image is too small (199×800 pixels): each side must be at least 200 pixels.',
    );
    await refused(
      sampleImage('png', 120, 90),
      'The image is too small (120×90 pixels): each side must be at least 200 pixels.',
    );
    await refused(
      sampleImage('gif', 12_001, 400),
      'The image is too large (12001×400 pixels): each side must be at most 12,000 pixels.',
    );
    expect(kycFiles()).toEqual([]);
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Not Submitted');
    // at the floor (the other kinds' headers are read in the uploads above)
    const atFloor = await h.upload(userId, {
      front: sampleImage('jpeg', 200, 200),
      back: sampleImage('gif', 200, 200),
    });
    expect(atFloor.status).toBe(200);
  });

  it('refuses 10,485,761 bytes and accepts 10,485,760', async () => {
    const over = Buffer.alloc(MAX_UPLOAD_BYTES + 1);
    SAMPLES.jpeg.copy(over);
    const res = await h.upload(userId, { front: SAMPLES.png, back: over });
    expect(res).toEqual({ status: 400, body: { message: 'File size must be less than 10MB.' } });
    expect(kycFiles()).toEqual([]);

    const atLimit = over.subarray(0, MAX_UPLOAD_BYTES);
    expect((await h.upload(userId, { front: atLimit, back: SAMPLES.png })).status).toBe(200);
    const doc = await h.getDocument(userId, 'front', { userId });
    expect(doc.headers.get('content-length')).toBe(String(MAX_UPLOAD_BYTES));
    expect((await doc.arrayBuffer()).byteLength).toBe(MAX_UPLOAD_BYTES);
  });

  it('refuses a missing side (and a request that is not multipart)', async () => {
    expect(await h.upload(userId, { front: SAMPLES.png })).toEqual({
      status: 400,
      body: { message: 'Please upload both front and back documents.' },
    });
    expect(await h.upload(userId, { back: SAMPLES.png })).toEqual({
      status: 400,
      body: { message: 'Please upload both front and back documents.' },
    });
    expect(kycFiles()).toEqual([]);
    const res = await fetch(`${h.handle.httpUrl}/upload`, {
      method: 'POST',
      headers: {
        'x-internal-token': 'test-internal-token-0123456789abcdef',
        'x-user-id': userId,
        'x-user-verified': 'true',
        'content-type': 'application/json',
      },
      body: '{"front":"x"}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'Please upload both front and back documents.' });
  });

  it('refuses an unverified email before storing anything', async () => {
    const res = await h.upload(userId, { front: SAMPLES.png, back: SAMPLES.png }, { verified: false });
    expect(res).toEqual({
      status: 400,
      body: { message: 'Please verify your email before uploading documents' },
    });
    expect(existsSync(join(h.dataDir, 'kyc')) ? kycFiles() : []).toEqual([]);
  });

  it('resubmission: refused while Pending and once Approved, allowed after Rejected (old files replaced)', async () => {
    await uploadOk();
    expect(await h.upload(userId, { front: SAMPLES.png, back: SAMPLES.png })).toEqual({
      status: 409,
      body: { message: 'Your documents are already under review' },
    });

    await h.call('reject', { ...h.asAdmin(), userId, reason: 'Blurry photo' });
    expect(await h.call('getStatus', { userId })).toMatchObject({
      kycStatus: 'Rejected',
      rejectionReason: 'Blurry photo',
    });
    const before = kycFiles();
    await uploadOk(userId, { front: SAMPLES.gif89, back: SAMPLES.jpeg });
    const after = kycFiles();
    expect(after).toHaveLength(2);
    expect(after.some((f) => before.includes(f))).toBe(false);
    expect((await h.getDocument(userId, 'front', { userId })).headers.get('content-type')).toBe('image/gif');

    await h.call('approve', { ...h.asAdmin(), userId });
    expect(await h.upload(userId, { front: SAMPLES.png, back: SAMPLES.png })).toEqual({
      status: 409,
      body: { message: 'Your identity is already verified' },
    });
  });
});

describe('admin decisions (gRPC)', () => {
  it('approve once: the second decision is a conflict with a clear message', async () => {
    await uploadOk();
    expect(await h.call('approve', { ...h.asAdmin(), userId })).toEqual({
      message: 'KYC approved successfully!',
    });
    expect((await h.call('listPending', h.asAdmin())).pendingUsers).toEqual([]);
    await expect(h.call('approve', { ...h.asAdmin(), userId })).rejects.toEqual(
      grpcError(grpc.status.ALREADY_EXISTS, 'This KYC request has already been approved'),
    );
    await expect(h.call('reject', { ...h.asAdmin(), userId })).rejects.toEqual(
      grpcError(grpc.status.ALREADY_EXISTS, 'This KYC request has already been approved'),
    );
    const approved = await waitFor(
      () => h.kycEvents.find((e) => e.type === 'KycApproved'),
      'KycApproved published',
    );
    expect(approved.data).toMatchObject({ userId, approvedBy: 'admin-1' });
    const { name, email } = approved.data as { name: string; email: string };
    expect([await h.personalData.open(name), await h.personalData.open(email)]).toEqual([
      'Ada Lovelace',
      'ada@example.com',
    ]);
    expect(approved.actor).toMatchObject({ userId: 'admin-1', role: 'admin' });
    expect((await h.call('getStatus', { userId })).status).toBe(KycStatus.KYC_STATUS_APPROVED);
  });

  it('reject once, with a default reason the user sees when none is given', async () => {
    await uploadOk();
    expect(await h.call('reject', { ...h.asAdmin(), userId })).toEqual({
      message: 'KYC rejected successfully!',
    });
    await expect(h.call('reject', { ...h.asAdmin(), userId })).rejects.toEqual(
      grpcError(grpc.status.ALREADY_EXISTS, 'This KYC request has already been rejected'),
    );
    const rejected = await waitFor(
      () => h.kycEvents.find((e) => e.type === 'KycRejected'),
      'KycRejected published',
    );
    expect(rejected.data).toMatchObject({ userId, reason: DEFAULT_REJECTION_REASON });
    expect(await h.personalData.open((rejected.data as { email: string }).email)).toBe('ada@example.com');
  });

  it('only admins list and decide; an unknown case is not found', async () => {
    await uploadOk();
    const subscriber = {
      caller: { userId, sessionId: 's', impersonatorId: '', correlationId: '' },
      callerRole: 'subscriber',
    };
    await expect(h.call('listPending', subscriber)).rejects.toEqual(
      grpcError(grpc.status.PERMISSION_DENIED, 'Not authorized as an admin'),
    );
    await expect(h.call('approve', { ...subscriber, userId })).rejects.toEqual(
      grpcError(grpc.status.PERMISSION_DENIED, 'Not authorized as an admin'),
    );
    await expect(h.call('reject', { ...subscriber, callerRole: 'author', userId })).rejects.toEqual(
      grpcError(grpc.status.PERMISSION_DENIED, 'Not authorized as an admin'),
    );
    await expect(h.call('listPending', { callerRole: 'admin' })).rejects.toEqual(
      grpcError(grpc.status.UNAUTHENTICATED, 'Not authorized, please login'),
    );
    await expect(h.call('approve', { ...h.asAdmin(), userId: 'nobody' })).rejects.toEqual(
      grpcError(grpc.status.NOT_FOUND, 'No KYC submission found for this user'),
    );
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Pending');
  });
});

describe('maker-checker (gRPC)', () => {
  it('an upload made while an admin impersonates the user is refused (403) before anything is stored', async () => {
    const res = await h.upload(
      userId,
      { front: SAMPLES.png, back: SAMPLES.pdf },
      { impersonatorId: 'admin-7' },
    );
    expect(res).toEqual({
      status: 403,
      body: { message: 'KYC documents cannot be uploaded while impersonating a user' },
    });
    expect(existsSync(join(h.dataDir, 'kyc')) ? kycFiles() : []).toEqual([]);
    expect((await h.call('getStatus', { userId })).status).toBe(KycStatus.KYC_STATUS_NOT_SUBMITTED);
    // the user in person uploads; the case carries no admin
    await uploadOk();
    const submitted = await waitFor(
      () => h.kycEvents.find((e) => e.type === 'KycSubmitted'),
      'KycSubmitted published',
    );
    expect(submitted.actor).toEqual(expect.not.objectContaining({ impersonatorId: expect.anything() }));
  });

  it("an admin's own case is refused with a clear message; a second admin decides it", async () => {
    const adminId = `admin-${randomUUID()}`;
    await uploadOk(adminId);
    const own =
      'You cannot decide your own KYC case: another admin must review it (if you are the only admin, a second admin is needed)';
    await expect(h.call('approve', { ...h.asAdmin(adminId), userId: adminId })).rejects.toEqual(
      grpcError(grpc.status.PERMISSION_DENIED, own),
    );
    await expect(h.call('reject', { ...h.asAdmin(adminId), userId: adminId })).rejects.toEqual(
      grpcError(grpc.status.PERMISSION_DENIED, own),
    );
    expect((await h.call('getStatus', { userId: adminId })).kycStatus).toBe('Pending');
    expect(await h.call('approve', { ...h.asAdmin(), userId: adminId })).toEqual({
      message: 'KYC approved successfully!',
    });
  });
});

describe('document stream', () => {
  beforeEach(async () => {
    await uploadOk();
  });

  it('streams to the owner and to an admin as an attachment under a sandboxing policy, with nosniff, a safe type, a generic name and no caching', async () => {
    for (const as of [{ userId }, { userId: 'admin-1', role: 'admin' }]) {
      const res = await h.getDocument(userId, 'front', as);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="kyc-front.png"');
      expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(Buffer.from(await res.arrayBuffer()).equals(SAMPLES.png)).toBe(true);
    }
    const back = await h.getDocument(userId, 'back', { userId: 'admin-1', role: 'admin' });
    expect(back.headers.get('content-type')).toBe('application/pdf');
    expect(back.headers.get('content-disposition')).toBe('attachment; filename="kyc-back.pdf"');
    expect(back.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    await back.arrayBuffer();
  });

  it('another user gets 403, a caller without x-user-id 401', async () => {
    const other = await h.getDocument(userId, 'front', {
      userId: `user-${randomUUID()}`,
      role: 'subscriber',
    });
    expect(other.status).toBe(403);
    expect(await other.json()).toEqual({ message: 'Not authorized to view this document' });
    const author = await h.getDocument(userId, 'back', { userId: 'someone', role: 'author' });
    expect(author.status).toBe(403);
    await author.arrayBuffer();
    const anonymous = await h.getDocument(userId, 'front', {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: 'Not authorized, please login' });
  });

  it('unknown users and sides are 404', async () => {
    const none = await h.getDocument('nobody', 'front', { userId: 'admin-1', role: 'admin' });
    expect(none.status).toBe(404);
    await none.arrayBuffer();
    const side = await h.getDocument(userId, 'selfie', { userId });
    expect(side.status).toBe(404);
    await side.arrayBuffer();
  });
});

describe('the internal token', () => {
  it('a missing or wrong x-internal-token is 401 on every route', async () => {
    for (const token of [null, 'wrong-token', '']) {
      const up = await h.upload(userId, { front: SAMPLES.png, back: SAMPLES.png }, { token });
      expect(up).toEqual({ status: 401, body: { message: 'Unauthorized' } });
      const doc = await h.getDocument(userId, 'front', { userId, token });
      expect(doc.status).toBe(401);
      await doc.arrayBuffer();
    }
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Not Submitted');
  });
});

describe('UserDeleted (identity)', () => {
  it('erases the files and the case; the same event delivered twice has one effect', async () => {
    await uploadOk();
    const otherUser = `user-${randomUUID()}`;
    await uploadOk(otherUser);
    expect(kycFiles()).toHaveLength(4);

    const [deleted] = await h.publishIdentity([
      { type: 'UserDeleted', data: { userId, deletedBy: 'admin-1' } },
    ]);
    await waitFor(() => h.identityConsumed(), 'UserDeleted consumed');
    expect(kycFiles()).toHaveLength(2);
    expect(await h.handle.documents.list(userId)).toEqual([]);
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Not Submitted');
    expect((await h.call('listPending', h.asAdmin())).pendingUsers.map((p) => p.userId)).toEqual([otherUser]);
    const doc = await h.getDocument(userId, 'front', { userId: 'admin-1', role: 'admin' });
    expect(doc.status).toBe(404);
    await doc.arrayBuffer();

    // redelivery of the very same event (same id): no second effect, even on documents uploaded since
    await uploadOk(userId);
    await h.publishStored([deleted!]);
    await waitFor(() => h.identityConsumed(), 'redelivered UserDeleted consumed');
    expect(await h.handle.documents.list(userId)).toHaveLength(2);
    expect((await h.call('getStatus', { userId })).kycStatus).toBe('Pending');
    const stream = await h.store.readStream(`kyc-${userId}`);
    expect(stream.events.filter((e) => e.type === 'KycCaseErased')).toHaveLength(1);
    expect(await h.handle.documents.list(otherUser)).toHaveLength(2);
  });
});
