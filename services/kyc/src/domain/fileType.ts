/**
 * KYC document checks (spec §5): a file must be there, at most 10,485,760 bytes, and be a jpeg, png,
 * gif, webp, bmp, heic or pdf judged by its first bytes (magic numbers), never by its name or the
 * browser's declared type. Pure.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';

export const MAX_KYC_FILE_BYTES = 10_485_760;
/** How many leading bytes detection looks at. */
export const SNIFF_BYTES = 32;

export const FILE_MESSAGES = {
  selectFile: 'Please select a file.',
  tooLarge: 'File size must be less than 10MB.',
  invalidFormat: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  bothSides: 'Please upload both front and back documents.',
} as const;

export type KycFileKind = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'heic' | 'pdf';

/** The content type each kind is served with (never text/html or anything a browser would run). */
export const CONTENT_TYPES: Record<KycFileKind, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  heic: 'image/heic',
  pdf: 'application/pdf',
};

export const EXTENSIONS: Record<KycFileKind, string> = {
  jpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  bmp: 'bmp',
  heic: 'heic',
  pdf: 'pdf',
};

const HEIC_BRANDS = new Set(['heic', 'heix', 'mif1', 'msf1']);
const BMP_DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

const ascii = (bytes: Uint8Array, start: number, end: number): string =>
  bytes.length < end ? '' : String.fromCharCode(...bytes.subarray(start, end));
const startsWith = (bytes: Uint8Array, prefix: readonly number[]): boolean =>
  bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);

/** The kind of a file from its first bytes (give at least SNIFF_BYTES when the file has them), or null. */
export function detectFileKind(head: Uint8Array): KycFileKind | null {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  const six = ascii(head, 0, 6);
  if (six === 'GIF87a' || six === 'GIF89a') return 'gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  if (ascii(head, 0, 5) === '%PDF-') return 'pdf';
  if (ascii(head, 4, 8) === 'ftyp' && HEIC_BRANDS.has(ascii(head, 8, 12))) return 'heic';
  if (ascii(head, 0, 2) === 'BM' && head.length >= 18) {
    const dib = head[14] | (head[15] << 8) | (head[16] << 16) | (head[17] << 24);
    const reserved = head[6] | head[7] | head[8] | head[9];
    if (BMP_DIB_HEADER_SIZES.has(dib) && reserved === 0) return 'bmp';
  }
  return null;
}

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

/** Both sides are required. */
export function assertBothSides<T>(sides: { front?: T | null; back?: T | null }): { front: T; back: T } {
  if (!sides.front || !sides.back) throw invalid(FILE_MESSAGES.bothSides, 'KYC_SIDE_MISSING');
  return { front: sides.front, back: sides.back };
}
