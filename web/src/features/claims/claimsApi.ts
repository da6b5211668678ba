import { api } from '../../app/apiClient';
import type { ReviewClaim, StatusKind } from '../live/pushContract';

export type ClaimKind = StatusKind;
export type { ReviewClaim };

const enc = encodeURIComponent;
const claimOf = (data: unknown): ReviewClaim | null =>
  (data as { claim?: ReviewClaim } | null)?.claim ?? null;

/** The review claims of the admin queues (gateway/src/live/claims.ts). */
export const claimsApi = {
  /** GET api/admin/claims -> { claims }. */
  async list(): Promise<ReviewClaim[]> {
    return ((await api.get('admin/claims')).data as { claims?: ReviewClaim[] })?.claims ?? [];
  },
  /** POST api/admin/claims { kind, id } -> { claim }: claims the item or renews our claim (409: held). */
  async claim(kind: ClaimKind, id: string): Promise<ReviewClaim | null> {
    return claimOf((await api.post('admin/claims', { kind, id })).data);
  },
  /** POST api/admin/claims/{kind}/{id}/takeover -> { claim }. */
  async takeOver(kind: ClaimKind, id: string): Promise<ReviewClaim | null> {
    return claimOf((await api.post(`admin/claims/${kind}/${enc(id)}/takeover`)).data);
  },
  /** DELETE api/admin/claims/{kind}/{id}. */
  async release(kind: ClaimKind, id: string): Promise<void> {
    await api.delete(`admin/claims/${kind}/${enc(id)}`);
  },
  /** The same release while the page unloads: a keepalive request outlives the page. */
  releaseOnUnload(kind: ClaimKind, id: string): void {
    const xsrf = document.cookie
      .split('; ')
      .find((c) => c.startsWith('XSRF-TOKEN='))
      ?.slice('XSRF-TOKEN='.length);
    void fetch(`/api/admin/claims/${kind}/${enc(id)}`, {
      method: 'DELETE',
      keepalive: true,
      credentials: 'same-origin',
      headers: xsrf ? { 'X-XSRF-TOKEN': decodeURIComponent(xsrf) } : {},
    }).catch(() => undefined);
  },
};

/**
 * A decision on a queue item, made with the item's claim: claims it first (the open item normally holds it
 * already; this renews it, or takes it again after it ran out). Held by another admin: that refusal is
 * the answer; a claim that failed otherwise leaves the decision to answer.
 */
export async function decideWithClaim<T>(kind: ClaimKind, id: string, decide: () => Promise<T>): Promise<T> {
  try {
    await claimsApi.claim(kind, id);
  } catch (e) {
    if ((e as { response?: { status?: number } })?.response?.status === 409) throw e;
  }
  return decide();
}
