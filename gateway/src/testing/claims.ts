/**
 * Review claims in tests (gateway/src/live/claims.ts): the SPA claims an item when the admin opens it; a
 * decision on an item nobody holds claims it by itself, so only specs of the claim rules call these.
 */
import type { HttpResult, HttpSession } from './httpSession.js';

export type ClaimKind = 'deposit' | 'investment' | 'withdrawal' | 'kyc';

/** POST api/admin/claims: claims (or renews) the item for the session's admin. */
export function claimItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('POST', '/api/admin/claims', { body: { kind, id } });
}

/** POST api/admin/claims/:kind/:id/takeover. */
export function takeOverItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('POST', `/api/admin/claims/${kind}/${encodeURIComponent(id)}/takeover`);
}

/** DELETE api/admin/claims/:kind/:id. */
export function releaseItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('DELETE', `/api/admin/claims/${kind}/${encodeURIComponent(id)}`);
}
