/**
 * What an uploaded file is, judged by its first bytes (magic numbers), never by its name or the
 * browser's declared type: jpeg, png, gif, webp, bmp, heic or pdf. The one sniffer of the uploads that
 * accept files (KYC documents, support attachments); each decides which kinds it takes. Pure.
 */
import { invalid } from '../eventSourcing/errors.js';

/** The most an uploaded file may weigh (10 MB). */
export const MAX_UPLOAD_BYTES = 10_485_760;
/** An image side longer than this is no photo, scan or screenshot (and would cost a reviewer's browser dearly). */
export const MAX_IMAGE_SIDE = 12_000;
/** How many leading bytes detection looks at. */
export const SNIFF_BYTES = 32;

export type FileKind = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'heic' | 'pdf';

/** The content type each kind is served with (never text/html or anything a browser would run). */
export const CONTENT_TYPES: Record<FileKind, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  heic: 'image/heic',
  pdf: 'application/pdf',
};

export const EXTENSIONS: Record<FileKind, string> = {
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
export function detectFileKind(head: Uint8Array): FileKind | null {
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

/** Image dimensions as the file's header gives them. */
export interface ImageDimensions {
  width: number;
  height: number;
}

/** What an upload accepts (the sides of an image, the kinds of file) and how it refuses the rest. */
export interface UploadRules {
  /** A side shorter than this shows nothing legible (a side longer than MAX_IMAGE_SIDE is refused by every upload). */
  minSide: number;
  /** The kinds the upload takes (default: every FileKind). */
  kinds?: readonly FileKind[];
  /** The texts: a file over MAX_UPLOAD_BYTES, a file of no kind it takes, an image whose header names no dimensions. */
  messages: { tooLarge: string; invalidFormat: string; unreadableImage: string };
  /** The error codes of the first two, and the prefix of the image's: `<image>_IMAGE_UNREADABLE | _TOO_SMALL | _TOO_LARGE`. */
  codes: { tooLarge: string; format: string; image: string };
}

/** Throws messages.tooLarge when a file of `size` bytes is over MAX_UPLOAD_BYTES. */
export function assertUploadSize(size: number, rules: UploadRules): void {
  if (size > MAX_UPLOAD_BYTES) throw invalid(rules.messages.tooLarge, rules.codes.tooLarge);
}

/**
 * The kind of a file judged by its first bytes (only the first SNIFF_BYTES of `head` are looked at), or
 * throws messages.invalidFormat for anything the upload does not take (HTML named .png, empty files, ...).
 */
export function assertUploadKind(head: Uint8Array, rules: UploadRules): FileKind {
  const kind = detectFileKind(head.subarray(0, SNIFF_BYTES));
  if (!kind || (rules.kinds && !rules.kinds.includes(kind))) {
    throw invalid(rules.messages.invalidFormat, rules.codes.format);
  }
  return kind;
}

/**
 * Throws when an image's header names no dimensions, or a side outside rules.minSide..MAX_IMAGE_SIDE pixels
 * (a PDF has none to check).
 */
export function assertImageSides(
  kind: FileKind,
  dimensions: ImageDimensions | null,
  rules: UploadRules,
): void {
  if (kind === 'pdf') return;
  const { width, height } = dimensions ?? { width: 0, height: 0 };
  const prefix = rules.codes.image;
  if (!(width > 0 && height > 0)) throw invalid(rules.messages.unreadableImage, `${prefix}_IMAGE_UNREADABLE`);
  if (Math.min(width, height) < rules.minSide)
    throw invalid(
      `The image is too small (${width}×${height} pixels): each side must be at least ${rules.minSide} pixels.`,
      `${prefix}_IMAGE_TOO_SMALL`,
    );
  if (Math.max(width, height) > MAX_IMAGE_SIDE)
    throw invalid(
      `The image is too large (${width}×${height} pixels): each side must be at most ${MAX_IMAGE_SIDE.toLocaleString('en-US')} pixels.`,
      `${prefix}_IMAGE_TOO_LARGE`,
    );
}
