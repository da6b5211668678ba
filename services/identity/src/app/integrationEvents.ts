/**
 * Identity's integration events are its user's domain events (domain/user.ts: the messages of
 * proto/meridian/identity/v1/events.proto, secrets only sealed): each one appended goes out as it is on
 * meridian.identity.events, recorded when appended like every service's (platform app/integrationEvents.ts).
 * The source envelope is kept, so consumers de-duplicate on identity's event id.
 */
import type { DomainEvent, StoredEvent } from '@meridian/platform/eventSourcing/types';

export const toIntegrationEvent = (event: StoredEvent): DomainEvent => ({
  type: event.type,
  // the email's blind index is identity's own lookup key: never on the bus
  data:
    event.type === 'UserRegistered' && event.data && typeof event.data === 'object'
      ? { ...(event.data as object), emailIndex: '' }
      : event.data,
});
