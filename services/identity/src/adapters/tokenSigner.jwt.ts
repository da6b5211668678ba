import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { SessionClaims, TokenSigner } from '../app/ports.js';

const ISSUER = 'meridian-identity';
const SESSION_AUDIENCE = 'meridian-session';
const DEVICE_AUDIENCE = 'meridian-device';

/**
 * HS256 JWTs signed with JWT_SECRET. Session tokens carry sid + sub; device tokens carry did.
 * The audience keeps one kind from being accepted as the other.
 */
export function createJwtTokenSigner(jwtSecret: string): TokenSigner {
  // A KeyObject made once: given the string, jsonwebtoken tries createPublicKey / createPrivateKey on it
  // at every call (and catches the throw) before taking it as a secret, ~2 ms a call (bench/logins.ts).
  const secret = createSecretKey(Buffer.from(jwtSecret, 'utf8'));
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

  function verify(token: string, audience: string, now: Date): jwt.JwtPayload | null {
    try {
      const payload = jwt.verify(token, secret, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience,
        clockTimestamp: seconds(now),
      });
      return typeof payload === 'string' ? null : payload;
    } catch {
      return null;
    }
  }

  return {
    signSession({ sid, sub }, now, ttlMs) {
      const iat = seconds(now);
      return jwt.sign({ sid, iat, exp: iat + Math.floor(ttlMs / 1000) }, secret, {
        algorithm: 'HS256',
        issuer: ISSUER,
        audience: SESSION_AUDIENCE,
        subject: sub,
      });
    },
    verifySession(token, now): SessionClaims | null {
      const p = verify(token, SESSION_AUDIENCE, now);
      if (!p || typeof p.sid !== 'string' || typeof p.sub !== 'string' || !p.iat || !p.exp) return null;
      return { sid: p.sid, sub: p.sub, iat: p.iat, exp: p.exp };
    },
    signDevice(deviceId, now, ttlMs) {
      const iat = seconds(now);
      return jwt.sign({ did: deviceId, iat, exp: iat + Math.floor(ttlMs / 1000) }, secret, {
        algorithm: 'HS256',
        issuer: ISSUER,
        audience: DEVICE_AUDIENCE,
      });
    },
    verifyDevice(token, now) {
      const p = verify(token, DEVICE_AUDIENCE, now);
      return p && typeof p.did === 'string' ? { deviceId: p.did } : null;
    },
  };
}
