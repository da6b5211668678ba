/**
 * The one check every gRPC server of the platform runs before a handler (server.ts on the wire,
 * inProcess.ts in-process): the calling service may call the method (callers.ts), and for a method it
 * calls as `user`, its signed user assertion is valid for this service (userAssertion.ts); the verified
 * claims then replace what the request says of its caller.
 */
import { callersOf, refusalOf, type MeshService, type Refusal } from './callers.js';
import { meshNameOf } from './mesh.js';
import { isRefusal, publicKeyOfCertificate, verifyUserAssertion, type UserClaims } from './userAssertion.js';

/** Refused; or admitted, with the claims to put in the request when the caller acts as `user`. */
export type Admission = { refusal: Refusal } | { claims?: UserClaims };

const ADMITTED: Admission = {};

/**
 * Whether `caller` (the CN of the certificate the CA verified; undefined: none) may call `path` with
 * the user assertion `assertion`. `callerCertificate`: that certificate (PEM or DER), read only when an
 * assertion must be verified. Synchronous unless an assertion not seen before must be verified.
 */
export function admitCall(
  path: string,
  caller: string | undefined,
  callerCertificate: () => Buffer | undefined,
  assertion: string | undefined,
): Admission | Promise<Admission> {
  const refusal = refusalOf(path, caller);
  if (refusal) return { refusal };
  if (callersOf(path)?.[caller as MeshService] !== 'user') return ADMITTED;
  const verified = verifyUserAssertion(
    assertion,
    caller!,
    () => {
      const certificate = callerCertificate();
      return certificate ? publicKeyOfCertificate(certificate) : undefined;
    },
    meshNameOf(path) ?? '',
  );
  const admission = (v: UserClaims | Refusal): Admission => (isRefusal(v) ? { refusal: v } : { claims: v });
  return verified instanceof Promise ? verified.then(admission) : admission(verified);
}
