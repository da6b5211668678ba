import type { PrivateFileStore, StoredFileMeta } from '@meridian/platform/files/privateFiles';
import type { Side } from '../domain/kycCase.js';

/** What is known about a stored document besides its bytes (the side it shows). */
export interface DocumentMeta extends StoredFileMeta {
  side: Side;
}

/**
 * KYC document storage: the platform's private file store (files under DATA_DIR/kyc embedded, MongoDB
 * GridFS bucket `kycDocuments` of meridian_kyc in production; @meridian/platform/files/privateFiles).
 * One conformance suite: testing/documentStore.conformance.ts.
 */
export type DocumentStore = PrivateFileStore<DocumentMeta>;

/** Where the documents live: files under DATA_DIR/kyc, or GridFS bucket `kycDocuments` of meridian_kyc. */
export const DOCUMENT_STORE = {
  folder: 'kyc',
  database: 'meridian_kyc',
  bucketName: 'kycDocuments',
} as const;
