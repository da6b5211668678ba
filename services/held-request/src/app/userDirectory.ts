/**
 * The user directory a held-request service keeps from identity's integration events
 * (meridian.identity.events): a name and an email for its lists and details — the only personal data
 * such a service shows; UserDeleted also closes the user's account (app/accountClosure.ts). Written inside the transaction that marks the event processed
 * (subscribeIdempotent), in the service's own `users` collection.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { markAccountClosed } from '@meridian/platform/app/accountClosure';
import { readIdentityEvent } from '@meridian/platform/domain/identityEvents';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';

export const USERS = 'users';

export type UserDoc = { userId: string; name: string; email: string };

export function projectUser(
  doc: UserDoc | null,
  data: { userId: string; name?: string; email?: string },
): UserDoc {
  return { userId: data.userId, name: data.name ?? doc?.name ?? '', email: data.email ?? doc?.email ?? '' };
}

export const userById = (reads: StoreReads, id: string) => reads.get<UserDoc>(USERS, id);

/** The identity event types the directory acts on (the consumer skips the others without a transaction). */
export const DIRECTORY_EVENT_TYPES = ['UserRegistered', 'ProfileUpdated', 'UserDeleted'] as const;

/** Applies one of identity's events to the directory (others are ignored). */
export async function handleIdentityEvent(event: StoredEvent, tx: StoreTx): Promise<void> {
  const identityEvent = readIdentityEvent(event, DIRECTORY_EVENT_TYPES);
  if (!identityEvent?.data.userId) return;
  switch (identityEvent.type) {
    case 'UserRegistered': {
      const { userId, name, email } = identityEvent.data;
      const doc = await tx.get<UserDoc>(USERS, userId);
      await tx.put(USERS, userId, projectUser(doc, { userId, name, email }));
      return;
    }
    case 'ProfileUpdated': {
      const { userId, fields, name } = identityEvent.data;
      if (!fields.includes('name')) return;
      const doc = await tx.get<UserDoc>(USERS, userId);
      // an event without a name (read as '') leaves the one already kept
      if (doc) await tx.put(USERS, userId, projectUser(doc, { userId, name: name || undefined }));
      return;
    }
    case 'UserDeleted': {
      const { userId, deletedBy } = identityEvent.data;
      await tx.delete(USERS, userId);
      // closed already when the deletion went through the gateway's fence; a deletion it did not see closes it now
      await markAccountClosed(tx, userId, new Date(event.occurredAt), deletedBy, { deleted: true });
      return;
    }
    default: {
      const _exhaustive: never = identityEvent;
      return _exhaustive;
    }
  }
}

/** A request's document with its owner's name and email (blank when the directory does not know them). */
export type WithUser<D> = D & { userName: string; userEmail: string };

export async function withUser<D extends { userId: string }>(
  reads: StoreReads,
  doc: D,
): Promise<WithUser<D>> {
  const user = await userById(reads, doc.userId);
  return { ...doc, userName: user?.name ?? '', userEmail: user?.email ?? '' };
}

export async function withUsers<D extends { userId: string }>(
  reads: StoreReads,
  docs: D[],
): Promise<WithUser<D>[]> {
  const users = new Map<string, UserDoc | null>();
  for (const d of docs) if (!users.has(d.userId)) users.set(d.userId, await userById(reads, d.userId));
  return docs.map((d) => ({
    ...d,
    userName: users.get(d.userId)?.name ?? '',
    userEmail: users.get(d.userId)?.email ?? '',
  }));
}
