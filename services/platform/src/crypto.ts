import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

const VERSION = 'v1';

function keyFrom(keyHex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(keyHex)) throw new Error('secrets key must be 64 hex characters (32 bytes)');
  return Buffer.from(keyHex, 'hex');
}

/**
 * Seals a secret (a token or code carried in an event) with AES-256-GCM: `v1.<iv>.<ciphertext>.<tag>`,
 * base64url parts, random 96-bit iv. `aad` (optional) binds the ciphertext to a context, e.g. the event type.
 */
export function sealSecret(plain: string, keyHex: string, aad?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(keyHex), iv);
  if (aad) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    VERSION,
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    tag.toString('base64url'),
  ].join('.');
}

/** Opens a sealed secret. Throws on a wrong key, a tampered or malformed value. */
export function openSecret(sealed: string, keyHex: string, aad?: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('malformed sealed secret');
  const [, ivB64, ctB64, tagB64] = parts;
  const iv = Buffer.from(ivB64, 'base64url');
  const tag = Buffer.from(tagB64, 'base64url');
  if (iv.length !== 12 || tag.length !== 16) throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(keyHex), iv, { authTagLength: 16 });
  if (aad) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctB64, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error('sealed secret failed authentication');
  }
}

export const sha256Hex = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');

/** A url-safe random token of `bytes` random bytes (default 32). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** n crypto-random decimal digits (leading zeros allowed), e.g. a 6-digit login code. */
export function randomDigits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(randomInt(0, 10));
  return out;
}

/** Constant-time string comparison (length differences return false without early exit on content). */
export function timingSafeEqualStr(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** A fresh 64-hex-char key (for development defaults and tests). */
export const generateSecretsKey = (): string => randomBytes(32).toString('hex');
