/**
 * Crypto-shredding of KYC documents (issue 14, item 2): a DocumentStore that keeps every document's bytes
 * sealed with its owner's personal-data key (`PersonalData.sealBinary`, AES-256-GCM) in the store it wraps
 * (files or GridFS), and opens them on the way out. Once the owner is deleted (the key destroyed), every
 * copy of the document (the store, its backups) is unreadable and `open` answers null (the endpoint's 404).
 *
 * A document is at most the upload limit (10 MB): it is gathered in memory to be sealed in one piece (the
 * sealed layout puts the tag before the ciphertext) and opened in one piece. Documents stored before
 * sealing existed are served as they are.
 */
import { Readable } from 'node:stream';
import type { PersonalData } from '@meridian/platform/personalData';
import type { DocumentStore } from './ports.js';

async function gather(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

export function sealedDocumentStore(inner: DocumentStore, personalData: PersonalData): DocumentStore {
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
