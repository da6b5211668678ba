import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { randomDigits, randomToken, sealSecret, sha256Hex } from '@meridian/platform/crypto';
import type { IdentityCrypto } from '../app/ports.js';
import { canonicalEmail } from '../domain/user.js';

/** Crockford-like alphabet without look-alikes (0/O, 1/I/L): 31 symbols. */
const REFERRAL_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const REFERRAL_LENGTH = 10; // 31^10 ≈ 8e14: unguessable by enumeration under rate limits

function referralCode(): string {
  let out = '';
  while (out.length < REFERRAL_LENGTH) {
    for (const byte of randomBytes(16)) {
      // rejection sampling keeps every symbol equally likely
      if (byte < 248 && out.length < REFERRAL_LENGTH) out += REFERRAL_ALPHABET[byte % 31];
    }
  }
  return out;
}

/** node:crypto + the platform's sealSecret (AES-256-GCM with SECRETS_KEY, no AAD). */
export function createNodeCrypto(options: { secretsKey: string; hashKey: string }): IdentityCrypto {
  const hmacKey = createHmac('sha256', 'meridian-identity-login-code').update(options.hashKey).digest();
  const emailIndexKey = createHmac('sha256', 'meridian-identity-email-index')
    .update(Buffer.from(options.secretsKey, 'hex'))
    .digest();
  const searchTokenKey = createHmac('sha256', 'meridian-identity-search-token')
    .update(Buffer.from(options.secretsKey, 'hex'))
    .digest();
  return {
    newId: () => randomUUID(),
    randomToken: () => randomToken(32),
    randomDigits: (n) => randomDigits(n),
    referralCode,
    sha256: (value) => sha256Hex(value),
    keyedHash: (value) => createHmac('sha256', hmacKey).update(value).digest('hex'),
    seal: (plain) => sealSecret(plain, options.secretsKey),
    emailIndex: (email) => createHmac('sha256', emailIndexKey).update(canonicalEmail(email)).digest('hex'),
    searchToken: (term) => createHmac('sha256', searchTokenKey).update(term, 'utf8').digest('base64url'),
  };
}
