/**
 * Reacts to identity's integration events (topic meridian.identity.events), inside the transaction
 * that records the event as processed (subscribeIdempotent), so a redelivery has no second effect:
 * - UserRegistered: the user directory (name and email for the admin's pending deposits) and, when
 *   referredBy is set, LinkReferrer on the new user's ledger (the link the referral bonus needs).
 * - ProfileUpdated: a new name in the directory.
 * - UserDeleted: the directory entry marked deleted and the account closed (platform app/accountClosure.ts: no
 *   new deposit, no balance edit), and
 *   the user's personal-data key dropped from this process's cache (identity destroyed it: the sealed name
 *   and email the entry keeps, like every other copy, are unreadable from now on).
 * Names and emails are copied as identity sealed them (with the user's key); answers open them.
 */
import { markAccountClosed } from '@meridian/platform/app/accountClosure';
import { causedBy } from '@meridian/platform/app/consumer';
import { readIdentityEvent } from '@meridian/platform/domain/identityEvents';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { COLLECTIONS, type UserDoc, projectUser } from '../projections/views.js';
import { handleCommand } from '@meridian/platform/app/commandHandler';
import { LEDGER_STREAM } from './streams.js';

/** The identity event types handleIdentityEvent acts on (the consumer skips the others without a transaction). */
export const IDENTITY_EVENT_TYPES = ['UserRegistered', 'ProfileUpdated', 'UserDeleted'] as const;

export async function handleIdentityEvent(
  event: StoredEvent,
  tx: StoreTx,
  now: Date,
  personalData?: PersonalData,
): Promise<void> {
  const identityEvent = readIdentityEvent(event, IDENTITY_EVENT_TYPES);
  if (!identityEvent?.data.userId) return;
  switch (identityEvent.type) {
    case 'UserRegistered': {
      const data = identityEvent.data;
      const doc = await tx.get<UserDoc>(COLLECTIONS.users, data.userId);
      await tx.put(COLLECTIONS.users, data.userId, projectUser(doc, data));
      if (data.referredBy && data.referredBy !== data.userId) {
        await handleCommand(
          tx,
          LEDGER_STREAM,
          data.userId,
          { type: 'LinkReferrer', userId: data.userId, referrerId: data.referredBy, now },
          causedBy(event),
        );
      }
      return;
    }
    case 'ProfileUpdated': {
      const data = identityEvent.data;
      if (!data.fields.includes('name')) return;
      const doc = await tx.get<UserDoc>(COLLECTIONS.users, data.userId);
      // an event without a name (read as '') leaves the one already kept
      if (doc)
        await tx.put(
          COLLECTIONS.users,
          data.userId,
          projectUser(doc, { userId: data.userId, name: data.name || undefined }),
        );
      return;
    }
    case 'UserDeleted': {
      const data = identityEvent.data;
      personalData?.forget(data.userId);
      const doc = await tx.get<UserDoc>(COLLECTIONS.users, data.userId);
      await tx.put(
        COLLECTIONS.users,
        data.userId,
        projectUser(doc, { userId: data.userId, deletedAt: event.occurredAt }),
      );
      // closed already when the deletion went through the gateway's fence; a deletion it did not see closes it now
      await markAccountClosed(tx, data.userId, new Date(event.occurredAt), data.deletedBy, {
        deleted: true,
      });
      return;
    }
    default: {
      const _exhaustive: never = identityEvent;
      return _exhaustive;
    }
  }
}
