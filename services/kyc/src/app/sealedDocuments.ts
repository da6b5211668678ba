/**
 * Crypto-shredding of KYC documents: every document's bytes are kept sealed with its owner's
 * personal-data key in the store (the platform's `sealedFileStore`). Once the owner is deleted (the key
 * destroyed), every copy of the document is unreadable and `open` answers null (the endpoint's 404).
 */
import { sealedFileStore } from '@meridian/platform/files/privateFiles';
import type { PersonalData } from '@meridian/platform/personalData';
import type { DocumentStore } from './ports.js';

export const sealedDocumentStore = (inner: DocumentStore, personalData: PersonalData): DocumentStore =>
  sealedFileStore(inner, personalData);
