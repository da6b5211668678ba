/**
 * Read models of identity, kept INLINE: written in the same transaction as the events they follow
 * (see projectInline). Pure `project*` functions plus the collection names and queries.
 *
 * - users:           UserView per user id (what getUser / listUsers answer)
 * - email-index:     the email's blind index (HMAC of canonicalEmail: case, plus-tag; UserRegistered.emailIndex)
 *                    -> { userId, email: the index } (uniqueness, login); deleted with the user
 * - referral-index:  referralCode -> { userId, referralCode }
 * - referrals:       one document per referee { referrerId, name, email, photo, createdAt }
 * - user-stats:      one document ('all'): the counters of the admin's user statistics (total, verified,
 *                    suspended; unverified = total - verified), moved by every change of a user view
 * - search-tokens:   blind prefix tokens of each user's name and email (projections/searchTokens.ts), written
 *                    on registration, rewritten on a name change, deleted with the user
 *
 * Personal values (name, email, phone, country, bio, photo) are copied as the events carry them: sealed with
 * the user's key (@meridian/platform/personalData); the use cases open them where they answer.
 *
 * Every one of them is rebuilt from the events alone (projections/rebuild.int.spec.ts): the user view
 * merges identity's own log with facts of other services' topics (projections/externalFacts.ts); each
 * field comes from one source and `updatedAt` is the latest occurredAt of both, so applying one source
 * after the other gives the same view as the live interleaving.
 */
