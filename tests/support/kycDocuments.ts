/** KYC documents in tests: the two images a test user uploads, the upload, and the bytes the admin's queue links to. */
import { expect } from 'vitest';
import { testPng } from '@meridian/platform/testing/testImage';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { Account } from '@meridian/gateway/testing/composition';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';

/** A real PNG and a second, different image (the kyc service checks magic bytes and dimensions). */
export const KYC_FRONT = testPng();
export const KYC_BACK = Buffer.concat([KYC_FRONT, Buffer.from('back side')]);

/**
 * Uploads KYC_FRONT and KYC_BACK as the account's documents (the upload answers 200), then waits, polling as
 * `wait` says, until the account's KYC status reads Pending.
 */
export async function uploadKycDocuments(
  account: Account,
  wait: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  const form = new FormData();
  form.append('front', new Blob([new Uint8Array(KYC_FRONT)], { type: 'image/png' }), 'front.png');
  form.append('back', new Blob([new Uint8Array(KYC_BACK)], { type: 'image/png' }), 'back.png');
  const res = await account.browser.postForm('/api/users/uploadKycDocuments', form);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await waitFor(async () => (await account.browser.get('/api/users/getUser')).body.kycStatus === 'Pending', {
    ...wait,
    message: 'KYC status Pending',
  });
}

/** The document bytes the admin's KYC queue links to, for one user (none when the user is not pending). */
export async function kycDocumentsOf(admin: HttpSession, userId: string): Promise<Buffer[]> {
  const pending = await admin.get('/api/users/kyc/pending');
  expect(pending.status).toBe(200);
  const item = (pending.body.pendingUsers as Array<Record<string, any>>).find((p) => p._id === userId);
  if (!item) return [];
  const out: Buffer[] = [];
  for (const link of [item.kyc.frontDoc, item.kyc.backDoc] as string[]) {
    const res = await fetch(new URL(link, admin.baseUrl), { headers: { cookie: admin.cookieHeader() } });
    expect(res.status, link).toBe(200);
    out.push(Buffer.from(await res.arrayBuffer()));
  }
  return out;
}
