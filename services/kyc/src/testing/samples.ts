/**
 * Files of every accepted kind for tests: real headers (kind by magic bytes, dimensions where an image
 * has them) of `width` × `height` images, padded; the PNG is a whole image. And a few impostors.
 */
import { testPng } from '@meridian/platform/testing/testImage';

const bytes = (...parts: Array<number[] | string | Buffer>): Buffer =>
  Buffer.concat(
    parts.map((p) =>
      typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.isBuffer(p) ? p : Buffer.from(p),
    ),
  );
const pad = (b: Buffer, n = 64): Buffer => Buffer.concat([b, Buffer.alloc(Math.max(0, n - b.length))]);
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const u32le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const box = (type: string, ...body: Array<number[] | string | Buffer>) => {
  const content = bytes(...body);
  return bytes(u32be(8 + content.length), type, content);
};

/** A file of `kind` whose header says `width` × `height` pixels. */
export function sampleImage(
  kind: 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'heic',
  width = 400,
  height = 300,
): Buffer {
  switch (kind) {
    case 'png':
      return testPng(width, height);
    case 'jpeg': // SOI, APP0 (JFIF), SOF0 with the dimensions
      return pad(
        bytes(
          [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10],
          'JFIF\0',
          [1, 1, 0, 0, 1, 0, 1, 0, 0],
          [0xff, 0xc0, 0x00, 0x11, 0x08, ...u16be(height), ...u16be(width), 3],
          [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1],
        ),
        128,
      );
    case 'gif':
      return pad(bytes('GIF89a', u16le(width), u16le(height)));
    case 'webp': // an extended-format header (VP8X) with the canvas size
      return pad(
        bytes('RIFF', u32le(0x24), 'WEBPVP8X', u32le(10), [0, 0, 0, 0], u24le(width - 1), u24le(height - 1)),
      );
    case 'bmp':
      return pad(bytes('BM', u32le(0x46), [0, 0, 0, 0], u32le(0x36), u32le(40), u32le(width), u32le(height)));
    case 'heic': // ftyp, then meta > iprp > ipco > ispe (the image's spatial extent)
      return pad(
        bytes(
          box('ftyp', 'heic', [0, 0, 0, 0], 'mif1heic'),
          box(
            'meta',
            [0, 0, 0, 0],
            box('iprp', box('ipco', box('ispe', [0, 0, 0, 0], u32be(width), u32be(height)))),
          ),
        ),
      );
  }
}

export const SAMPLES = {
  jpeg: sampleImage('jpeg'),
  png: sampleImage('png'),
  gif87: bytes('GIF87a', sampleImage('gif').subarray(6)),
  gif89: sampleImage('gif'),
  webp: sampleImage('webp'),
  bmp: sampleImage('bmp'),
  heic: sampleImage('heic'),
  heix: pad(bytes([0, 0, 0, 0x18], 'ftypheix')),
  mif1: pad(bytes([0, 0, 0, 0x18], 'ftypmif1')),
  msf1: pad(bytes([0, 0, 0, 0x18], 'ftypmsf1')),
  pdf: pad(bytes('%PDF-1.7\n')),
};

export const IMPOSTORS = {
  html: bytes('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>'),
  svg: bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
  text: bytes('hello world, not an image at all'),
  zip: pad(bytes('PK', [3, 4])),
  mp4: pad(bytes([0, 0, 0, 0x18], 'ftypisom')),
  wav: pad(bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')),
  bmText: pad(bytes('BM is not a bitmap header')),
};

export { bytes, pad };
