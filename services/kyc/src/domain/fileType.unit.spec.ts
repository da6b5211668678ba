import { describe, expect, it } from 'vitest';
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { detectFileKind, type FileKind, MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { IMPOSTORS, SAMPLES } from '../testing/samples.js';
import { assertBothSides, assertImageDimensions, checkKycFile, FILE_MESSAGES } from './fileType.js';

const refusedWith = (fn: () => unknown, message: string) => {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(DomainError);
  expect((thrown as DomainError).kind).toBe('invalid');
  expect((thrown as DomainError).message).toBe(message);
};

describe('KYC file type by magic bytes', () => {
  // every kind, from each of its samples (GIF87a and GIF89a; the HEIF brands heic, heix, mif1 and msf1)
  const samplesOf: Record<FileKind, Buffer[]> = {
    jpeg: [SAMPLES.jpeg],
    png: [SAMPLES.png],
    gif: [SAMPLES.gif87, SAMPLES.gif89],
    webp: [SAMPLES.webp],
    bmp: [SAMPLES.bmp],
    heic: [SAMPLES.heic, SAMPLES.heix, SAMPLES.mif1, SAMPLES.msf1],
    pdf: [SAMPLES.pdf],
  };
  it.each(Object.entries(samplesOf))('recognises %s', (kind, samples) => {
    for (const sample of samples) {
      expect(detectFileKind(sample)).toBe(kind);
      expect(checkKycFile(sample)).toBe(kind);
    }
  });

  it.each([
    ['HTML (a .png name does not matter)', IMPOSTORS.html],
    ['SVG', IMPOSTORS.svg],
    ['plain text', IMPOSTORS.text],
    ['a zip', IMPOSTORS.zip],
    ['an mp4 (ftyp isom)', IMPOSTORS.mp4],
    ['RIFF that is not WEBP (wav)', IMPOSTORS.wav],
    ['"BM" text', IMPOSTORS.bmText],
    ['an empty file', Buffer.alloc(0)],
  ])('refuses %s with the spec text', (_label, sample) => {
    expect(detectFileKind(sample)).toBeNull();
    refusedWith(() => checkKycFile(sample), 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.');
  });

  it('accepts exactly 10,485,760 bytes and refuses one byte more', () => {
    const atLimit = Buffer.alloc(MAX_UPLOAD_BYTES);
    SAMPLES.png.copy(atLimit);
    expect(checkKycFile(atLimit)).toBe('png');
    const over = Buffer.alloc(MAX_UPLOAD_BYTES + 1);
    SAMPLES.png.copy(over);
    refusedWith(() => checkKycFile(over), 'File size must be less than 10MB.');
  });

  it('a missing file asks the user to select one', () => {
    refusedWith(() => checkKycFile(undefined), FILE_MESSAGES.selectFile);
  });

  it('an image needs dimensions in its header, each side 200 to 12,000 pixels; a PDF has none to check', () => {
    refusedWith(() => assertImageDimensions('jpeg', null), FILE_MESSAGES.unreadableImage);
    refusedWith(() => assertImageDimensions('png', { width: 0, height: 300 }), FILE_MESSAGES.unreadableImage);
    refusedWith(
      () => assertImageDimensions('png', { width: 1, height: 1 }),
      'The image is too small (1×1 pixels): each side must be at least 200 pixels.',
    );
    refusedWith(
      () => assertImageDimensions('webp', { width: 800, height: 12_001 }),
      'The image is too large (800×12001 pixels): each side must be at most 12,000 pixels.',
    );
    expect(() => assertImageDimensions('jpeg', { width: 200, height: 200 })).not.toThrow();
    expect(() => assertImageDimensions('bmp', { width: 12_000, height: 9_000 })).not.toThrow();
    expect(() => assertImageDimensions('pdf', null)).not.toThrow();
  });

  it('both sides are required', () => {
    refusedWith(() => assertBothSides({ front: 'f' }), 'Please upload both front and back documents.');
    refusedWith(() => assertBothSides({ back: 'b' }), 'Please upload both front and back documents.');
    expect(assertBothSides({ front: 'f', back: 'b' })).toEqual({ front: 'f', back: 'b' });
  });
});
