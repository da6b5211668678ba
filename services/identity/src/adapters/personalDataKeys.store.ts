/**
 * Identity's key vault in a collection of its own store (`personal-data-keys`), for a deployment on MongoDB
 * (make up, Kubernetes): one random 32-byte key per user, deleted with the user. On SQLite the vault is a file
 * of its own instead (personalDataKeys.sqlite.ts), kept out of backups. A destroyed user's id stays as a
 * tombstone (`personal-data-keys-destroyed`, the id only): `findOrCreate` refuses it (UserKeyDestroyedError).
 */
import { randomBytes } from 'node:crypto';
import { UserKeyDestroyedError, type PersonalDataKeys } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';

export const PERSONAL_DATA_KEYS = 'personal-data-keys';
/** The ids of users whose key was destroyed (nothing else): never given a key again. */
export const DESTROYED_PERSONAL_DATA_KEYS = 'personal-data-keys-destroyed';

interface KeyDoc {
  userId: string;
  key: string;
}

export function createStorePersonalDataKeys(store: ServiceStore): PersonalDataKeys {
  const find = async (userId: string) => {
    const doc = await store.get<KeyDoc>(PERSONAL_DATA_KEYS, userId);
    return doc ? Buffer.from(doc.key, 'base64') : null;
  };
  return {
    find,
    async findOrCreate(userId) {
      return store.transaction(async (tx) => {
        const doc = await tx.get<KeyDoc>(PERSONAL_DATA_KEYS, userId);
        if (doc) return Buffer.from(doc.key, 'base64');
        if (await tx.get(DESTROYED_PERSONAL_DATA_KEYS, userId)) throw new UserKeyDestroyedError(userId);
        const key = randomBytes(32);
        await tx.put<KeyDoc>(PERSONAL_DATA_KEYS, userId, { userId, key: key.toString('base64') });
        return key;
      });
    },
    async destroy(userId) {
      await store.transaction(async (tx) => {
        await tx.put(DESTROYED_PERSONAL_DATA_KEYS, userId, { userId });
        await tx.put<KeyDoc>(PERSONAL_DATA_KEYS, userId, { userId, key: '' });
        await tx.delete(PERSONAL_DATA_KEYS, userId);
      });
    },
  };
}
