/** Checks deciders share. */
import { forbidden } from './errors.js';

/** The refusal of an admin's power to anyone else, the same words in every service. */
export const ADMIN_ONLY = 'Not authorized, admin only';

/** Refuses (forbidden, with `message`) unless the actor's role is admin. */
export function requireAdminRole(actorRole: string, message: string): void {
  if (actorRole !== 'admin') throw forbidden(message);
}
