/**
 * Embedded DocumentStore: the platform's private files under `<root>` (DATA_DIR/kyc), never served
 * statically (@meridian/platform/files/privateFiles.fs: hashed folders, generated names).
 */
import { createFsFileStore } from '@meridian/platform/files/privateFiles.fs';
import type { DocumentMeta, DocumentStore } from '../app/ports.js';

export { assertFileId as assertDocumentId } from '@meridian/platform/files/privateFiles';

export const createFsDocumentStore = (options: { root: string }): DocumentStore =>
  createFsFileStore<DocumentMeta>(options);
