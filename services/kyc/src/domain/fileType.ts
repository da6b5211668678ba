/**
 * KYC document checks (spec §5): a file must be there, at most 10,485,760 bytes, and be a jpeg, png,
 * gif, webp, bmp, heic or pdf judged by its first bytes (the platform's sniffer,
 * @meridian/platform/files/fileKind); an image's header must name real dimensions, each side between
 * MIN_IMAGE_SIDE and the platform's MAX_IMAGE_SIDE pixels (the adapter decodes them). Pure.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import {
  assertImageSides,
  assertUploadKind,
  assertUploadSize,
  type FileKind,
  type ImageDimensions,
  type UploadRules,
} from '@meridian/platform/files/fileKind';

/** An image side shorter than this cannot show a document legibly. */
export const MIN_IMAGE_SIDE = 200;

export const FILE_MESSAGES = {
  selectFile: 'Please select a file.',
  unreadableImage:
    'The image could not be read. Please upload a photo or scan of the document (JPEG, PNG or PDF).',
  tooLarge: 'File size must be less than 10MB.',
  invalidFormat: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  bothSides: 'Please upload both front and back documents.',
} as const;

export type KycFileKind = FileKind;

/** A KYC document's rules as an upload: the sides above, the spec's texts and the KYC error codes. */
const KYC_UPLOAD: UploadRules = {
  minSide: MIN_IMAGE_SIDE,
  messages: FILE_MESSAGES,
  codes: { tooLarge: 'KYC_FILE_TOO_LARGE', format: 'KYC_FILE_FORMAT', image: 'KYC' },
};

/** Throws the spec's text when a file of `size` bytes is over the limit. */
export function assertFileSize(size: number): void {
  assertUploadSize(size, KYC_UPLOAD);
}

/**
 * The kind detected from the file's first bytes, or throws the spec's text for anything else (HTML named
 * .png, empty files, ...).
 */
export function assertKycFileKind(head: Uint8Array): KycFileKind {
  return assertUploadKind(head, KYC_UPLOAD);
}

/** Whole-file check for callers holding the bytes (the upload endpoint checks while streaming). */
export function checkKycFile(file: Uint8Array | null | undefined): KycFileKind {
  if (!file) throw invalid(FILE_MESSAGES.selectFile, 'KYC_FILE_MISSING');
  assertFileSize(file.length);
  return assertKycFileKind(file);
}

/** Image dimensions as the file's header gives them; null when the header names none. */
export type { ImageDimensions };

/**
 * Throws when an image's header names no dimensions, or a side outside MIN_IMAGE_SIDE..MAX_IMAGE_SIDE
 * pixels (a PDF has none to check).
 */
export function assertImageDimensions(kind: KycFileKind, dimensions: ImageDimensions | null): void {
  assertImageSides(kind, dimensions, KYC_UPLOAD);
}

/** Both sides are required. */
export function assertBothSides<T>(sides: { front?: T | null; back?: T | null }): { front: T; back: T } {
  if (!sides.front || !sides.back) throw invalid(FILE_MESSAGES.bothSides, 'KYC_SIDE_MISSING');
  return { front: sides.front, back: sides.back };
}
