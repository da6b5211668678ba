/**
 * KYC in tests: the two images a test user uploads, the upload as the SPA sends it, the wait for a KYC status
 * on getUser, the admin's approval, and the document bytes the admin's queue links to.
 */
import { expect } from 'vitest';
import { testPng } from '@meridian/platform/testing/testImage';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { Account } from './composition.js';
import type { HttpSession } from './httpSession.js';

/** A real PNG and a second, different image (the kyc service checks magic bytes and dimensions). */
export const KYC_FRONT = testPng();
export const KYC_BACK = Buffer.concat([KYC_FRONT, Buffer.from('back side')]);

/** The documents of an upload and the file names the browser gives them. */
export interface KycFiles {
  front: Buffer;
  back: Buffer;
  frontName: string;
  backName: string;
}

/** How long a wait for a KYC status polls (5 s by default) and what its timeout says. */
export interface KycWait {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

const sessionOf = (who: Account | HttpSession): HttpSession => ('browser' in who ? who.browser : who);

/**
 * POST api/users/uploadKycDocuments as the SPA sends it: a multipart form with `front` and `back` PNGs
 * (KYC_FRONT as front.png and KYC_BACK as back.png unless `files` says otherwise); the answer.
 */
export function uploadKyc(who: Account | HttpSession, files: Partial<KycFiles> = {}) {
  const { front = KYC_FRONT, back = KYC_BACK, frontName = 'front.png', backName = 'back.png' } = files;
  const form = new FormData();
  form.append('front', new Blob([new Uint8Array(front)], { type: 'image/png' }), frontName);
  form.append('back', new Blob([new Uint8Array(back)], { type: 'image/png' }), backName);
  return sessionOf(who).postForm('/api/users/uploadKycDocuments', form);
}

/** Waits, polling as `wait` says, until getUser in `who`'s session shows the KYC status `status`. */
export async function waitForKycStatus(
  who: Account | HttpSession,
  status: 'Pending' | 'Approved',
  wait: KycWait = {},
): Promise<void> {
  await waitFor(async () => (await sessionOf(who).get('/api/users/getUser')).body.kycStatus === status, {
    message: `kyc ${status} on getUser`,
    ...wait,
  });
}

/**
 * The admin approves the account's KYC case (answers 200), then waits, polling as `wait` says, until the
 * account's getUser reads Approved.
 */
export async function approveKyc(admin: HttpSession, account: Account, wait: KycWait = {}): Promise<void> {
  expect((await admin.patch(`/api/users/kyc/approve/${account.id}`)).status).toBe(200);
  await waitForKycStatus(account, 'Approved', wait);
}

/** The account uploads KYC_FRONT and KYC_BACK; the upload answers 200. */
async function uploadAccepted(account: Account): Promise<void> {
  const uploaded = await uploadKyc(account);
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
}

/** The account uploads KYC_FRONT and KYC_BACK (answers 200), then waits until its KYC status reads Pending. */
export async function submitKyc(account: Account, wait: KycWait = {}): Promise<void> {
  await uploadAccepted(account);
  await waitForKycStatus(account, 'Pending', wait);
}

/** The account uploads KYC_FRONT and KYC_BACK (answers 200) and the admin approves them (approveKyc). */
export async function uploadAndApproveKyc(
  admin: HttpSession,
  account: Account,
  wait: KycWait = {},
): Promise<void> {
  await uploadAccepted(account);
  await approveKyc(admin, account, wait);
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
