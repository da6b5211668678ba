/**
 * Production PrivateFileStore: MongoDB GridFS (a bucket of the service's database).
 * Files: _id = the service-made id, filename = the same id (never the user's file name),
 * metadata = the file's metadata without its id ({ userId, contentType, … }). An upload that fails
 * mid-stream is aborted (its chunks removed).
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient, type Db } from 'mongodb';
import { assertFileId, type PrivateFileStore, type StoredFileMeta } from './privateFileStore.js';

export interface GridFsFileStoreOptions {
  url: string;
  database: string;
  bucketName: string;
  /** Use an existing client (not closed by close()). */
  client?: MongoClient;
}

export async function createGridFsFileStore<M extends StoredFileMeta>(
  options: GridFsFileStoreOptions,
): Promise<PrivateFileStore<M>> {
  type Metadata = Omit<M, 'id'>;
  const ownClient = !options.client;
  const client = options.client ?? new MongoClient(options.url, { serverSelectionTimeoutMS: 10_000 });
  if (ownClient) await client.connect();
  const db: Db = client.db(options.database);
  const bucket = new GridFSBucket(db, { bucketName: options.bucketName });
  const files = db.collection<{ _id: string; length: number; metadata: Metadata }>(
    `${options.bucketName}.files`,
  );
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
      assertFileId(meta.id);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      const { id: _id, ...metadata } = meta;
      const upload = bucket.openUploadStreamWithId(meta.id as never, meta.id, { metadata });
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
      const file = await files.findOne({ _id: id, 'metadata.userId': userId } as never);
      if (!file) return null;
      return {
        meta: { ...file.metadata, id } as unknown as M,
        size: file.length,
        stream: bucket.openDownloadStream(id as never),
      };
    },

    async list(userId) {
      const docs = await files
        .find({ 'metadata.userId': userId } as never, { projection: { _id: 1 } })
        .toArray();
      return docs.map((d) => d._id).sort();
    },

    async delete(userId, id) {
      const file = await files.findOne({ _id: id, 'metadata.userId': userId } as never, {
        projection: { _id: 1 },
      });
      if (file) await removeById(id);
    },

    async deleteAllOf(userId) {
      const docs = await files
        .find({ 'metadata.userId': userId } as never, { projection: { _id: 1 } })
        .toArray();
      for (const d of docs) await removeById(d._id);
      return docs.length;
    },

    async close() {
      if (ownClient) await client.close();
    },
  };
}
