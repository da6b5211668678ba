/** Minimal files of every accepted kind (their first bytes), and a few impostors. Tests only. */
const bytes = (...parts: Array<number[] | string>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const pad = (b: Buffer, n = 64) => Buffer.concat([b, Buffer.alloc(Math.max(0, n - b.length))]);

export const SAMPLES = {
  jpeg: pad(bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF')),
  png: pad(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR')),
  gif87: pad(bytes('GIF87a')),
  gif89: pad(bytes('GIF89a')),
  webp: pad(bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ')),
  bmp: pad(bytes('BM', [0x46, 0, 0, 0], [0, 0, 0, 0], [0x36, 0, 0, 0], [40, 0, 0, 0])),
  heic: pad(bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0], 'mif1heic')),
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
