/**
 * KYC document checks (spec §5): a file must be there, at most 10,485,760 bytes, and be a jpeg, png,
 * gif, webp, bmp, heic or pdf judged by its first bytes (the platform's sniffer,
 * @meridian/platform/files/fileKind); an image's header must name real dimensions, each side between
 * MIN_IMAGE_SIDE and MAX_IMAGE_SIDE pixels (the adapter decodes them). Pure.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import {
  assertImageSides,
  CONTENT_TYPES,
  detectFileKind,
  EXTENSIONS,
  type FileKind,
  type ImageDimensions,
  MAX_UPLOAD_BYTES,
  SNIFF_BYTES,
} from '@meridian/platform/files/fileKind';

export const MAX_KYC_FILE_BYTES = MAX_UPLOAD_BYTES;
export { CONTENT_TYPES, detectFileKind, EXTENSIONS, SNIFF_BYTES };

/** An image side shorter than this cannot show a document legibly. */
export const MIN_IMAGE_SIDE = 200;
/** An image side longer than this is no photo or scan of a document (and would cost a reviewer's browser dearly). */
export const MAX_IMAGE_SIDE = 12_000;

export const FILE_MESSAGES = {
  selectFile: 'Please select a file.',
  unreadableImage:
    'The image could not be read. Please upload a photo or scan of the document (JPEG, PNG or PDF).',
  tooLarge: 'File size must be less than 10MB.',
  invalidFormat: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  bothSides: 'Please upload both front and back documents.',
} as const;

export type KycFileKind = FileKind;

/** Throws the spec's text when a file of `size` bytes is over the limit. */
export function assertFileSize(size: number): void {
  if (size > MAX_KYC_FILE_BYTES) throw invalid(FILE_MESSAGES.tooLarge, 'KYC_FILE_TOO_LARGE');
}

/** The detected kind, or throws the spec's text for anything else (HTML named .png, empty files, ...). */
export function assertKycFileKind(head: Uint8Array): KycFileKind {
  const kind = detectFileKind(head);
  if (!kind) throw invalid(FILE_MESSAGES.invalidFormat, 'KYC_FILE_FORMAT');
  return kind;
}

/** Whole-file check for callers holding the bytes (the upload endpoint checks while streaming). */
export function checkKycFile(file: Uint8Array | null | undefined): KycFileKind {
  if (!file) throw invalid(FILE_MESSAGES.selectFile, 'KYC_FILE_MISSING');
  assertFileSize(file.length);
  return assertKycFileKind(file.subarray(0, SNIFF_BYTES));
}

/** Image dimensions as the file's header gives them; null when the header names none. */
export type { ImageDimensions };

/**
 * Throws when an image's header names no dimensions, or a side outside MIN_IMAGE_SIDE..MAX_IMAGE_SIDE
 * pixels (a PDF has none to check).
 */
export function assertImageDimensions(kind: KycFileKind, dimensions: ImageDimensions | null): void {
  assertImageSides(kind, dimensions, {
    minSide: MIN_IMAGE_SIDE,
    maxSide: MAX_IMAGE_SIDE,
    unreadable: FILE_MESSAGES.unreadableImage,
    codePrefix: 'KYC',
  });
}

/** Both sides are required. */
export function assertBothSides<T>(sides: { front?: T | null; back?: T | null }): { front: T; back: T } {
  if (!sides.front || !sides.back) throw invalid(FILE_MESSAGES.bothSides, 'KYC_SIDE_MISSING');
  return { front: sides.front, back: sides.back };
}
