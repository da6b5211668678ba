/** The document bytes the admin's KYC queue links to, for one user (none when the user is not pending). */
import { expect } from 'vitest';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';

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