import { domainEventOf, type StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import { decodePageCursor, encodePageCursor } from '@meridian/platform/ports/pages';
import { canonicalEmail, normalizeEmail, type UserEvent } from '../domain/user.js';
import { SEARCH_TOKEN_INDEXES, writeSearchTokens, type SearchTokenizer } from './searchTokens.js';

export const USERS = 'users';
export const EMAIL_INDEX = 'email-index';
export const REFERRAL_INDEX = 'referral-index';
export const REFERRALS = 'referrals';
export const USER_STATS = 'user-stats';
const STATS_ID = 'all';

/** The counters behind the admin's user statistics. */
export interface UserStats {
  id: string;
  total: number;
  verified: number;
  suspended: number;
}

/** What one user view counts for in the statistics (absent: nothing). */
const weightOf = (view: UserView | null) => ({
  total: view ? 1 : 0,
  verified: view?.isVerified ? 1 : 0,
  suspended: view?.role === 'suspended' ? 1 : 0,
});

/** The statistics after one user view went from `before` to `after` (pure). */
export function projectStats(stats: UserStats, before: UserView | null, after: UserView | null): UserStats {
  const b = weightOf(before);
  const a = weightOf(after);
  return {
    id: STATS_ID,
    total: stats.total + a.total - b.total,
    verified: stats.verified + a.verified - b.verified,
    suspended: stats.suspended + a.suspended - b.suspended,
  };
}

export type KycStatus = 'Not Submitted' | 'Pending' | 'Approved' | 'Rejected';

export interface UserView {
  id: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  bio: string;
  photo: string;
  role: string;
  isVerified: boolean;
  kycStatus: KycStatus;
  kycFrontDoc: string;
  kycBackDoc: string;
  balanceCents: number;
  investmentBalanceCents: number;
  totalMaturityAmountCents: number;
  referralCode: string;
  referredBy: string;
  createdAt: string;
  updatedAt: string;
  /** the key of the user's email-index entry (removed with it); '' for a view from before blind indexes */
  emailIndex?: string;
}

export interface ReferralView {
  id: string;
  referrerId: string;
  name: string;
  email: string;
  photo: string;
  createdAt: string;
}

export interface IndexEntry {
  userId: string;
}

/** The later of two ISO instants: a view's updatedAt does not depend on the order its sources are applied in. */
export const later = (a: string, b: string): string => (a > b ? a : b);

/** The user view after one of the User events (null: no view / removed). */
export function projectUser(view: UserView | null, event: StoredEvent<UserEvent>): UserView | null {
  const at = event.occurredAt;
  const e = domainEventOf(event);
  switch (e.type) {
    case 'UserRegistered': {
      const d = e.data;
      return {
        id: d.userId,
        name: d.name,
        email: d.email,
        phone: d.phone,
        country: d.country,
        bio: '',
        photo: '',
        role: d.role,
        isVerified: false,
        kycStatus: 'Not Submitted',
        kycFrontDoc: '',
        kycBackDoc: '',
        balanceCents: 0,
        investmentBalanceCents: 0,
        totalMaturityAmountCents: 0,
        referralCode: d.referralCode,
        referredBy: d.referredBy,
        createdAt: d.registeredAt,
        updatedAt: at,
        ...(d.emailIndex ? { emailIndex: d.emailIndex } : {}),
      };
    }
    case 'UserVerified':
      return view && { ...view, isVerified: true, updatedAt: later(view.updatedAt, at) };
    case 'RoleChanged': {
      const d = e.data;
      return view && { ...view, role: d.toRole, updatedAt: later(view.updatedAt, at) };
    }
    case 'ProfileUpdated': {
      const d = e.data;
      if (!view) return view;
      const next = { ...view, updatedAt: later(view.updatedAt, at) };
      for (const f of d.fields) {
        if (f === 'name' || f === 'phone' || f === 'bio' || f === 'country' || f === 'photo') next[f] = d[f];
      }
      return next;
    }
    case 'UserDeleted':
      return null;
    default:
      return view;
  }
}

/** The referral document of a referee after one of the referee's events. */
export function projectReferral(
  doc: ReferralView | null,
  event: StoredEvent<UserEvent>,
): ReferralView | null {
  const e = domainEventOf(event);
  switch (e.type) {
    case 'UserRegistered': {
      const d = e.data;
      if (!d.referredBy) return null;
      return {
        id: d.userId,
        referrerId: d.referredBy,
        name: d.name,
        email: d.email,
        photo: '',
        createdAt: d.registeredAt,
      };
    }
    case 'ProfileUpdated': {
      const d = e.data;
      if (!doc) return doc;
      return {
        ...doc,
        name: d.fields.includes('name') ? d.name : doc.name,
        photo: d.fields.includes('photo') ? d.photo : doc.photo,
      };
    }
    case 'UserDeleted':
      return null;
    default:
      return doc;
  }
}

async function putOrDelete<T extends object>(tx: StoreTx, collection: string, id: string, doc: T | null) {
  if (doc) await tx.put(collection, id, doc);
  else await tx.delete(collection, id);
}

/**
 * The counters as stored; a store whose users predate them counts its views once (inside the transaction,
 * before this event's change), and the counters move from there.
 */
async function statsIn(tx: StoreTx): Promise<UserStats> {
  const stored = await tx.get<UserStats>(USER_STATS, STATS_ID);
  if (stored) return stored;
  return {
    id: STATS_ID,
    total: await tx.count(USERS),
    verified: await tx.count(USERS, { isVerified: true }),
    suspended: await tx.count(USERS, { role: 'suspended' }),
  };
}

/**
 * Applies freshly appended User events to every read model, inside the append's transaction. `search` hashes
 * the search tokens and opens the sealed name and email they are made of (searchTokenizerOf, app/context.ts).
 */
export async function projectInline(
  tx: StoreTx,
  events: readonly StoredEvent<UserEvent>[],
  search: SearchTokenizer,
): Promise<void> {
  for (const event of events) {
    const e = domainEventOf(event);
    const { userId } = e.data;
    const before = await tx.get<UserView>(USERS, userId);
    const after = projectUser(before, event);
    if (before !== after) {
      const stats = await statsIn(tx);
      await putOrDelete(tx, USERS, userId, after);
      const next = projectStats(stats, before, after);
      if (
        next.total !== stats.total ||
        next.verified !== stats.verified ||
        next.suspended !== stats.suspended
      )
        await tx.put<UserStats>(USER_STATS, STATS_ID, next);
    }

    if (event.type === 'UserRegistered' && after) {
      const key = after.emailIndex || canonicalEmail(after.email);
      await tx.put<IndexEntry & { email: string }>(EMAIL_INDEX, key, { userId, email: key });
      await tx.put<IndexEntry & { referralCode: string }>(REFERRAL_INDEX, after.referralCode, {
        userId,
        referralCode: after.referralCode,
      });
    }
    if (event.type === 'UserDeleted' && before) {
      // the canonical key, and the exact address for an entry written before keys were canonical
      const keys = before.emailIndex ? [before.emailIndex] : [canonicalEmail(before.email), before.email];
      for (const key of new Set(keys)) {
        if ((await tx.get<IndexEntry>(EMAIL_INDEX, key))?.userId === userId)
          await tx.delete(EMAIL_INDEX, key);
      }
      await tx.delete(REFERRAL_INDEX, before.referralCode);
    }
    if (
      event.type === 'UserRegistered' ||
      event.type === 'UserDeleted' ||
      (e.type === 'ProfileUpdated' && e.data.fields.includes('name'))
    )
      await writeSearchTokens(tx, search, userId, after);
    if (event.type === 'UserRegistered' || event.type === 'ProfileUpdated' || event.type === 'UserDeleted') {
      const ref = await tx.get<ReferralView>(REFERRALS, userId);
      const next = projectReferral(ref, event);
      if (next !== ref) await putOrDelete(tx, REFERRALS, userId, next);
    }
  }
}

// ---------- queries ----------

export const getUserView = (db: StoreReads, userId: string) => db.get<UserView>(USERS, userId);

/**
 * The account an address names: by its blind index (`index`: IdentityCrypto.emailIndex), else (entries from
 * before blind indexes) by its canonical form, else (from before keys were canonical) as typed.
 */
export async function findUserIdByEmail(
  db: StoreReads,
  email: string,
  index: (email: string) => string,
): Promise<string | null> {
  const key = canonicalEmail(email);
  const entry =
    (await db.get<IndexEntry>(EMAIL_INDEX, index(email))) ??
    (await db.get<IndexEntry>(EMAIL_INDEX, key)) ??
    (key === normalizeEmail(email) ? null : await db.get<IndexEntry>(EMAIL_INDEX, normalizeEmail(email)));
  return entry?.userId ?? null;
}

export async function findUserIdByReferralCode(db: StoreReads, code: string): Promise<string | null> {
  return (await db.get<IndexEntry>(REFERRAL_INDEX, code))?.userId ?? null;
}

export const listUserViews = (db: StoreReads) =>
  db.find<UserView>(USERS, { orderBy: { field: 'createdAt', direction: 'desc' } });

/** The indexes the users list pages on (newest first, by createdAt then id). */
export const USER_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: USERS, fields: ['createdAt'] },
  ...SEARCH_TOKEN_INDEXES,
];

