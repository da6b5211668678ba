/**
 * Reacts to identity's integration events (meridian.identity.events) inside the transaction that marks
 * the event processed (subscribeIdempotent): the user directory that gives lists and details a name and
 * an email — the only personal data this service shows.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { COLLECTIONS, type UserDoc, projectUser } from '../projections/withdrawalView.js';

export async function handleIdentityEvent(event: StoredEvent, tx: StoreTx): Promise<void> {
  const data = (event.data ?? {}) as { userId?: string; name?: string; email?: string; fields?: string[] };
  if (!data.userId) return;
  switch (event.type) {
    case 'UserRegistered': {
      const doc = await tx.get<UserDoc>(COLLECTIONS.users, data.userId);
      await tx.put(
        COLLECTIONS.users,
        data.userId,
        projectUser(doc, { userId: data.userId, name: data.name ?? '', email: data.email ?? '' }),
      );
      return;
    }
    case 'ProfileUpdated': {
      if (!data.fields?.includes('name')) return;
      const doc = await tx.get<UserDoc>(COLLECTIONS.users, data.userId);
      if (doc)
        await tx.put(
          COLLECTIONS.users,
          data.userId,
          projectUser(doc, { userId: data.userId, name: data.name }),
        );
      return;
    }
    case 'UserDeleted':
      await tx.delete(COLLECTIONS.users, data.userId);
      return;
    default:
      return;
  }
}
