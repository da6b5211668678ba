/**
 * Reacts to identity's integration events (meridian.identity.events): the user directory of a
 * held-request service (@meridian/platform app/heldRequest/userDirectory.ts), in this service's `users`.
 */
export { handleIdentityEvent } from '@meridian/platform/app/heldRequest/userDirectory';
