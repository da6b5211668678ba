/**
 * Review claims in tests (gateway/src/live/claims.ts): a decision on a queue item needs the deciding admin's
 * claim. The SPA claims an item when the admin opens it; HttpSession does the same before every decision
 * it sends (unless made with `{ claimBeforeDeciding: false }`), so specs of the decisions' own rules go on
 * reaching the services.
 */
import type { HttpResult, HttpSession } from './httpSession.js';

export type ClaimKind = 'deposit' | 'investment' | 'withdrawal' | 'kyc';

const DECISIONS: Array<{ method: string; path: RegExp; kind: ClaimKind; from: 'path' | 'transactionId' }> = [
  {
    method: 'PATCH',
    path: /^\/api\/payments\/(?:confirm|reject)Payment$/,
    kind: 'deposit',
    from: 'transactionId',
  },
  { method: 'PUT', path: /^\/api\/invest\/([^/]+)\/(?:approve|reject)$/, kind: 'investment', from: 'path' },
  { method: 'PUT', path: /^\/api\/withDraw\/(?:approve|reject)\/([^/]+)$/, kind: 'withdrawal', from: 'path' },
  { method: 'PATCH', path: /^\/api\/users\/kyc\/(?:approve|reject)\/([^/]+)$/, kind: 'kyc', from: 'path' },
];

/** The item a request decides (a deposit, investment, withdrawal or KYC decision), else null. */
export function decisionClaimOf(
  method: string,
  path: string,
  body: unknown,
): { kind: ClaimKind; id: string } | null {
  const pathname = new URL(path, 'http://x').pathname;
  for (const d of DECISIONS) {
    if (d.method !== method.toUpperCase()) continue;
    const m = d.path.exec(pathname);
    if (!m) continue;
    if (d.from === 'path') return { kind: d.kind, id: decodeURIComponent(m[1]!) };
    const id = (body as { transactionId?: unknown } | null | undefined)?.transactionId;
    return typeof id === 'string' && id ? { kind: d.kind, id } : null;
  }
  return null;
}

/** POST api/admin/claims: claims (or renews) the item for the session's admin. */
export function claimItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('POST', '/api/admin/claims', { body: { kind, id }, claimBeforeDeciding: false });
}

/** POST api/admin/claims/:kind/:id/takeover. */
export function takeOverItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('POST', `/api/admin/claims/${kind}/${encodeURIComponent(id)}/takeover`, {
    claimBeforeDeciding: false,
  });
}

/** DELETE api/admin/claims/:kind/:id. */
export function releaseItem(admin: HttpSession, kind: ClaimKind, id: string): Promise<HttpResult> {
  return admin.request('DELETE', `/api/admin/claims/${kind}/${encodeURIComponent(id)}`, {
    claimBeforeDeciding: false,
  });
}