/** Where a page ends: the last user's (createdAt, id), opaque to clients. */
export interface UserCursor {
  createdAt: string;
  id: string;
}

/** The platform's page cursor (platform ports/pages.ts), the one every list shares. */
export const encodeUserCursor = (c: UserCursor): string => encodePageCursor({ value: c.createdAt, id: c.id });

/** The cursor a client sent back, or null when it is not one of ours. */
export function decodeUserCursor(cursor: string): UserCursor | null {
  const c = decodePageCursor(cursor);
  return c && typeof c.value === 'string' ? { createdAt: c.value, id: c.id } : null;
}

/**
 * One page of users, newest first (createdAt, then id, descending): keyset paging, so a user added or
 * removed between two pages never makes another one repeat or go missing. `nextCursor` is empty on the last
 * page. (Names and emails are sealed: the search goes through the blind tokens, app/userSearch.ts.)
 */
export async function listUserPage(
  db: StoreReads,
  page: { limit: number; after?: UserCursor | null },
): Promise<{ users: UserView[]; nextCursor: string }> {
  const rows = await db.find<UserView>(USERS, {
    orderBy: { field: 'createdAt', direction: 'desc' },
    ...(page.after ? { after: { value: page.after.createdAt, id: page.after.id } } : {}),
    limit: page.limit + 1,
  });
  const users = rows.slice(0, page.limit);
  const last = users[users.length - 1];
  return {
    users,
    nextCursor:
      rows.length > page.limit && last ? encodeUserCursor({ createdAt: last.createdAt, id: last.id }) : '',
  };
}

/** The admin's user statistics, from the counters (never from reading the users). */
export async function getUserStats(
  db: StoreReads,
): Promise<{ total: number; verified: number; unverified: number; suspended: number }> {
  const s = (await db.get<UserStats>(USER_STATS, STATS_ID)) ?? {
    total: await db.count(USERS),
    verified: await db.count(USERS, { isVerified: true }),
    suspended: await db.count(USERS, { role: 'suspended' }),
  };
  return { total: s.total, verified: s.verified, unverified: s.total - s.verified, suspended: s.suspended };
}

export const countAdmins = (db: StoreReads) => db.count(USERS, { role: 'admin' });

export const listReferralsOf = (db: StoreReads, referrerId: string) =>
  db.find<ReferralView>(REFERRALS, {
    where: { referrerId },
    orderBy: { field: 'createdAt', direction: 'desc' },
  });
