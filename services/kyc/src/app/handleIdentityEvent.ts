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
import { readIdentityEvent } from '@meridian/platform/domain/identityEvents';
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

/** The identity event types handleIdentityEvent acts on (the consumer skips the others without a transaction). */
export const IDENTITY_EVENT_TYPES = ['UserRegistered', 'ProfileUpdated', 'UserDeleted'] as const;

/**
 * The users kyc knows (collection `users`: id, name, email) after one identity event: a read model
 * rebuilt by replaying identity's topic through this function alone. Names and emails are copied as they
 * arrive (sealed by identity with the user's key).
 */
export async function rememberUser(event: StoredEvent, tx: StoreTx): Promise<void> {
  const identityEvent = readIdentityEvent(event, IDENTITY_EVENT_TYPES);
  if (!identityEvent?.data.userId) return;
  switch (identityEvent.type) {
    case 'UserRegistered': {
      const { userId, name, email } = identityEvent.data;
      await tx.put(USERS, userId, { id: userId, name, email });
      return;
    }
    case 'ProfileUpdated': {
      const { userId, fields, name } = identityEvent.data;
      if (!fields.includes('name')) return;
      const known = await tx.get<{ id: string; name: string; email: string }>(USERS, userId);
      if (known) await tx.put(USERS, userId, { ...known, name });
      return;
    }
    case 'UserDeleted':
      await tx.delete(USERS, identityEvent.data.userId);
      return;
    default: {
      const _exhaustive: never = identityEvent;
      return _exhaustive;
    }
  }
}

export async function handleIdentityEvent(
  event: StoredEvent,
  tx: StoreTx,
  deps: IdentityEventDeps,
): Promise<void> {
  await rememberUser(event, tx);
  const deleted = readIdentityEvent(event, ['UserDeleted']);
  if (!deleted?.data.userId) return;
  const { userId } = deleted.data;
  deps.personalData.forget(userId);
  await deps.documents.deleteAllOf(userId);
  await execute(tx, userId, { type: 'EraseKyc', userId, now: deps.now() }, causedBy(event));
}
