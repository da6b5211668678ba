import type { StoredEvent } from '../eventSourcing/types.js';
import { MemoryPersonalDataKeys, PersonalData } from '../personalData.js';
import { busEvent } from './eventBus.conformance.js';

/**
 * One key store (identity's vault) seen by two processes: `identity` seals and shreds through the vault itself,
 * `service` opens through its own copies of the keys (a process caches a key from its first use). The specs that
 * check a service forgets a key when identity announces UserDeleted start the service on `service`.
 */
export function identityAndServiceKeys(): { identity: PersonalData; service: PersonalData } {
  const vault = new MemoryPersonalDataKeys();
  const copy = (key: Buffer | null) => key && Buffer.from(key);
  const service = new PersonalData({
    find: async (id) => copy(await vault.find(id)),
    findOrCreate: async (id) => copy(await vault.findOrCreate(id))!,
    destroy: (id) => vault.destroy(id),
  });
  return { identity: new PersonalData(vault), service };
}

/** Identity's UserDeleted as it stands on identity's topic. */
export function userDeletedEvent(userId: string, deletedBy: string): StoredEvent {
  return busEvent(`user-${userId}`, 9, { userId, deletedBy }, 'UserDeleted');
}
