/**
 * Production DocumentStore: the platform's GridFS file store, bucket `kycDocuments` in database
 * meridian_kyc (metadata { userId, side, contentType }).
 */
import type { MongoClient } from 'mongodb';
import { createGridFsFileStore } from '@meridian/platform/files/privateFiles.gridfs';
import { DOCUMENT_STORE, type DocumentMeta, type DocumentStore } from '../app/ports.js';

export interface GridFsDocumentStoreOptions {
  url: string;
  database?: string;
  bucketName?: string;
  /** Use an existing client (not closed by close()). */
  client?: MongoClient;
}

export const createGridFsDocumentStore = (options: GridFsDocumentStoreOptions): Promise<DocumentStore> =>
  createGridFsFileStore<DocumentMeta>({
    ...options,
    database: options.database ?? DOCUMENT_STORE.database,
    bucketName: options.bucketName ?? DOCUMENT_STORE.bucketName,
  });
