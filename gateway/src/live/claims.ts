/**
 * Claim locks on the admin queues: opening a pending deposit, investment, withdrawal or
 * KYC submission claims it for that admin; every other admin sees "being reviewed by <name>" live and
 * cannot decide it; the server refuses a decision from an admin who does not hold the claim.
 *
 * Rules:
 * - A claim is one key in the KeyValueStore (`claim:<kind>:<id>`: Redis when the gateway has REDIS_URL, so
 *   every instance sees the same claims; memory in a single process). Every change is one compare-and-set
 *   from the value read, so two admins racing for an item get one winner, and nobody renews, hands over or
 *   releases a claim that changed under them.
 * - A claim lasts CLAIM_TTL_MS (5 minutes) from its last renewal. Claiming an item you hold renews it: the
 *   SPA does so every minute while the item is open AND the admin has used the page since the previous
 *   renewal, so an item left open untouched is released 5 minutes after the admin's last sign of life (the
 *   "5 minutes of inactivity" rule; the server cannot see the page, a scripted client can only hold an item
 *   as long as it keeps asking, and any admin can take it over).
 * - Released on a decision (after the service accepted it), on leaving the item (DELETE from the SPA on
 *   unmount and beforeunload), when the admin's last socket disconnects (claimsRealtime.ts), and by expiry.
 * - A decision on an item another admin holds → 409 `heldBy`. A decision on an item nobody holds (never
 *   claimed, released or expired) claims it and marks it deciding in one compare-and-set, recorded in the
 *   claim's history as `claimed` with `byDecision`: the lock keeps admins from deciding one item together, and
 *   a client that knows only the spec's decision calls never needs a claims route.
 *   While the decision runs the claim is marked `deciding` (at most DECIDING_MS): a takeover is refused then,
 *   so nobody takes over an item whose decision is being recorded. A decision the service could not answer
 *   (5xx) keeps the claim for a retry; one it refused (the admin's own request, not found, already decided)
 *   releases it, since this admin cannot decide the item.
 * - Another admin may take a claim over explicitly: recorded in the claim's history (returned by the API),
 *   as a structured log line `ClaimTakenOver`, and as an entry of the audit trail (claimsRoutes.ts asks
 *   identity to record it: who, from whom, which item, when, from which address).
 * - Validity is judged by the claim's own expiry against `now()` (injectable), so expiry is testable without
 *   waiting; the key's ttl in the store only cleans up.
 */
import { WriteConflict } from '@meridian/platform/eventSourcing/errors';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { retryAfterConflict } from '@meridian/platform/util/async';
import { isSealed, type PersonalData } from '@meridian/platform/personalData';
import type { GatewayLogger } from '../logger.js';
import { HttpError, toHttpError } from '../http/errors.js';
import type { ReviewClaim, StatusKind } from './pushContract.js';

export const CLAIM_TTL_MS = 5 * 60_000;
/** The longest a decision may keep a claim from being taken over (above the gRPC deadline). */
export const DECIDING_MS = 60_000;
/** How often the SPA renews the claim of an open item the admin is using. */
export const CLAIM_RENEW_MS = 60_000;
const HISTORY_MAX = 20;

export type ClaimKind = StatusKind;
export const CLAIM_KINDS: readonly ClaimKind[] = ['deposit', 'investment', 'withdrawal', 'kyc', 'support'];

export const CLAIM_MESSAGES = {
  claimed: 'Claimed',
  released: 'Released',
  takenOver: 'Taken over',
  heldBy: (name: string) => `This item is being reviewed by ${name}`,
  deciding: (name: string) => `${name} is recording a decision on this item`,
  kind: 'kind must be one of deposit, investment, withdrawal, kyc, support',
  invalidId: 'Invalid id',
  busy: 'The claim changed meanwhile, please try again',
} as const;

export interface ClaimAdmin {
  id: string;
  name: string;
}

export type ClaimHistoryEntry = ReviewClaim['history'][number];

