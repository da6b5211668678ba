/**
 * What the use cases need from the outside world, implemented in adapters/ (argon2, jsonwebtoken,
 * node:crypto, the OIDC issuer's JWKS). Use cases never import those libraries themselves.
 */
import type { SessionRevocation } from '@meridian/platform/sessionRevocations';

export type { SessionRevocation };

export interface PasswordHasher {
  /** argon2id */
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface SessionClaims {
  sid: string;
  sub: string;
  /** issued at, seconds since epoch */
  iat: number;
  /** expires at, seconds since epoch */
  exp: number;
}

export interface TokenSigner {
  /** A session JWT (sid + sub), valid for ttlMs from now. */
  signSession(claims: { sid: string; sub: string }, now: Date, ttlMs: number): string;
  /** Checks signature, type and expiry; null when the token is not a valid session token. */
  verifySession(token: string, now: Date): SessionClaims | null;
  /** A long-lived device token naming a browser (device id). */
  signDevice(deviceId: string, now: Date, ttlMs: number): string;
  verifyDevice(token: string, now: Date): { deviceId: string } | null;
}

export interface IdentityCrypto {
  newId(): string;
  /** 32 crypto-random bytes, base64url: mailed link tokens and session ids. */
  randomToken(): string;
  /** n crypto-random decimal digits. */
  randomDigits(n: number): string;
  /** An unguessable, human-friendly referral code (10 chars, crypto-random). */
  referralCode(): string;
  /** sha256 hex: how mailed tokens are stored. */
  sha256(value: string): string;
  /** HMAC-SHA256 with a server key: how low-entropy secrets (login codes) are stored. */
  keyedHash(value: string): string;
  /** AES-256-GCM with SECRETS_KEY: how secrets travel inside events to the notification service. */
  seal(plain: string): string;
  /**
   * The blind index of an address: HMAC-SHA256 (hex) of its canonical form (case, plus-tag) under a key
   * derived from SECRETS_KEY. What the email index is keyed by, so no address is stored in clear.
   */
  emailIndex(email: string): string;
  /**
   * A blind search token: HMAC-SHA256 (base64url) of a normalised prefix under a key derived from SECRETS_KEY
   * (like the email index's, another label). Equal prefixes give equal tokens; nothing else shows.
   */
  searchToken(term: string): string;
}

export interface OidcIdentity {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
  picture: string;
}

export interface OidcVerifier {
  /** Verifies signature (issuer JWKS), issuer, audience and expiry; throws on any failure. */
  verify(idToken: string, now: Date): Promise<OidcIdentity>;
}

/**
 * What ended (SessionRevocation): one session (`sid`), or every session a user holds or impersonates under
 * (`uid`: suspension, deletion, a role change, a password change). Gateways cache principals for a few
 * seconds and drop them on receipt, so a revocation reaches every instance at once
 * (adapters/sessionRevocations.pubsub.ts).
 */
export interface SessionRevocationPublisher {
  /** Sent to every gateway; resolves once handed to the channel (never throws: the KV revocation stands). */
  publish(revocation: SessionRevocation): Promise<void>;
}
