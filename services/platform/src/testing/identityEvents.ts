/** Identity's integration events as identity publishes them, for the specs that read or carry them. */
import type { UserRegistered } from '@meridian/proto/meridian/identity/v1/events';

/** Ann (u1) registered, every field of the message set. */
export const USER_REGISTERED: UserRegistered = {
  userId: 'u1',
  name: 'Ann',
  email: 'ann@example.com',
  role: 'subscriber',
  referralCode: 'R1',
  referredBy: '',
  registeredAt: '2030-01-01T00:00:00.000Z',
  phone: '',
  country: 'NL',
  emailIndex: '',
};
