/** Identity's own events as the store keeps them, for the projection specs. */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import type { UserEvent } from '../domain/user.js';

/** A User event in its envelope on stream user-u1, at `occurredAt`. */
export const userEvent = (event: UserEvent, occurredAt = '2026-01-01T00:00:00.000Z') =>
  ({ ...busEvent('user-u1', 1, event.data, event.type), occurredAt }) as StoredEvent<UserEvent>;

/** Ann (u1) registered on 2026-01-01, referred by `referredBy` when given. */
export const registered = (referredBy = ''): StoredEvent<UserEvent> =>
  userEvent({
    type: 'UserRegistered',
    data: {
      userId: 'u1',
      name: 'Ann',
      email: 'ann@example.com',
      role: 'subscriber',
      referralCode: 'ABCDEFGH23',
      referredBy,
      registeredAt: '2026-01-01T00:00:00.000Z',
      phone: '+1',
      country: 'Kenya',
      emailIndex: '',
    },
  });