/** What the store holds (times in ms since the epoch). */
interface StoredClaim {
  kind: ClaimKind;
  id: string;
  adminId: string;
  adminName: string;
  claimedAt: number;
  /** Claimed, renewed or taken over last. */
  renewedAt: number;
  expiresAt: number;
  /** A decision by the holder is running until then (0: none). */
  decidingUntil: number;
  history: ClaimHistoryEntry[];
}

export interface ClaimChange {
  kind: ClaimKind;
  id: string;
  claim: ReviewClaim | null;
}

export interface Claims {
  /** Every live claim. */
  list(): Promise<ReviewClaim[]>;
  get(kind: ClaimKind, id: string): Promise<ReviewClaim | null>;
  /** Claims the item, or renews the caller's own claim; 409 when another admin holds it. */
  claim(kind: ClaimKind, id: string, admin: ClaimAdmin): Promise<ReviewClaim>;
  /** Releases the caller's claim; false when the caller did not hold it (nothing changes). */
  release(kind: ClaimKind, id: string, adminId: string): Promise<boolean>;
  /**
   * Takes the item over from whoever holds it (recorded); 409 while a decision on it is running.
   * `takenOverFrom`: the admin it was taken from (absent: nobody else held it, so it was simply claimed).
   */
  takeOver(
    kind: ClaimKind,
    id: string,
    admin: ClaimAdmin,
  ): Promise<ReviewClaim & { takenOverFrom?: ClaimAdmin }>;
  /**
   * Runs `decision` when `admin` holds the claim or nobody does (then it is claimed in the same step); 409 when
   * another admin holds it. Releases the claim when the decision succeeds.
   */
  decide<T>(kind: ClaimKind, id: string, admin: ClaimAdmin, decision: () => Promise<T>): Promise<T>;
  /**
   * Releases every claim `adminId` holds and is not deciding (their last socket went away), except those
   * (re)claimed after `renewedBefore` (a reloaded page claimed again before its old socket was seen to go).
   */
  releaseAllOf(adminId: string, renewedBefore?: number): Promise<number>;
  /** Called after every change this instance makes (claimed, renewed, taken over, released). */
  onChange(listener: (change: ClaimChange) => void): () => void;
}

export interface ClaimsOptions {
  kv: KeyValueStore;
  /** Seals each claim record with its admin's key (the admin's name is personal data); absent: as it is. */
  personalData?: PersonalData;
  logger: GatewayLogger;
  now?: () => number;
  ttlMs?: number;
}

const INDEX = 'claims:index';
const keyOf = (kind: ClaimKind, id: string) => `claim:${kind}:${id}`;
const indexMember = (kind: ClaimKind, id: string) => `${kind}:${id}`;

export function isClaimKind(v: unknown): v is ClaimKind {
  return typeof v === 'string' && (CLAIM_KINDS as readonly string[]).includes(v);
}

function parse(raw: string | null): StoredClaim | null {
  if (raw === null) return null;
  try {
    const c = JSON.parse(raw) as StoredClaim;
    return typeof c?.adminId === 'string' && typeof c.expiresAt === 'number' ? c : null;
  } catch {
    return null;
  }
}

/**
 * The claim records as the key-value store keeps them (Redis may persist them): sealed with the key of the
 * admin who holds the claim, opened when read; a record whose admin was deleted reads as no claim.
 */
function sealedRecords(kv: KeyValueStore, pd: PersonalData): Pick<KeyValueStore, 'get' | 'compareAndSet'> {
  const plainOf = async (stored: string | null) =>
    stored === null || !isSealed(stored) ? stored : pd.openOrNull(stored);
  return {
    get: async (key) => plainOf(await kv.get(key)),
    async compareAndSet(key, expected, next, ttlMs) {
      const stored = await kv.get(key);
      if ((await plainOf(stored)) !== expected) return false;
      const owner = next === null ? null : (parse(next)?.adminId ?? null);
      const sealed = next === null || owner === null ? next : await pd.seal(owner, next);
      return kv.compareAndSet(key, stored, sealed, ttlMs);
    },
  };
}

