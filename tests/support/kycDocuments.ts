/**
 * KYC documents in tests: the upload that waits until the case is Pending (on the gateway's uploadKyc), and
 * the bytes the admin's queue links to.
 */
import { expect } from 'vitest';
import { uploadKyc, waitForKycStatus, type KycWait } from '@meridian/gateway/testing/kyc';
import type { Account } from '@meridian/gateway/testing/composition';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';

export { KYC_BACK, KYC_FRONT } from '@meridian/gateway/testing/kyc';

/**
 * Uploads KYC_FRONT and KYC_BACK as the account's documents (the upload answers 200), then waits, polling as
 * `wait` says, until the account's KYC status reads Pending.
 */
export async function uploadKycDocuments(
  account: Account,
  wait: KycWait & { timeoutMs: number },
): Promise<void> {
  const res = await uploadKyc(account);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await waitForKycStatus(account, 'Pending', wait);
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
