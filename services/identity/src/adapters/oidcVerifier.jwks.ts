import { createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { OidcIdentity, OidcVerifier } from '../app/ports.js';

export interface JwksOidcOptions {
  issuer: string;
  jwksUrl: string;
  /** The expected audience (GOOGLE_CLIENT_ID). */
  audience: string;
  /** How long a fetched key set is trusted before refetching (default 1 h). */
  cacheMs?: number;
  /** Minimum time between refetches triggered by an unknown key id (default 30 s). */
  refetchCooldownMs?: number;
  fetchImpl?: typeof fetch;
}

interface Jwk {
  kid?: string;
  kty: string;
  use?: string;
  alg?: string;
  [k: string]: unknown;
}

/**
 * Verifies OIDC ID tokens (Google sign-in): RS256 signature against the issuer's JWKS (fetched from
 * OIDC_JWKS_URL and cached; refetched on an unknown key id, for key rotation), issuer, audience,
 * expiry. Google issues `https://accounts.google.com` or `accounts.google.com`: both are accepted
 * for that issuer.
 */
export function createJwksOidcVerifier(options: JwksOidcOptions): OidcVerifier & { fetchCount(): number } {
  const cacheMs = options.cacheMs ?? 60 * 60 * 1000;
  const cooldownMs = options.refetchCooldownMs ?? 30_000;
  const doFetch = options.fetchImpl ?? fetch;
  const issuers: [string, ...string[]] =
    options.issuer === 'https://accounts.google.com'
      ? [options.issuer, 'accounts.google.com']
      : [options.issuer];
  let keys = new Map<string, KeyObject>();
  let fetchedAt = 0;
  let fetches = 0;
  let inflight: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    inflight ??= (async () => {
      try {
        const res = await doFetch(options.jwksUrl, { signal: AbortSignal.timeout(5_000) });
        if (!res.ok) throw new Error(`JWKS fetch failed: HTTP ${res.status}`);
        const body = (await res.json()) as { keys?: Jwk[] };
        const next = new Map<string, KeyObject>();
        for (const jwk of body.keys ?? []) {
          if (jwk.kty !== 'RSA' || (jwk.use && jwk.use !== 'sig')) continue;
          next.set(jwk.kid ?? '', createPublicKey({ key: jwk as never, format: 'jwk' }));
        }
        keys = next;
        fetchedAt = Date.now();
        fetches++;
      } finally {
        inflight = null;
      }
    })();
    return inflight;
  }

  async function keyFor(kid: string): Promise<KeyObject> {
    const age = Date.now() - fetchedAt;
    if (fetchedAt === 0 || age > cacheMs || (!keys.has(kid) && age > cooldownMs)) await refresh();
    const key = keys.get(kid);
    if (!key) throw new Error('unknown signing key');
    return key;
  }

  return {
    fetchCount: () => fetches,
    async verify(idToken: string, now: Date): Promise<OidcIdentity> {
      const decoded = jwt.decode(idToken, { complete: true });
      if (!decoded || typeof decoded === 'string' || decoded.header.alg !== 'RS256')
        throw new Error('malformed ID token');
      const key = await keyFor(decoded.header.kid ?? '');
      const payload = jwt.verify(idToken, key, {
        algorithms: ['RS256'],
        issuer: issuers,
        audience: options.audience,
        clockTimestamp: Math.floor(now.getTime() / 1000),
      });
      if (
        typeof payload === 'string' ||
        typeof payload.sub !== 'string' ||
        typeof payload.email !== 'string'
      ) {
        throw new Error('ID token without subject or email');
      }
      if (typeof payload.exp !== 'number') throw new Error('ID token without expiry');
      return {
        subject: payload.sub,
        email: payload.email,
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
        name: typeof payload.name === 'string' ? payload.name : '',
        picture: typeof payload.picture === 'string' ? payload.picture : '',
      };
    },
  };
}
