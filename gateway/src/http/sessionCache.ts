/**
 * The gateway's short-lived cache of principals (the answer of identity's Authenticate), per session
 * token, so that an authenticated request costs no Authenticate call while its session is known good.
 *
 * Revocation stays immediate: identity announces every revocation (a session, or all of a user's) on
 * the revocation feed, and the cache drops matching entries on receipt. Against the races an attacker
 * would try:
 * - a fill racing a revocation (Authenticate answered OK just before the revocation, the answer arrives
 *   after the announcement): every fill carries a ticket taken BEFORE the call; a revocation of its
 *   session or of its user (or impersonator) seen since the ticket refuses the fill;
 * - a lost announcement (Redis down, reconnecting): nothing is cached while the feed is not live,
 *   everything is forgotten when it stops being live, and a ticket from before refuses its fill;
 * - an entry outliving its token: an entry never outlives the token's own `exp` (which is also when an
 *   impersonation ends, 30 min after it started), nor `ttlMs` (the bound if all else failed).
 * Refusals are never cached; a refreshed token is not stored (the cookie is replaced once, on the miss).
 */
import type { Principal } from '@meridian/proto/meridian/identity/v1/identity';
import type { RevocationFeed, SessionRevocation } from '../sessionRevocations.js';

export const SESSION_CACHE_TTL_MS = 5_000;
export const SESSION_CACHE_MAX_ENTRIES = 10_000;

export interface FillTicket {
  readonly seq: number;
  readonly epoch: number;
  readonly at: number;
  readonly live: boolean;
}

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/** A JWT's `exp` in ms (read only after identity has verified the token), or null. */
export function tokenExpiryMs(token: string): number | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const exp: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** `s:<sid>` / `u:<userId>` -> the tokens whose entries a revocation of it drops (a revocation reads only these). */
  private readonly tokensOf = new Map<string, Set<string>>();
  /** `s:<sid>` / `u:<userId>` -> the seq and time of its last revocation (kept `retentionMs`). */
  private readonly revoked = new Map<string, { seq: number; at: number }>();
  private seq = 0;
  /** Bumped whenever announcements may have been lost: every older ticket is void. */
  private epoch = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: RevocationFeed,
    private readonly options: {
      ttlMs?: number;
      maxEntries?: number;
      /** How long a revocation is remembered for racing fills; a fill whose call took longer is refused. */
      retentionMs: number;
      now?: () => number;
    },
  ) {
    this.unsubscribe = feed.subscribe({
      revoked: (r) => this.revoke(r),
      lost: () => this.forgetAll(),
    });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached principal of `token`, if still within its bounds. */
  get(token: string): Principal | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (this.now() >= e.expiresAt || !this.feed.live()) {
      this.drop(token);
      return undefined;
    }
    return e.principal;
  }

  /** Taken before asking identity. */
  ticket(): FillTicket {
    return { seq: this.seq, epoch: this.epoch, at: this.now(), live: this.feed.live() };
  }

  /** Caches identity's answer for `token` unless anything in the ticket's window says otherwise. */
  put(token: string, principal: Principal, ticket: FillTicket): boolean {
    const now = this.now();
    if (!ticket.live || !this.feed.live() || ticket.epoch !== this.epoch) return false;
    if (now - ticket.at >= this.options.retentionMs) return false;
    if (ticket.seq !== this.seq) {
      for (const key of keysOf(principal)) {
        const r = this.revoked.get(key);
        if (r && r.seq > ticket.seq) return false;
      }
    }
    const exp = tokenExpiryMs(token);
    if (exp === null) return false;
    const expiresAt = Math.min(now + (this.options.ttlMs ?? SESSION_CACHE_TTL_MS), exp);
    if (expiresAt <= now) return false;
    this.drop(token);
    while (this.entries.size >= (this.options.maxEntries ?? SESSION_CACHE_MAX_ENTRIES)) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    const cached = { ...principal, refreshedSessionToken: '' };
    this.entries.set(token, { principal: cached, expiresAt });
    for (const key of keysOf(cached)) {
      let tokens = this.tokensOf.get(key);
      if (!tokens) this.tokensOf.set(key, (tokens = new Set()));
      tokens.add(token);
    }
    return true;
  }

  /** Removes the entry of `token` and its index rows. */
  private drop(token: string): void {
    const e = this.entries.get(token);
    if (!e) return;
    this.entries.delete(token);
    for (const key of keysOf(e.principal)) {
      const tokens = this.tokensOf.get(key);
      tokens?.delete(token);
      if (tokens?.size === 0) this.tokensOf.delete(key);
    }
  }

  /** Drops every entry of the session, or of the user (as user or as impersonating admin). */
  revoke(r: SessionRevocation): void {
    const now = this.now();
    const key = 'sid' in r ? `s:${r.sid}` : `u:${r.uid}`;
    this.seq++;
    this.revoked.set(key, { seq: this.seq, at: now });
    for (const [k, v] of this.revoked) if (now - v.at > this.options.retentionMs) this.revoked.delete(k);
    for (const token of [...(this.tokensOf.get(key) ?? [])]) this.drop(token);
  }

  forgetAll(): void {
    this.epoch++;
    this.entries.clear();
    this.tokensOf.clear();
  }

  /** How many revocation keys the index holds (tests: it never outgrows the entries). */
  get indexedKeys(): number {
    return this.tokensOf.size;
  }

  close(): void {
    this.unsubscribe();
    this.forgetAll();
  }
}

function keysOf(p: Principal): string[] {
  const keys = [`s:${p.sessionId}`, `u:${p.userId}`];
  if (p.impersonatorId) keys.push(`u:${p.impersonatorId}`);
  return keys;
}
