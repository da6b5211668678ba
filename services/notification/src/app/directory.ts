/**
 * The directory: who the users are and which of them are administrators, kept from identity's
 * events (UserRegistered, RoleChanged, ProfileUpdated, UserDeleted) in the same transaction as the
 * consumer's processed marker. Used for emails whose event names no recipient (KycSubmitted → every
 * admin) or carries no address.
 *
 * Why a directory rather than one configured address: it follows promotions, demotions, suspensions
 * and deletions as they happen, needs no extra setting per environment, and every admin gets the
 * email in their own mailbox. The identity topic is read from the beginning by group 'notification',
 * so a fresh notification database learns every account (the topic must keep identity's events).
 */
import { readIdentityEvent } from '@meridian/platform/domain/identityEvents';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import type { DirectoryEntry } from '../domain/kycEmails.js';
import { DIRECTORY } from './collections.js';

/** The identity event types updateDirectory acts on. */
export const DIRECTORY_EVENT_TYPES = [
  'UserRegistered',
  'RoleChanged',
  'ProfileUpdated',
  'UserDeleted',
] as const;

export async function updateDirectory(event: StoredEvent, tx: StoreTx): Promise<void> {
  const identityEvent = readIdentityEvent(event, DIRECTORY_EVENT_TYPES);
  if (!identityEvent?.data.userId) return;
  const { userId } = identityEvent.data;
  const before = await tx.get<DirectoryEntry>(DIRECTORY, userId);
  switch (identityEvent.type) {
    case 'UserRegistered': {
      const d = identityEvent.data;
      await tx.put<DirectoryEntry>(DIRECTORY, userId, {
        userId,
        email: d.email,
        name: d.name,
        role: d.role || 'subscriber',
      });
      return;
    }
    case 'RoleChanged': {
      const d = identityEvent.data;
      await tx.put<DirectoryEntry>(DIRECTORY, userId, {
        userId,
        email: d.email || before?.email || '',
        name: d.name || before?.name || '',
        role: d.toRole || before?.role || 'subscriber',
      });
      return;
    }
    case 'ProfileUpdated': {
      const { name } = identityEvent.data;
      if (before && name) await tx.put<DirectoryEntry>(DIRECTORY, userId, { ...before, name });
      return;
    }
    case 'UserDeleted':
      if (before) await tx.delete(DIRECTORY, userId);
      return;
    default: {
      const _exhaustive: never = identityEvent;
      return _exhaustive;
    }
  }
}

export const directoryUser = (reads: StoreReads, userId: string) =>
  reads.get<DirectoryEntry>(DIRECTORY, userId);

export const directoryAdmins = (reads: StoreReads) =>
  reads.find<DirectoryEntry>(DIRECTORY, {
    where: { role: 'admin' },
    orderBy: { field: 'userId', direction: 'asc' },
  });
