/**
 * Read models of identity, kept INLINE: written in the same transaction as the events they follow
 * (see projectInline). Pure `project*` functions plus the collection names and queries.
 *
 * - users:           UserView per user id (what getUser / listUsers answer)
 * - email-index:     canonical email (canonicalEmail: case, plus-tag) -> { userId, email } (uniqueness, login)
 * - referral-index:  referralCode -> { userId, referralCode }
 * - referrals:       one document per referee { referrerId, name, email, photo, createdAt }
 *
 * Every one of them is rebuilt from the events alone (projections/rebuild.int.spec.ts): the user view
 * merges identity's own log with facts of other services' topics (projections/externalFacts.ts); each
 * field comes from one source and `updatedAt` is the latest occurredAt of both, so applying one source
 * after the other gives the same view as the live interleaving.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import { canonicalEmail, normalizeEmail, type UserEvent } from '../domain/user.js';

export const USERS = 'users';
export const EMAIL_INDEX = 'email-index';
export const REFERRAL_INDEX = 'referral-index';
export const REFERRALS = 'referrals';

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
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data as Extract<UserEvent, { type: 'UserRegistered' }>['data'];
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
      };
    }
    case 'UserVerified':
      return view && { ...view, isVerified: true, updatedAt: later(view.updatedAt, at) };
    case 'RoleChanged': {
      const d = event.data as Extract<UserEvent, { type: 'RoleChanged' }>['data'];
      return view && { ...view, role: d.toRole, updatedAt: later(view.updatedAt, at) };
    }
    case 'ProfileUpdated': {
      const d = event.data as Extract<UserEvent, { type: 'ProfileUpdated' }>['data'];
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
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data as Extract<UserEvent, { type: 'UserRegistered' }>['data'];
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
      const d = event.data as Extract<UserEvent, { type: 'ProfileUpdated' }>['data'];
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

/** Applies freshly appended User events to every read model, inside the append's transaction. */
export async function projectInline(tx: StoreTx, events: readonly StoredEvent<UserEvent>[]): Promise<void> {
  for (const event of events) {
    const userId = (event.data as { userId: string }).userId;
    const before = await tx.get<UserView>(USERS, userId);
    const after = projectUser(before, event);
    if (before !== after) await putOrDelete(tx, USERS, userId, after);

    if (event.type === 'UserRegistered' && after) {
      const key = canonicalEmail(after.email);
      await tx.put<IndexEntry & { email: string }>(EMAIL_INDEX, key, { userId, email: key });
      await tx.put<IndexEntry & { referralCode: string }>(REFERRAL_INDEX, after.referralCode, {
        userId,
        referralCode: after.referralCode,
      });
    }
    if (event.type === 'UserDeleted' && before) {
      // the canonical key, and the exact address for an entry written before keys were canonical
      for (const key of new Set([canonicalEmail(before.email), before.email])) {
        if ((await tx.get<IndexEntry>(EMAIL_INDEX, key))?.userId === userId)
          await tx.delete(EMAIL_INDEX, key);
      }
      await tx.delete(REFERRAL_INDEX, before.referralCode);
    }
    if (event.type === 'UserRegistered' || event.type === 'ProfileUpdated' || event.type === 'UserDeleted') {
      const ref = await tx.get<ReferralView>(REFERRALS, userId);
      const next = projectReferral(ref, event);
      if (next !== ref) await putOrDelete(tx, REFERRALS, userId, next);
    }
  }
}

// ---------- queries ----------

export const getUserView = (db: StoreReads, userId: string) => db.get<UserView>(USERS, userId);

/** The account an address names: by its canonical form, else (an entry from before keys were canonical) as typed. */
export async function findUserIdByEmail(db: StoreReads, email: string): Promise<string | null> {
  const key = canonicalEmail(email);
  const entry =
    (await db.get<IndexEntry>(EMAIL_INDEX, key)) ??
    (key === normalizeEmail(email) ? null : await db.get<IndexEntry>(EMAIL_INDEX, normalizeEmail(email)));
  return entry?.userId ?? null;
}

export async function findUserIdByReferralCode(db: StoreReads, code: string): Promise<string | null> {
  return (await db.get<IndexEntry>(REFERRAL_INDEX, code))?.userId ?? null;
}

export const listUserViews = (db: StoreReads) =>
  db.find<UserView>(USERS, { orderBy: { field: 'createdAt', direction: 'desc' } });

export const countAdmins = (db: StoreReads) => db.count(USERS, { role: 'admin' });

export const listReferralsOf = (db: StoreReads, referrerId: string) =>
  db.find<ReferralView>(REFERRALS, {
    where: { referrerId },
    orderBy: { field: 'createdAt', direction: 'desc' },
  });
