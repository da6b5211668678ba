/**
 * The person on whose behalf a call is made, as the gateway vouches for it: a short-lived JWT (ES256)
 * the gateway signs per call with the private key of its mesh certificate (mesh.ts) and sends as the
 * `x-meridian-user-assertion` metadata. Claims: `iss` the signing service (`gateway`), `aud` the service
 * called (`ledger`, ...), `sub` the user, `role`, `sid` the session, `imp` the impersonating admin (when
 * any), `iat` and `exp` (60 s after). The service called verifies it against the public key of the
 * calling service's certificate, the one the CA verified for this call (on the wire: the client
 * certificate of the connection; in-process: the identity the client presents), with jose: ES256 only,
 * its issuer the calling service, its audience this service, not expired. For every method callers.ts
 * marks `user`, a call without a valid assertion is refused UNAUTHENTICATED, and the verified claims
 * replace the request's `caller` (user, session, impersonator) and `caller_role` before the handler
 * sees it: what a request says of its caller is never believed.
 *
 * The gateway signs from the request it built (its `caller` and `caller_role`, taken from the session it
 * authenticated): its call sites stay as they are. An assertion is kept for reuse while at least 30 s
 * of its life are left (one per user, session, impersonator, role and service); a verified one is kept
 * until it expires, so a busy session costs one signature and one verification per service every 30 s.
 */
