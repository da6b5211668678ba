/** Checks deciders share. */
import { forbidden } from './errors.js';

/** Refuses (forbidden, with `message`) unless the actor's role is admin. */
export function requireAdminRole(actorRole: string, message: string): void {
  if (actorRole !== 'admin') throw forbidden(message);
}
