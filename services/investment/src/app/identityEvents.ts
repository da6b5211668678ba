/**
 * Reacts to identity's integration events (meridian.identity.events): the user directory of a
 * held-request service (@meridian/held-request userDirectory.ts), in this service's `users`
 * (names and emails copied as identity sealed them), and, on UserDeleted, dropping the user's
 * personal-data key from this process's cache (identity destroyed it).
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { PersonalData } from '@meridian/platform/personalData';

export { handleIdentityEvent } from '@meridian/held-request/app/userDirectory';

export function forgetDeletedUser(personalData: PersonalData, event: StoredEvent): void {
  const userId = (event.data as { userId?: unknown } | null)?.userId;
  if (event.type === 'UserDeleted' && typeof userId === 'string' && userId) personalData.forget(userId);
}