import {
  createHash,
  createPrivateKey,
  sign as signBytes,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { Refusal } from './callers.js';

export const USER_ASSERTION_METADATA = 'x-meridian-user-assertion';
/** The JWT `typ` of an assertion (the header), so no other token of the platform passes for one. */
const ASSERTION_TYPE = 'meridian-user+jwt';
/** The life of an assertion, and how much of it must be left for the signer to reuse one. */
export const ASSERTION_LIFETIME_SECONDS = 60;
const REUSE_WHILE_LEFT_SECONDS = 30;
/** Clocks of two machines may differ by this much. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Bound of each cache: past it, the cache starts again empty. */
const CACHE_ENTRIES = 10_000;

/** Who a call is made for. Empty strings: not known (a request without a caller). */
export interface UserClaims {
  userId: string;
  role: string;
  sessionId: string;
  impersonatorId: string;
}

/** The claims of a request the gateway built: its `caller` and `caller_role` (ts-proto's field names). */
export function userClaimsOfRequest(request: unknown): UserClaims {
  const r = (request ?? {}) as {
    caller?: { userId?: string; sessionId?: string; impersonatorId?: string };
    callerRole?: string;
  };
  return {
    userId: r.caller?.userId ?? '',
    role: r.callerRole ?? '',
    sessionId: r.caller?.sessionId ?? '',
    impersonatorId: r.caller?.impersonatorId ?? '',
  };
}

/**
 * The request as the handler sees it: its `caller` (when the message has one) says the verified user,
 * session and impersonator, keeping the correlation id and address; its `caller_role` (when it has one)
 * the verified role.
 */
export function applyUserClaims(request: unknown, claims: UserClaims): void {
  if (!request || typeof request !== 'object') return;
  const r = request as Record<string, unknown>;
  if ('caller' in r) {
    const kept = (r.caller ?? {}) as { correlationId?: string; address?: string };
    r.caller = {
      correlationId: kept.correlationId ?? '',
      ...(kept.address !== undefined ? { address: kept.address } : {}),
      userId: claims.userId,
      sessionId: claims.sessionId,
      impersonatorId: claims.impersonatorId,
    };
  }
  if ('callerRole' in r) r.callerRole = claims.role;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

const privateKeys = new WeakMap<Buffer, KeyObject>();
const privateKeyOf = (pem: Buffer): KeyObject => {
  let key = privateKeys.get(pem);
  if (!key) privateKeys.set(pem, (key = createPrivateKey(pem)));
  return key;
};

/**
 * A compact ES256 JWT of `claims` for `audience`, signed by `signer` (its mesh identity's key). `now`
 * and `lifetimeSeconds` only for tests that need an expired one. Signing is synchronous (node:crypto):
 * the gateway's clients add it to the call they are making.
 */
export function signUserAssertion(
  signer: { name: string; key: Buffer },
  audience: string,
  claims: UserClaims,
  { now = Date.now(), lifetimeSeconds = ASSERTION_LIFETIME_SECONDS } = {},
): string {
  const iat = Math.floor(now / 1000);
  const header = b64url(JSON.stringify({ alg: 'ES256', typ: ASSERTION_TYPE }));
  const payload = b64url(
    JSON.stringify({
      iss: signer.name,
      aud: audience,
      sub: claims.userId,
      role: claims.role,
      sid: claims.sessionId,
      ...(claims.impersonatorId ? { imp: claims.impersonatorId } : {}),
      iat,
      exp: iat + lifetimeSeconds,
    }),
  );
  const input = `${header}.${payload}`;
  const signature = signBytes('sha256', Buffer.from(input), {
    key: privateKeyOf(signer.key),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${b64url(signature)}`;
}

/** signer's key -> (audience, claims) -> an assertion and when it expires (ms). */
const signed = new WeakMap<Buffer, Map<string, { token: string; expiresMs: number }>>();

/** An assertion for this call: a kept one with at least 30 s left, else a fresh one. */
export function userAssertionFor(
  signer: { name: string; key: Buffer },
  audience: string,
  claims: UserClaims,
): string {
  let kept = signed.get(signer.key);
  if (!kept) signed.set(signer.key, (kept = new Map()));
  const key = [audience, claims.userId, claims.sessionId, claims.impersonatorId, claims.role].join('\n');
  const now = Date.now();
  const hit = kept.get(key);
  if (hit && hit.expiresMs - now >= REUSE_WHILE_LEFT_SECONDS * 1000) return hit.token;
  if (kept.size >= CACHE_ENTRIES) kept.clear();
  const token = signUserAssertion(signer, audience, claims, { now });
  kept.set(key, { token, expiresMs: (Math.floor(now / 1000) + ASSERTION_LIFETIME_SECONDS) * 1000 });
  return token;
}

/** A certificate (PEM or DER) -> its public key, by fingerprint. */
const publicKeys = new Map<string, KeyObject>();
export function publicKeyOfCertificate(certificate: Buffer): KeyObject {
  const fingerprint = createHash('sha256').update(certificate).digest('base64');
  let key = publicKeys.get(fingerprint);
  if (!key) {
    if (publicKeys.size >= CACHE_ENTRIES) publicKeys.clear();
    publicKeys.set(fingerprint, (key = new X509Certificate(certificate).publicKey));
  }
  return key;
}

/** (issuer, audience, token) -> the claims it verified to, until it expires. */
const verified = new Map<string, { claims: UserClaims; expiresMs: number }>();

const unauthenticated = (details: string): Refusal => ({ code: status.UNAUTHENTICATED, details });

/**
 * The claims of `token` when it is a valid assertion of `issuer` (verified with `issuerKey`, the public
 * key of the certificate the calling service presented) for `audience`; else the refusal. Synchronous
 * for an assertion verified before and not expired.
 */
export function verifyUserAssertion(
  token: string | undefined,
  issuer: string,
  issuerKey: () => KeyObject | undefined,
  audience: string,
): UserClaims | Refusal | Promise<UserClaims | Refusal> {
  if (!token) return unauthenticated('A user assertion signed by the gateway is required');
  const cacheKey = `${issuer}\n${audience}\n${token}`;
  const hit = verified.get(cacheKey);
  if (hit && hit.expiresMs > Date.now()) return hit.claims;
  const key = issuerKey();
  if (!key) return unauthenticated('The caller presented no certificate to verify its assertion with');
  return jwtVerify(token, key, {
    algorithms: ['ES256'],
    typ: ASSERTION_TYPE,
    issuer,
    audience,
    requiredClaims: ['exp', 'iat', 'sub'],
    maxTokenAge: ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  }).then(
    ({ payload }) => {
      const claims: UserClaims = {
        userId: String(payload.sub ?? ''),
        role: typeof payload.role === 'string' ? payload.role : '',
        sessionId: typeof payload.sid === 'string' ? payload.sid : '',
        impersonatorId: typeof payload.imp === 'string' ? payload.imp : '',
      };
      if (payload.exp! - payload.iat! > ASSERTION_LIFETIME_SECONDS)
        return unauthenticated(`A user assertion lives ${ASSERTION_LIFETIME_SECONDS} s at most`);
      if (verified.size >= CACHE_ENTRIES) verified.clear();
      verified.set(cacheKey, { claims, expiresMs: payload.exp! * 1000 });
      return claims;
    },
    (err: unknown) =>
      unauthenticated(
        `The user assertion is not valid: ${
          err instanceof joseErrors.JOSEError ? err.code : 'unreadable'
        }${err instanceof Error ? ` (${err.message})` : ''}`,
      ),
  );
}

export const isRefusal = (value: UserClaims | Refusal): value is Refusal =>
  typeof (value as Refusal).code === 'number';
