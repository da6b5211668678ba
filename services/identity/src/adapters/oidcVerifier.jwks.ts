import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
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

/**
 * Verifies OIDC ID tokens (Google sign-in) with jose: RS256 signature against the issuer's JWKS (fetched
 * from OIDC_JWKS_URL and cached; refetched on an unknown key id, for key rotation), issuer, audience,
 * expiry. Google issues `https://accounts.google.com` or `accounts.google.com`: both are accepted for that
 * issuer.
 */
export function createJwksOidcVerifier(options: JwksOidcOptions): OidcVerifier & { fetchCount(): number } {
  const issuers =
    options.issuer === 'https://accounts.google.com'
      ? [options.issuer, 'accounts.google.com']
      : [options.issuer];
  let fetches = 0;
  const doFetch = options.fetchImpl ?? fetch;
  const keys = createRemoteJWKSet(new URL(options.jwksUrl), {
    cacheMaxAge: options.cacheMs ?? 60 * 60 * 1000,
    cooldownDuration: options.refetchCooldownMs ?? 30_000,
    timeoutDuration: 5_000,
    [customFetch]: (url, init) => {
      fetches++;
      return doFetch(url, init);
    },
  });

  return {
    fetchCount: () => fetches,
    async verify(idToken: string, now: Date): Promise<OidcIdentity> {
      const { payload } = await jwtVerify(idToken, keys, {
        algorithms: ['RS256'],
        issuer: issuers,
        audience: options.audience,
        currentDate: now,
        requiredClaims: ['exp', 'sub'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.email !== 'string')
        throw new Error('ID token without subject or email');
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
