/**
 * Production DocumentStore: MongoDB GridFS (bucket `kycDocuments` in database meridian_kyc).
 * Files: _id = the service-made document id, filename = the same id (never the user's file name),
 * metadata { userId, side, contentType }. An upload that fails mid-stream is aborted (its chunks
 * removed).
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient, type Db } from 'mongodb';
import type { DocumentMeta, DocumentStore } from '../app/ports.js';
import { assertDocumentId } from './documentStore.fs.js';

interface FileMetadata {
  userId: string;
  side: DocumentMeta['side'];
  contentType: string;
}

export interface GridFsDocumentStoreOptions {
  url: string;
  database?: string;
  bucketName?: string;
  /** Use an existing client (not closed by close()). */
  client?: MongoClient;
}

export async function createGridFsDocumentStore(options: GridFsDocumentStoreOptions): Promise<DocumentStore> {
  const ownClient = !options.client;
  const client = options.client ?? new MongoClient(options.url, { serverSelectionTimeoutMS: 10_000 });
  if (ownClient) await client.connect();
  const db: Db = client.db(options.database ?? 'meridian_kyc');
  const bucketName = options.bucketName ?? 'kycDocuments';
  const bucket = new GridFSBucket(db, { bucketName });
  const files = db.collection<{ _id: string; length: number; metadata: FileMetadata }>(`${bucketName}.files`);
  await files.createIndex({ 'metadata.userId': 1 });

  const removeById = async (id: string) => {
    try {
      await bucket.delete(id as never);
    } catch (err) {
      if (!/not found|FileNotFound/i.test(String((err as Error)?.message))) throw err;
    }
  };

  return {
    async save(meta, source) {
      assertDocumentId(meta.id);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      const upload = bucket.openUploadStreamWithId(meta.id as never, meta.id, {
        metadata: {
          userId: meta.userId,
          side: meta.side,
          contentType: meta.contentType,
        } satisfies FileMetadata,
      });
      try {
        await pipeline(Readable.from(source), counter, upload);
        return { size };
      } catch (err) {
        await upload.abort().catch(() => undefined);
        await removeById(meta.id).catch(() => undefined);
        throw err;
      }
    },

    async open(userId, id) {
      const file = await files.findOne({ _id: id, 'metadata.userId': userId });
      if (!file) return null;
      return {
        meta: { id, userId, side: file.metadata.side, contentType: file.metadata.contentType },
        size: file.length,
        stream: bucket.openDownloadStream(id as never),
      };
    },

    async list(userId) {
      const docs = await files.find({ 'metadata.userId': userId }, { projection: { _id: 1 } }).toArray();
      return docs.map((d) => d._id).sort();
    },

    async delete(userId, id) {
      const file = await files.findOne({ _id: id, 'metadata.userId': userId }, { projection: { _id: 1 } });
      if (file) await removeById(id);
    },

    async deleteAllOf(userId) {
      const docs = await files.find({ 'metadata.userId': userId }, { projection: { _id: 1 } }).toArray();
      for (const d of docs) await removeById(d._id);
      return docs.length;
    },

    async close() {
      if (ownClient) await client.close();
    },
  };
}
