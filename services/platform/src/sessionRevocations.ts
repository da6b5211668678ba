/**
 * The session-revocation contract between identity (it publishes: identity/adapters/sessionRevocations.pubsub.ts)
 * and every gateway instance (they subscribe: gateway/src/sessionRevocations.ts):
 * - Redis channel SESSION_REVOCATIONS_CHANNEL, message JSON `{"sid":"..."}` or `{"uid":"..."}`;
 * - in process (the standalone target): the process-wide channel of inProcessRevocations(), whose
 *   `publishers` counts the live identity services in the process (a gateway caches only while one is).
 * Pub/sub channels ignore Redis' database index: a message of another deployment on the same Redis only
 * drops a cache entry, never keeps one.
 */

export const SESSION_REVOCATIONS_CHANNEL = 'meridian:identity:session-revocations';
const IN_PROCESS_KEY = 'meridian.identity.sessionRevocations.v1';

/** One session (`sid`) or every session of a user (`uid`) ended. */
export type SessionRevocation = { sid: string } | { uid: string };

export interface InProcessRevocations {
  publishers: number;
  listeners: Set<(r: SessionRevocation) => void>;
}

/** The process-wide channel (on globalThis, so every copy of this module in the process finds the same one). */
export function inProcessRevocations(): InProcessRevocations {
  const g = globalThis as Record<symbol, InProcessRevocations | undefined>;
  const key = Symbol.for(IN_PROCESS_KEY);
  return (g[key] ??= { publishers: 0, listeners: new Set() });
}

/** A message of the Redis channel as a revocation, or null when it is not one. */
export function parseRevocation(raw: unknown): SessionRevocation | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.sid === 'string' && r.sid) return { sid: r.sid };
  if (typeof r.uid === 'string' && r.uid) return { uid: r.uid };
  return null;
}
