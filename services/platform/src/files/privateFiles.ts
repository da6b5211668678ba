/**
 * Private file storage of the uploads (KYC documents, support attachments): never public, keyed by
 * (userId, id). Adapters: files under a folder of DATA_DIR (privateFiles.fs.ts, embedded) and MongoDB
 * GridFS (privateFiles.gridfs.ts, production); `sealedFileStore` keeps every file sealed with its owner's
 * personal-data key in the store it wraps (crypto-shredding). Each service picks its own folder or
 * database and bucket; `createPrivateFileStore` chooses the adapter from env.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { PersonalData } from '../personalData.js';
import type { PrivateFileStore, StoredFileMeta } from './privateFileStore.js';

export { assertFileId, isFileId, type PrivateFileStore, type StoredFileMeta } from './privateFileStore.js';

async function gather(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/**
 * A store that keeps every file's bytes sealed with its owner's personal-data key
 * (`PersonalData.sealBinary`, AES-256-GCM) in the store it wraps, and opens them on the way out. Once the
 * owner is deleted (the key destroyed), every copy of the file (the store, its backups) is unreadable and
 * `open` answers null. A file is at most the upload limit (10 MB): it is gathered in memory to be sealed
 * in one piece (the sealed layout puts the tag before the ciphertext) and opened in one piece. Files
 * stored before sealing existed are served as they are.
 */
export function sealedFileStore<M extends StoredFileMeta>(
  inner: PrivateFileStore<M>,
  personalData: PersonalData,
): PrivateFileStore<M> {
  return {
    async save(meta, source) {
      // the source's own failure (a size or type check mid-stream) rejects here: nothing is stored
      const plain = await gather(source);
      const sealed = await personalData.sealBinary(meta.userId, plain);
      await inner.save(meta, Readable.from([sealed]));
      return { size: plain.length };
    },

    async open(userId, id) {
      const stored = await inner.open(userId, id);
      if (!stored) return null;
      const plain = await personalData.openBinary(await gather(stored.stream));
      if (!plain) return null; // the owner was deleted: the key is gone
      return { meta: stored.meta, size: plain.length, stream: Readable.from([plain]) };
    },

    list: (userId) => inner.list(userId),
    delete: (userId, id) => inner.delete(userId, id),
    deleteAllOf: (userId) => inner.deleteAllOf(userId),
    close: () => inner.close(),
  };
}

/**
 * The store chosen by env: GridFS (`database`, `bucketName`) when MONGO_URL is set, else files under
 * DATA_DIR/`folder`.
 */
export async function createPrivateFileStore<M extends StoredFileMeta>(
  config: { MONGO_URL?: string; DATA_DIR: string },
  where: { folder: string; database: string; bucketName: string },
): Promise<PrivateFileStore<M>> {
  if (config.MONGO_URL) {
    const { createGridFsFileStore } = await import('./privateFiles.gridfs.js');
    return createGridFsFileStore<M>({
      url: config.MONGO_URL,
      database: where.database,
      bucketName: where.bucketName,
    });
  }
  const { createFsFileStore } = await import('./privateFiles.fs.js');
  return createFsFileStore<M>({ root: join(config.DATA_DIR, where.folder) });
}
