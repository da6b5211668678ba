import { describe, expect, it } from 'vitest';
import {
  generateSecretsKey,
  openSecret,
  randomDigits,
  randomToken,
  sealSecret,
  sha256Hex,
  timingSafeEqualStr,
} from './crypto.js';

describe('crypto', () => {
  const key = generateSecretsKey();

  it('seals and opens a secret (random iv: two seals differ)', () => {
    const a = sealSecret('reset-token-123', key);
    const b = sealSecret('reset-token-123', key);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(openSecret(a, key)).toBe('reset-token-123');
    expect(openSecret(sealSecret('', key), key)).toBe('');
  });

  it('detects tampering, a wrong key and a wrong context', () => {
    const sealed = sealSecret('123456', key, 'LoginCodeRequested');
    const [v, iv, ct, tag] = sealed.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() =>
      openSecret([v, iv, flipped.toString('base64url'), tag].join('.'), key, 'LoginCodeRequested'),
    ).toThrow(/authentication/);
    expect(() => openSecret(sealed, generateSecretsKey(), 'LoginCodeRequested')).toThrow(/authentication/);
    expect(() => openSecret(sealed, key, 'Other')).toThrow(/authentication/);
    expect(() => openSecret('garbage', key)).toThrow(/malformed/);
    expect(() => sealSecret('x', 'short')).toThrow(/64 hex/);
    expect(openSecret(sealed, key, 'LoginCodeRequested')).toBe('123456');
  });

  it('hashes, makes tokens and digit codes, compares in constant time', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(randomToken()).toMatch(/^[\w-]{43}$/);
    expect(randomToken(16)).not.toBe(randomToken(16));
    const codes = Array.from({ length: 200 }, () => randomDigits(6));
    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(190);
    expect(timingSafeEqualStr('abc', 'abc')).toBe(true);
    expect(timingSafeEqualStr('abc', 'abd')).toBe(false);
    expect(timingSafeEqualStr('abc', 'abcd')).toBe(false);
  });
});