export function createClaims(options: ClaimsOptions): Claims {
  const { logger } = options;
  const inner = options.kv;
  const kv: Pick<KeyValueStore, 'get' | 'compareAndSet' | 'sadd' | 'srem' | 'smembers'> = options.personalData
    ? {
        ...sealedRecords(inner, options.personalData),
        sadd: (key, member, ttlMs) => inner.sadd(key, member, ttlMs),
        srem: (key, member) => inner.srem(key, member),
        smembers: (key) => inner.smembers(key),
      }
    : inner;
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? CLAIM_TTL_MS;
  const listeners = new Set<(change: ClaimChange) => void>();

  const live = (c: StoredClaim | null, t: number): StoredClaim | null =>
    c && (c.expiresAt > t || c.decidingUntil > t) ? c : null;

  const view = (c: StoredClaim, t: number): ReviewClaim => ({
    kind: c.kind,
    id: c.id,
    adminId: c.adminId,
    adminName: c.adminName,
    claimedAt: new Date(c.claimedAt).toISOString(),
    expiresInMs: Math.max(0, Math.max(c.expiresAt, c.decidingUntil) - t),
    history: c.history,
  });

  const emit = (kind: ClaimKind, id: string, claim: StoredClaim | null, t: number) => {
    const change: ClaimChange = { kind, id, claim: claim ? view(claim, t) : null };
    for (const l of listeners) {
      try {
        l(change);
      } catch (err) {
        logger.warn({ err }, 'claim change listener failed');
      }
    }
  };

  /**
   * Reads the claim, lets `step` decide what it becomes (undefined: leave it; null: delete it) and writes
   * that with one compare-and-set from the value read, again from the top when it changed meanwhile.
   * `step` may throw (a refusal). Returns what is stored afterwards.
   */
  async function update(
    kind: ClaimKind,
    id: string,
    step: (current: StoredClaim | null, t: number) => StoredClaim | null | undefined,
  ): Promise<{ claim: StoredClaim | null; changed: boolean }> {
    const key = keyOf(kind, id);
    const attempt = async () => {
      const raw = await kv.get(key);
      const t = now();
      const current = live(parse(raw), t);
      const next = step(current, t);
      if (next === undefined) return { claim: current, changed: false };
      if (next === null && raw === null) return { claim: null, changed: current !== null };
      const ttl = next ? Math.max(next.expiresAt, next.decidingUntil) - t : undefined;
      if (!(await kv.compareAndSet(key, raw, next ? JSON.stringify(next) : null, ttl)))
        throw new WriteConflict(`claim ${key} changed meanwhile`);
      if (next) await kv.sadd(INDEX, indexMember(kind, id), 2 * ttlMs);
      else await kv.srem(INDEX, indexMember(kind, id));
      emit(kind, id, next, t);
      return { claim: next, changed: true };
    };
    try {
      return await retryAfterConflict(8, attempt);
    } catch (err) {
      throw err instanceof WriteConflict ? new HttpError(409, CLAIM_MESSAGES.busy) : err;
    }
  }

  const fresh = (
    kind: ClaimKind,
    id: string,
    admin: ClaimAdmin,
    t: number,
    history: ClaimHistoryEntry[],
  ) => ({
    kind,
    id,
    adminId: admin.id,
    adminName: admin.name,
    claimedAt: t,
    renewedAt: t,
    expiresAt: t + ttlMs,
    decidingUntil: 0,
    history: history.slice(-HISTORY_MAX),
  });

  async function get(kind: ClaimKind, id: string) {
    const t = now();
    const c = live(parse(await kv.get(keyOf(kind, id))), t);
    return c ? view(c, t) : null;
  }

  return {
    get,
    async list() {
      const members = await kv.smembers(INDEX);
      const out: ReviewClaim[] = [];
      await Promise.all(
        members.map(async (m) => {
          const i = m.indexOf(':');
          const kind = m.slice(0, i);
          if (!isClaimKind(kind)) return void (await kv.srem(INDEX, m));
          const c = await get(kind, m.slice(i + 1));
          if (c) out.push(c);
          else await kv.srem(INDEX, m);
        }),
      );
      return out.sort((a, b) => a.claimedAt.localeCompare(b.claimedAt));
    },

    async claim(kind, id, admin) {
      const { claim } = await update(kind, id, (c, t) => {
        if (c && c.adminId !== admin.id) throw new HttpError(409, CLAIM_MESSAGES.heldBy(c.adminName));
        if (c) return { ...c, renewedAt: t, expiresAt: t + ttlMs };
        return fresh(kind, id, admin, t, [
          { action: 'claimed', adminId: admin.id, adminName: admin.name, at: new Date(t).toISOString() },
        ]);
      });
      return view(claim!, now());
    },

    async release(kind, id, adminId) {
      const { changed } = await update(kind, id, (c, t) =>
        c && c.adminId === adminId && c.decidingUntil <= t ? null : undefined,
      );
      return changed;
    },

    async takeOver(kind, id, admin) {
      let from: StoredClaim | null = null;
      const { claim } = await update(kind, id, (c, t) => {
        from = c;
        if (c && c.decidingUntil > t && c.adminId !== admin.id)
          throw new HttpError(409, CLAIM_MESSAGES.deciding(c.adminName));
        if (c && c.adminId === admin.id) return { ...c, renewedAt: t, expiresAt: t + ttlMs };
        const at = new Date(t).toISOString();
        const entry: ClaimHistoryEntry = c
          ? {
              action: 'takenOver',
              adminId: admin.id,
              adminName: admin.name,
              fromAdminId: c.adminId,
              fromAdminName: c.adminName,
              at,
            }
          : { action: 'claimed', adminId: admin.id, adminName: admin.name, at };
        return fresh(kind, id, admin, t, [...(c?.history ?? []), entry]);
      });
      const previous = from as StoredClaim | null;
      if (previous && previous.adminId !== admin.id)
        logger.info(
          {
            event: 'ClaimTakenOver',
            kind,
            id,
            adminId: admin.id,
            fromAdminId: previous.adminId,
          },
          'admin claim taken over',
        );
      const answer = view(claim!, now());
      return previous && previous.adminId !== admin.id
        ? { ...answer, takenOverFrom: { id: previous.adminId, name: previous.adminName } }
        : answer;
    },

    async decide(kind, id, admin, decision) {
      await update(kind, id, (c, t) => {
        if (c && c.adminId !== admin.id) throw new HttpError(409, CLAIM_MESSAGES.heldBy(c.adminName));
        if (c) return { ...c, decidingUntil: t + DECIDING_MS };
        // nobody holds it: claimed and marked deciding in the same compare-and-set
        const entry: ClaimHistoryEntry = {
          action: 'claimed',
          adminId: admin.id,
          adminName: admin.name,
          at: new Date(t).toISOString(),
          byDecision: true,
        };
        return { ...fresh(kind, id, admin, t, [entry]), decidingUntil: t + DECIDING_MS };
      });
      let result: Awaited<ReturnType<typeof decision>>;
      try {
        result = await decision();
      } catch (err) {
        // the service could not answer: the holder keeps the item and may try again; it answered (own
        // request, not found, already decided…): this admin cannot decide the item, so others may
        const keep = toHttpError(err).status >= 500;
        await update(kind, id, (c) =>
          c && c.adminId === admin.id ? (keep ? { ...c, decidingUntil: 0 } : null) : undefined,
        ).catch((e: unknown) =>
          logger.warn({ err: e, kind, id }, 'claim: clearing the decision mark failed'),
        );
        throw err;
      }
      await update(kind, id, (c) => (c && c.adminId === admin.id ? null : undefined)).catch((e: unknown) =>
        logger.warn({ err: e, kind, id }, 'claim: release after the decision failed'),
      );
      return result;
    },

    async releaseAllOf(adminId, renewedBefore = Infinity) {
      let n = 0;
      for (const c of await this.list()) {
        if (c.adminId !== adminId) continue;
        const { changed } = await update(c.kind, c.id, (cur, t) =>
          cur && cur.adminId === adminId && cur.decidingUntil <= t && (cur.renewedAt ?? 0) <= renewedBefore
            ? null
            : undefined,
        );
        if (changed) n++;
      }
      return n;
    },

    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
