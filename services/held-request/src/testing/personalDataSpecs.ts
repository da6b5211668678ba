/**
 * The personal-data spec every held-request kind (investment, withdrawal) passes: identity's UserDeleted
 * drops the user's key from the service's cache (PersonalData.forgetIfDeleted, in app/service.ts) and the user from its
 * directory.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type PersonalData, SHREDDED } from '@meridian/platform/personalData';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { identityAndServiceKeys, userDeletedEvent } from '@meridian/platform/testing/personalDataCache';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { USERS } from '../app/userDirectory.js';

/** What these specs use of a kind's test stack (its harness's startStack result). */
export interface PersonalDataStack {
  store: ServiceStore;
  bus: EventBus;
  admin: { userId: string };
  registerUser(userId: string, name: string, email: string): Promise<void>;
  ledgerProblems(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Identity's UserDeleted drops the key from the cache of a stack started on `personalData` (and the user from its directory). */
export function forgetsDeletedUsersSpec<S extends PersonalDataStack>(
  startStack: (options: { personalData: PersonalData }) => Promise<S>,
  names: { name: string; email: string },
): void {
  it("identity's UserDeleted drops the key from the service's cache", async () => {
    const { identity, service } = identityAndServiceKeys();
    const stack = await startStack({ personalData: service });
    try {
      const u = `user-${randomUUID()}`;
      const sealedName = await identity.seal(u, names.name);
      await stack.registerUser(u, sealedName, await identity.seal(u, names.email));
      expect(await service.open(sealedName)).toBe(names.name); // cached from now on
      await identity.shred(u); // identity destroys the key and announces the deletion
      expect(await service.open(sealedName)).toBe(names.name);
      await stack.bus.publish(topicOf('identity'), [userDeletedEvent(u, stack.admin.userId)]);
      await waitFor(async () => (await service.open(sealedName)) === SHREDDED, 'the key forgotten');
      await waitFor(async () => (await stack.store.get(USERS, u)) === null, 'directory entry deleted');
      expect(await stack.ledgerProblems()).toEqual([]);
    } finally {
      await stack.stop();
    }
  });
}
