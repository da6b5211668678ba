/**
 * Reacts to identity's integration events (topic meridian.identity.events, group 'kyc'):
 *  - UserRegistered / ProfileUpdated: remember the user's name and email (shown to admins, carried
 *    by KycSubmitted for the admins' email);
 *  - UserDeleted: erase the user's documents and case, and drop the user's personal-data key from the
 *    cache (identity destroyed it: whatever stays sealed with it anywhere is unreadable).
 * Runs inside the transaction that records the event as processed (subscribeIdempotent): a
 * redelivered event has no second effect. Deleting files is itself idempotent, so a transaction that
 * is rolled back and re-run never leaves them half-erased.
 */
import { causedBy } from '@meridian/platform/app/consumer';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import type { PersonalData } from '@meridian/platform/personalData';
import { USERS } from './collections.js';
import { execute } from './kycCases.js';
import type { DocumentStore } from './ports.js';

export interface IdentityEventDeps {
  documents: DocumentStore;
  now: () => Date;
  personalData: PersonalData;
}

const str = (data: unknown, key: string): string => {
  const v = (data as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' ? v : '';
};

/**
 * The users kyc knows (collection `users`: id, name, email) after one identity event: a read model
 * rebuilt by replaying identity's topic through this function alone. Names and emails are copied as they
 * arrive (sealed by identity with the user's key).
 */
export async function rememberUser(event: StoredEvent, tx: StoreTx): Promise<void> {
  const userId = str(event.data, 'userId');
  if (!userId) return;
  switch (event.type) {
    case 'UserRegistered':
      await tx.put(USERS, userId, {
        id: userId,
        name: str(event.data, 'name'),
        email: str(event.data, 'email'),
      });
      return;
    case 'ProfileUpdated': {
      const fields = (event.data as { fields?: unknown }).fields;
      if (!Array.isArray(fields) || !fields.includes('name')) return;
      const known = await tx.get<{ id: string; name: string; email: string }>(USERS, userId);
      if (known) await tx.put(USERS, userId, { ...known, name: str(event.data, 'name') });
      return;
    }
    case 'UserDeleted':
      await tx.delete(USERS, userId);
      return;
    default:
      return;
  }
}

/** The identity event types handleIdentityEvent acts on (the consumer skips the others without a transaction). */
export const IDENTITY_EVENT_TYPES = ['UserRegistered', 'ProfileUpdated', 'UserDeleted'] as const;

export async function handleIdentityEvent(
  event: StoredEvent,
  tx: StoreTx,
  deps: IdentityEventDeps,
): Promise<void> {
  await rememberUser(event, tx);
  const userId = str(event.data, 'userId');
  if (event.type !== 'UserDeleted' || !userId) return;
  deps.personalData.forget(userId);
  await deps.documents.deleteAllOf(userId);
  await execute(tx, userId, { type: 'EraseKyc', userId, now: deps.now() }, causedBy(event));
}
