/**
 * Identity's key vault in a collection of its own store (`personal-data-keys`), for a deployment on MongoDB
 * (make up, Kubernetes): one random 32-byte key per user, deleted with the user. On SQLite the vault is a file
 * of its own instead (personalDataKeys.sqlite.ts), kept out of backups.
 */
import { randomBytes } from 'node:crypto';
import type { PersonalDataKeys } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';

export const PERSONAL_DATA_KEYS = 'personal-data-keys';

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
        const key = randomBytes(32);
        await tx.put<KeyDoc>(PERSONAL_DATA_KEYS, userId, { userId, key: key.toString('base64') });
        return key;
      });
    },
    async destroy(userId) {
      await store.transaction(async (tx) => {
        await tx.put<KeyDoc>(PERSONAL_DATA_KEYS, userId, { userId, key: '' });
        await tx.delete(PERSONAL_DATA_KEYS, userId);
      });
    },
  };
}
