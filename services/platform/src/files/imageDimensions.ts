/**
 * An image's dimensions read from its header (image-size), for the uploads that check them after
 * fileKind.ts has told what the file is.
 */
import { imageSize } from 'image-size';
import type { ImageDimensions } from './fileKind.js';

/** How much of a file is enough to read its kind and an image's dimensions. */
export const IMAGE_HEADER_BYTES = 256 * 1024;

/** The dimensions the header names, or null when it names none (not an image, or a broken one). */
export function imageDimensionsOf(head: Uint8Array): ImageDimensions | null {
  try {
    // a copy of exactly these bytes: image-size reads through the view's whole ArrayBuffer, so on a slice of
    // a larger buffer (Node's pool) a header cut short would be read on into unrelated memory
    const { width, height } = imageSize(Uint8Array.from(head));
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}
